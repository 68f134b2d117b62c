"""Composer names ('Grieg' = 'Edvard Grieg' = 'E. Grieg') and titles (only clear matches).

A name is correct when every word of it belongs to the reference (initials match first letters, small
typos like 'Denussy' are tolerated) and it includes the surname; it is incorrect when it shares no word
with the reference at all. Titles are never judged incorrect: 'Schmetterling' and 'Butterfly' share no word.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from scoreqa.judge.rules.base import Rule
from scoreqa.judge.rules.text import answer_core, drop_parentheses, fold, hedged, negated, strip_accents

_SUFFIXES = {"i", "ii", "iii", "jr", "sr", "the", "younger", "elder"}
_PARTICLES = {"van", "von", "de", "der", "di", "da", "le", "la"}


def _words(text: str) -> list[str]:
    text = strip_accents(fold(text)).lower()
    return [w for w in re.split(r"[\s.,;:'\"()]+", text.replace("-", " - ")) if w and w != "-"]


def _latin(text: str) -> bool:
    return all(ord(c) < 0x250 or not c.isalpha() for c in strip_accents(text))


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    return min(len(a), len(b)) >= 5 and SequenceMatcher(None, a, b).ratio() >= 0.8


def _covered(word: str, reference: list[str]) -> bool:
    """A word of the reference: the same (up to a small typo), an initial of it, or spelled out from its initial."""
    if word in _SUFFIXES or any(r in _SUFFIXES and r == word for r in reference):
        return word in reference
    if len(word) == 1:
        return any(r.startswith(word) and r not in _SUFFIXES for r in reference)
    return any(_same(word, r) or (len(r) == 1 and word.startswith(r)) for r in reference)


class ComposerRule(Rule):
    name = "composer"
    _CUE = re.compile(r"\bcomposers?\b", re.IGNORECASE)

    def claim(self, question: str, reference: str) -> list[str] | None:
        if not self._CUE.search(question) or re.search(r"[;,，；]|\band\b|arranged|composed", reference,
                                                        re.IGNORECASE):
            return None                                   # one person only; 'Composed by X, arranged by Y' is not
        words = _words(reference)
        return words if words and _latin(reference) else None

    def decide(self, parsed: list[str], prediction: str, question: str) -> bool | None:
        if hedged(prediction) or negated(prediction) or not _latin(prediction):
            return None
        text = re.sub(r"^(?:composed|written)\s+by\s+|^by\s+", "", answer_core(drop_parentheses(prediction)),
                      flags=re.IGNORECASE)
        words = [w for w in _words(text) if w not in _PARTICLES]
        if not words or len(words) > 6 or not all(w.isalpha() for w in words):
            return None
        surname = next(w for w in reversed(parsed) if w not in _SUFFIXES)
        if all(_covered(w, parsed) for w in words):
            full_words = [w for w in words if len(w) > 1]
            suffix_dropped = set(parsed) & _SUFFIXES - set(words)     # 'Johann Strauss' for 'Johann Strauss II'
            return True if any(_same(w, surname) for w in full_words) and not suffix_dropped else None
        if not any(_covered(w, parsed) for w in words if len(w) > 1) and \
                not any(len(w) == 1 and _covered(w, parsed) for w in words):
            return False
        return None


class TitleRule(Rule):
    """Correct only when the prediction contains the whole reference title (or the reverse, for long titles)."""

    name = "title"
    _CUE = re.compile(r"\btitle\b|name of the (?:piece|work)", re.IGNORECASE)

    def claim(self, question: str, reference: str) -> list[str] | None:
        words = _words(drop_parentheses(reference))
        return words if self._CUE.search(question) and words else None

    def decide(self, parsed: list[str], prediction: str, question: str) -> bool | None:
        if hedged(prediction) or negated(prediction):
            return None
        words = _words(drop_parentheses(answer_core(prediction)))
        if not words:
            return None
        if words == parsed or _contains(words, parsed):
            return True
        return None


def _contains(longer: list[str], shorter: list[str]) -> bool:
    n = len(shorter)
    return any(longer[i:i + n] == shorter for i in range(len(longer) - n + 1))
