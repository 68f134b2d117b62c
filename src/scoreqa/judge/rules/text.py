"""Text handling shared by the rules: folding, cleaning a prediction, guards against hedged answers.

Every rule decides only what it fully understands, so the helpers here err towards *not* extracting:
a prediction that hedges ("G minor or B♭ major", "probably") or negates inside a non-yes/no answer
("not C♯5 but D5") is left to the LLM judges.
"""

from __future__ import annotations

import re
import unicodedata

from scoreqa.prompts.answers import strip_thinking

_DASHES = str.maketrans({"–": "-", "—": "-", "‐": "-", "‑": "-", "−": "-", "―": "-", "～": "~",
                         "’": "'", "‘": "'", "“": '"', "”": '"', "′": "'", "″": "''"})
_ANSWER_PREFIX = re.compile(r"^\s*(?:the\s+)?(?:final\s+|short\s+)?answer\s*(?:is)?\s*[:：]?\s*", re.IGNORECASE)
_MARKDOWN = re.compile(r"\*\*|__|`+|^#+\s*|^\s*[-*•]\s+", re.MULTILINE)
_PARENS = re.compile(r"\s*[(\[（][^()\[\]（）]*[)\]）]")
HEDGE = re.compile(r"\b(?:or|either|maybe|perhaps|possibly|probably|likely|unlikely|unclear|uncertain|unsure|"
                   r"not\s+sure|cannot|can't|can\s*not|could|might|may|seems?|appears?\s+to|unknown|unable|"
                   r"guess|hard\s+to\s+tell|difficult\s+to|impossible|depends|ambiguous|varies|various|no\s+doubt|"
                   r"not\s+(?:exactly|quite|really|necessarily|entirely|clearly|certain))\b|\?",
                   re.IGNORECASE)
NEGATION = re.compile(r"\b(?:not|no|none|never|neither|nor|without|absent|isn't|aren't|doesn't|don't|didn't|"
                      r"wasn't|weren't|instead|rather\s+than|but|except|apart\s+from|other\s+than|although|though|whereas|"
                      r"while|unlike)\b|n't\b", re.IGNORECASE)


def fold(text: str) -> str:
    """NFKC (full-width ；，→ ;,), one kind of dash and quote, single spaces; case and ♯♭ are kept."""
    text = unicodedata.normalize("NFKC", str(text)).translate(_DASHES)
    return re.sub(r"\s+", " ", text).strip()


def strip_accents(text: str) -> str:
    """'Saint-Saëns' -> 'Saint-Saens' (names compared across spellings)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def clean_prediction(text: str) -> str:
    """The answer a model gave without reasoning blocks, markdown, an 'Answer:' prefix or edge punctuation."""
    text = strip_thinking(str(text))
    text = _MARKDOWN.sub("", text)
    text = fold(text)
    text = _ANSWER_PREFIX.sub("", text)
    return text.strip(" \t.。!\"'")


def drop_parentheses(text: str) -> str:
    """'f (forte)' -> 'f': glosses in brackets repeat or translate what stands before them."""
    previous = None
    while previous != text:
        previous, text = text, _PARENS.sub("", text)
    return text.strip()


def key(text: str) -> str:
    """Comparison form: folded, lowercase, without edge punctuation and doubled spaces."""
    return re.sub(r"\s+", " ", fold(text).lower()).strip(" .。,;:!\"'")


def hedged(text: str) -> bool:
    return bool(HEDGE.search(text))


def negated(text: str) -> bool:
    return bool(NEGATION.search(text))


def answer_core(text: str) -> str:
    """What follows a lead-in like 'The initial tempo indication is …' or 'Tempo: …' (else the text)."""
    match = re.match(r"^(?:[^:]{0,60}:\s*)(.+)$", text)
    if match:
        return match.group(1).strip()
    match = re.match(r"^(?:in\s+[^,]{1,40},\s*)?(?:the\s+|it\s+|this\s+|its\s+)[^.:;!?]{0,80}?\b(?:is|are|was|were|"
                     r"reads|shows|uses|has|features|contains|lies|sits|occurs|appears|remains|stays|employs|begins|starts)"
                     r"\s+(?:in\s+)?(?:an?\s+|the\s+)?(?:marked\s+|written\s+(?:as\s+)?)?"
                     r"(.+)$", text, re.IGNORECASE)
    return match.group(1).strip() if match else text


def split_items(text: str) -> list[str]:
    """Set-valued answers: items separated by ; , ；， or 'and' / '&' / '+'."""
    parts = re.split(r"\s*[;,]\s*|\s+(?:and|&|\+|plus|as\s+well\s+as)\s+", fold(text))
    return [p.strip(" .") for p in parts if p.strip(" .")]


def split_first_clause(text: str) -> tuple[str, str]:
    """'homophonic, with a melody over chords' -> ('homophonic', 'with a melody over chords')."""
    parts = re.split(r"\s*(?:,|;|\s-\s|\.\s)\s*", text, maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else (text, "")


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!;])\s+|\n", text, maxsplit=1)[0]
