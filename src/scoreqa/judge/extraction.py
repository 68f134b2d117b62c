"""Find the final answer in a free-text prediction before any rule reads it.

Chat models answer in sentences, with reasoning, markdown, hedges and self-corrections. The rules only
see the span this module returns:

- the last "answer is / therefore / so / thus" clause, else a single bolded span, else the whole text;
- a self-correction keeps what follows it ("not X but Y", "X — no, Y", "X. Actually, Y");
- one hedged candidate is that candidate ("most likely X"); two or more ("X or Y") are *several*;
- "Unknown", "cannot be determined", "I don't know" are *unknown* (the paper's system prompt, App. H.2,
  asks for "Unknown" when unsure, so with a non-blank reference that answer is wrong);
- anything left hedged ("maybe", "I think", a question mark) is *unsure*: the rules stay silent.

Foreign notations (German keys, Chinese terms, Helmholtz pitches) are rewritten into the English forms the
rules read (:mod:`scoreqa.judge.rules.notations`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from scoreqa.judge.rules.notations import to_english
from scoreqa.judge.rules.text import fold
from scoreqa.prompts.answers import strip_thinking

Status = Literal["answer", "unknown", "several", "unsure"]

_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_MARKDOWN = re.compile(r"\*\*|__|`+|^#+\s*|^\s*(?:[-*•]|\d+\.)\s+|^>\s*|(?<![\w*])\*(?=\w)|(?<=\w)\*(?![\w*])",
                       re.MULTILINE)
_FINAL = re.compile(r"(?:\b(?:the\s+)?(?:final\s+|short\s+|correct\s+)?answer(?:\s+to\s+(?:this|the)\s+question)?"
                    r"\s*(?:is|would\s+be|:)|"
                    r"\b(?:therefore|thus|hence|in\s+conclusion|in\s+summary|to\s+sum\s+up)\b[,:]?|"
                    r"(?:^|(?<=[.!;:,]\s))so\b,?(?=\s+(?:it|its|it's|the|this|there|yes|no)\b))"
                    r"\s*[:,]?\s*", re.IGNORECASE | re.MULTILINE)
_UNKNOWN = re.compile(r"^(?:(?:without|from|based\s+on|given|with\s+only|since|as)\b[^,.]{0,50},\s*)?"
                      r"(?:the\s+answer\s+is\s+)?(?:unknown|not\s+(?:known|determinable|"
                      r"specified|provided|available|given)|i\s+(?:do\s+not|don't|cannot|can't)\s+(?:know|tell|say|"
                      r"determine|see)\b.*|i'?m\s+not\s+able\s+to\b.*|(?:it|this|that|the\s+\w+(?:\s+\w+)?)\s+"
                      r"(?:cannot|can\s*not|can't|could\s+not)"
                      r"\s+be\s+(?:determined|identified|known|told)\b.*|(?:there\s+is\s+)?(?:not\s+enough|"
                      r"insufficient)\s+information\b.*|(?:it\s+is\s+)?(?:impossible|not\s+possible)\s+to\s+"
                      r"(?:determine|tell|say|know)\b.*|cannot\s+be\s+determined\b.*|undetermined|unclear)$",
                      re.IGNORECASE)
_ONE_CANDIDATE = re.compile(r"^(?:(?:it\s+is|it's|this\s+is|the\s+\w+(?:\s+\w+)?\s+is)\s+)?(?:most\s+likely|"
                            r"most\s+probably|probably|likely|presumably|i\s+(?:think|believe|would\s+say)"
                            r"(?:\s+(?:it\s+is|it's|that))?)\s*:?\s+(.+)$", re.IGNORECASE)
_SEVERAL = re.compile(r"^(?:either\s+)?(.+?)\s+or\s+(?:possibly\s+|perhaps\s+|maybe\s+)?(.+)$", re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:maybe|perhaps|possibly|probably|likely|might|could\s+be|may\s+be|i\s+think|i\s+guess|"
                    r"not\s+sure|unsure|uncertain|hard\s+to\s+(?:say|tell)|seems?|appears?\s+to)\b|\?",
                    re.IGNORECASE)
_CORRECTION = re.compile(r"(?:\s*[-—–]+\s*|[,;.]\s+)(?:no[,!]|sorry[,!]?|wait[,!]?|oops[,!]?|correction:|"
                         r"i\s+mean,?|actually,|on\s+second\s+thought,?)\s*(?:no[,!]\s*)?(?:it(?:'s|\s+is)\s+)?",
                         re.IGNORECASE)
_NOT_BUT = re.compile(r"^(?:it(?:'s|\s+is)\s+|this\s+is\s+|it\s+isn't\s+)?not\s+(?:in\s+)?(?:(?-i:an?|the)\s+)?(.+?)"
                      r"(?:,?\s+but\s+(?:rather\s+)?(?:in\s+)?|\s*[;:]\s*(?:it(?:'s|\s+is)\s+(?:in\s+)?)?)"
                      r"(?:(?-i:an?|the)\s+)?(.+)$", re.IGNORECASE)
_Y_NOT_X = re.compile(r"^(.+?),\s+(?:and\s+)?not\s+(?:(?-i:an?|the)\s+)?[^,;]+$", re.IGNORECASE)
_YES_NO_START = re.compile(r"^\W*(?:yes|no)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Extraction:
    """``text``: the final answer span (English notation); ``status`` says how far the rules may trust it."""

    text: str
    status: Status
    candidates: tuple[str, ...] = ()
    full: str = ""             # the whole cleaned prediction
    context: str = ""          # what precedes a 'so / therefore / answer is' clause: it must not contradict it


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(" \t.。!\"'")


def _final_clause(text: str) -> tuple[str, str]:
    """(the clause after the last 'answer is / therefore / so' marker, the text before it), else (text, '')."""
    matches = [m for m in _FINAL.finditer(text) if _clean(text[m.end():])]
    if not matches:
        return text, ""
    tail = text[matches[-1].end():]
    return re.split(r"(?<=[.!])\s+(?=[A-Z])|\n", tail, maxsplit=1)[0], text[:matches[-1].start()]


_SUBJECT = re.compile(r"\b(?:what|who)\s+(?:is|are|was|were)\s+(?:the\s+)?(.+?)\s*(?:\?|$|\s+(?:in|of|between|at)\s+"
                      r"(?:measures?|bars?|the\s+piece)\b)", re.IGNORECASE)


def _echoed(text: str, question: str) -> tuple[str, str] | None:
    """'The initial time signature … is 12/8. <more>' to 'What is the initial time signature?': the value stated
    in the first or second sentence when it names the question's subject, and the text after that sentence."""
    subject = _SUBJECT.search(question)
    if not subject:
        return None
    # 'initial' / 'opening' may be left out: 'the time signature is 2/8' restates 'the initial time signature'
    *head, last = subject.group(1).split()
    words = "".join(rf"(?:{re.escape(w)}\s+)?" if w.lower() in {"initial", "opening"} else rf"{re.escape(w)}\s+"
                    for w in head) + re.escape(last)
    sentences = re.split(r"(?<=[.!])\s+(?=[A-Z\"])|\n+", text.strip(), maxsplit=2)   # not after 'Op. 54'
    for i, sentence in enumerate(sentences[:2]):
        match = re.search(rf"\b{words}\b(?:[^.;:!?]|\.(?=\s*\d)){{0,80}}?\b(?:is|are|was|were)\s+"
                          rf"(?:known\s+as\s+|called\s+)?(?:(?-i:an?|the)\s+)?([^;]+)$", sentence.strip(" ."),
                          re.IGNORECASE)
        if match:       # the value, without a trailing ', which …' / ', also …' clause
            value = re.split(r",\s+(?:which|also|and|but|as|where|with|while)\b", match.group(1), maxsplit=1)[0]
            return value, " ".join(sentences[i + 1:])
    return None


