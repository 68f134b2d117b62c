"""Option extraction for multiple-choice answers that never guesses.

A label is accepted only when the answer *is* that label (``B``, ``(B)``, ``B.``, ``**B**``,
``Option B``, ``B. <option text>``), when an explicit statement names it (``Answer: B``,
``the answer is B``) and no statement names another, or when the answer is exactly one option's
text. Anything else returns ``None``: unparseable answers are scored wrong and counted, never
mapped to the nearest option.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Sequence

from scoreqa.prompts.answers import strip_thinking

_WRAP = "*_`'\"“”‘’ \t"
_LEAD = re.compile(r"^(?i:(?:the\s+)?(?:final\s+|correct\s+)?(?:answer|option|choice)\s*(?:is\s*)?[:：]?\s*)")


def _norm_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).strip().strip(_WRAP).lower()
    return re.sub(r"\s+", " ", text).rstrip(".。")


def _label_alternation(labels: Sequence[str]) -> str:
    return "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))


def _bare_label(text: str, labels: Sequence[str]) -> str | None:
    """The label when the whole answer is a (wrapped) label, optionally followed by its option text."""
    core = _LEAD.sub("", text.strip().strip(_WRAP)).strip().strip(_WRAP)
    pattern = rf"[(\[]?({_label_alternation(labels)})[)\]]?(?:\s*$|\s*[.:：)]\s*.*$)"
    match = re.match(pattern, core, re.DOTALL)
    return match.group(1) if match else None


def _stated_labels(text: str, labels: Sequence[str]) -> set[str]:
    """Labels named by explicit statements such as ``Answer: B`` or ``the correct option is (B)``."""
    alternation = _label_alternation(labels)
    pattern = (rf"(?i:answer|option|choice)\s*(?i:is|would be|:|：)\s*[*_`(\[]*({alternation})"
               rf"(?![A-Za-z0-9])")
    return set(re.findall(pattern, text))


def extract_choice(output: str | None, labels: Sequence[str], options: Sequence[str] = ()) -> str | None:
    """The chosen label, or ``None`` when the output does not name exactly one option."""
    if not output:
        return None
    text = strip_thinking(output).strip()
    if not text:
        return None
    stated = _stated_labels(text, labels)
    if len(stated) > 1:
        return None
    for candidate in (text, text.splitlines()[-1]):
        label = _bare_label(candidate, labels)
        if label is not None and label in labels and stated <= {label}:
            return label
    if stated:
        return stated.pop()
    if options:
        wanted = _norm_text(text)
        matches = [label for label, option in zip(labels, options) if _norm_text(str(option)) == wanted]
        if len(matches) == 1:
            return matches[0]
    return None


_DIGIT_EDGES = " \t\n\r`'\"“”‘’*"


def digit_answer(output: str | None) -> list[int] | None:
    """The digits of an answer written as concatenated digits (``"3102"``, ``"`257`."``), or ``None``
    when the answer holds anything else (ABC-Eval's ordering and bar-number answers)."""
    if output is None:
        return None
    text = strip_thinking(output).strip(_DIGIT_EDGES).rstrip(".。").strip(_DIGIT_EDGES)
    if not re.fullmatch(r"\d+", text):
        return None
    return [int(c) for c in text]


_SEPARATED_NUMBERS = re.compile(r"\d+(?:(?:\s*[,;，；、]\s*|\s+)\d+)+")


def bar_numbers(output: str | None) -> list[int] | None:
    """Bar numbers of an ABC-Eval Error Detection target or answer, or ``None`` for anything else.

    Concatenated digits are single bars except ``10``, which is bar 10 (``"610"`` -> 6, 10): the
    release lists bars in ascending order, so a 1 followed by a 0 can only be ten, and read this way
    every one of the 220 targets has as many bars as its ``error`` column lists errors. Numbers
    written with separators (``"6, 10"``, ``"6 10"``, ``"6；10"``) are taken whole.
    """
    if output is None:
        return None
    text = strip_thinking(output).strip(_DIGIT_EDGES).rstrip(".。").strip(_DIGIT_EDGES)
    if re.fullmatch(r"\d+", text):
        return [int(token) for token in re.findall(r"10|\d", text)]
    if _SEPARATED_NUMBERS.fullmatch(text):
        return [int(token) for token in re.findall(r"\d+", text)]
    return None
