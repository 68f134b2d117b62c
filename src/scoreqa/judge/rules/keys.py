"""Keys: 'G minor' = 'g minor' = 'Gm'; A♭ = Ab = A-flat. Enharmonic respellings (D♭ vs C♯ major) stay undecided."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoreqa.judge.rules.base import Rule
from scoreqa.judge.rules.text import drop_parentheses, fold, hedged, negated

_ACC = {"": 0, "♯": 1, "#": 1, "sharp": 1, "♭": -1, "b": -1, "flat": -1}
_STEP = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
_ACC_RE = r"(?:[\s-]?(?:sharp|flat)|♯|♭|#|b)"
_NOT_A_KEY = r"(?!\s+(?:key|mode|chord|third|sixth|seventh|second|scale|tonality|triad|interval|sound|feel|quality))"
KEY = re.compile(rf"(?<![\w♯♭#])([A-Ga-g])({_ACC_RE})?(?:\s*-?\s*(major|minor|maj|min)\b|(m)(?![\w]))"
                 rf"{_NOT_A_KEY}", re.IGNORECASE)
_REFERENCE = re.compile(rf"^([A-G])({_ACC_RE})?\s*[\s-]\s*(major|minor)$", re.IGNORECASE)
_TONIC_ONLY = re.compile(rf"^([A-G])({_ACC_RE})?$")


@dataclass(frozen=True)
class Key:
    letter: str
    accidental: int
    mode: str | None

    @property
    def pitch_class(self) -> int:
        return (_STEP[self.letter] + self.accidental) % 12


def _accidental(token: str | None) -> int:
    return _ACC.get((token or "").strip(" -").lower(), 0)


def _mode(word: str) -> str:
    return "major" if word.lower().startswith("maj") else "minor"


def find_keys(text: str) -> set[Key]:
    keys = set()
    text = fold(text)
    for match in KEY.finditer(text):
        letter, accidental, mode, short_minor = match.groups()
        if short_minor and (letter.islower() or short_minor != "m"):
            continue                          # 'Gm' is G minor; 'am', 'bm' are words
        if letter.islower() and not accidental and match.start() > 0 and (
                not mode or len(mode) < 5 or (letter == "a" and text[match.end():].strip(" .!,;"))):
            continue                          # 'am', 'a minor key': lowercase tonics only with a full mode word
        keys.add(Key(letter.upper(), _accidental(accidental), _mode(mode or "minor")))
    return keys


class KeyRule(Rule):
    name = "key"

    def claim(self, question: str, reference: str) -> Key | None:
        match = _REFERENCE.match(fold(reference).strip(" ."))
        if not match:
            return None
        return Key(match.group(1), _accidental(match.group(2)), match.group(3).lower())

    def decide(self, parsed: Key, prediction: str, question: str) -> bool | None:
        if hedged(prediction) or negated(prediction):
            return None
        text = drop_parentheses(prediction)
        keys = find_keys(text)
        if not keys:
            tonic = _TONIC_ONLY.match(fold(text))
            if tonic is None:
                return None
            guess = Key(tonic.group(1), _accidental(tonic.group(2)), None)
            return False if guess.pitch_class != parsed.pitch_class else None
        if len(keys) != 1:
            return None
        key = keys.pop()
        if key == parsed:
            return True
        if (key.letter, key.accidental) != (parsed.letter, parsed.accidental) and key.pitch_class == parsed.pitch_class:
            return None                        # enharmonic respelling
        return False