def _bold(text: str) -> str | None:
    """The one bolded span that is an answer (not a label such as '**Key:**'), if exactly one."""
    spans = [a or b for a, b in _BOLD.findall(text)]
    spans = [s for s in spans if not s.strip().endswith(":") and s.strip()]
    return spans[0] if len(spans) == 1 else None


def _corrected(text: str) -> str:
    """What a self-correction leaves standing: the part after 'not X but', '— no,', 'actually'; Y of 'Y, not X'."""
    if not _YES_NO_START.match(text) and (kept := _Y_NOT_X.match(text)) and _short(kept.group(1)):
        return kept.group(1)
    match = _NOT_BUT.match(re.sub(r"^it\s+isn't\s+", "it is not ", text, flags=re.IGNORECASE))
    if match:
        return match.group(2)
    parts = _CORRECTION.split(text)
    if len(parts) > 1 and _clean(parts[-1]) and not _YES_NO_START.match(text):
        return parts[-1]
    return text


def _short(text: str) -> bool:
    """One short clause: 'X or Y' there is a hedge between answers, not an 'or' inside reasoning."""
    return len(text.split()) <= 10 and not re.search(r"[.;:]\s", text)


def extract(prediction: str, question: str = "") -> Extraction:
    """The final answer of a prediction, and whether it is one answer, unknown, several candidates or unsure.

    With the question, an answer that opens by restating its subject ('The initial key … is X.') is read from
    that first sentence; the rest of the text becomes ``context``, which must not state the reference."""
    raw = to_english(strip_thinking(fold_lines(prediction)))
    bold = _bold(raw)
    text = _MARKDOWN.sub("", raw)
    full = _clean(text.replace("\n", " "))
    if not full:
        return Extraction("", "answer", full=full)
    lines = [line for line in (_clean(x) for x in text.split("\n")) if line]
    final, context = _final_clause(text)
    final, context = _clean(final), _clean(context.replace("\n", " "))
    if final == _clean(text) and bold is not None:
        final = _clean(bold)
    elif final == _clean(text) and len(lines) > 1 and len(lines[0].split()) > 6 >= len(lines[-1].split()):
        final = lines[-1]              # reasoning first, a short answer line last
    elif final == _clean(text) and question and (echo := _echoed(text, question)):
        final, context = _clean(echo[0]), _clean(echo[1].replace("\n", " "))
    final = _clean(_corrected(final))
    last_sentence = re.split(r"(?<=[.!])\s+", full)[-1].strip(" .!").lower()
    if _UNKNOWN.match(final) or last_sentence in {"unknown", "answer: unknown"}:
        return Extraction(final, "unknown", full=full)
    one = _ONE_CANDIDATE.match(final)
    if one and not _SEVERAL.match(one.group(1)):
        return Extraction(_clean(one.group(1)), "answer", full=full, context=context)
    several = _SEVERAL.match(final)
    if several and not _YES_NO_START.match(final) and _short(final):
        return Extraction(final, "several", tuple(_clean(c) for c in several.groups()), full=full)
    if _HEDGE.search(final):
        return Extraction(final, "unsure", full=full)
    return Extraction(final, "answer", full=full, context=context)


def fold_lines(text: str) -> str:
    """Fold each line (NFKC, one kind of dash) but keep the line breaks that separate reasoning from answer."""
    return "\n".join(fold(line) for line in str(text).split("\n"))
