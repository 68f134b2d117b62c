"""Scoring a page-to-ABC transcription against the source MusicXML.

* ``valid``: abctoolkit's abc2xml reads the ABC (through :func:`scoreqa.scores.validate.roundtrip`);
* ``bar_count_match``: the round trip has as many measures as the source;
* ``pitch_f1``: per-bar pitch-set F1, micro-averaged over the bars of one score: bar i of the
  transcription is compared with measure i of the source as sets of written pitches (step,
  alteration, octave; all parts together); missing bars count their pitches as misses, extra bars
  as false alarms. Invalid ABC scores 0.
Reported as percentages averaged over scores, with the number of invalid transcriptions.
"""

from __future__ import annotations

import re
from statistics import mean
from typing import Any, Mapping, Sequence
from xml.etree import ElementTree as ET

from scoreqa.data.records import Question
from scoreqa.prompts.answers import strip_thinking
from scoreqa.scores.mxl import parse
from scoreqa.scores.validate import Pitch, pitch_sets, roundtrip

_FENCE = re.compile(r"```(?:abc)?\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_abc(output: str | None) -> str | None:
    """The ABC of an answer: a fenced block if there is one, else the text; ``X:1`` added when missing."""
    text = strip_thinking(output or "")
    fenced = _FENCE.search(text)
    text = (fenced.group(1) if fenced else text).strip()
    if not text:
        return None
    return text if re.match(r"^\s*X:", text) else "X:1\n" + text


def bar_pitches(root: ET.Element) -> list[set[Pitch]]:
    """Pitch set of each measure, all parts together."""
    parts = [pitch_sets(part) for part in root.findall("part")]
    length = max((len(p) for p in parts), default=0)
    return [set().union(*(p[i] for p in parts if i < len(p))) for i in range(length)]


def score_transcription(output: str | None, source: ET.Element) -> dict[str, Any]:
    want = bar_pitches(source)
    abc = extract_abc(output)
    try:
        got = bar_pitches(roundtrip(abc)) if abc else None
    except Exception:  # abc2xml raises anything from deep inside its parser: the ABC is invalid
        got = None
    if got is None:
        return {"valid": False, "bar_count_match": False, "pitch_f1": 0.0, "bars": (0, len(want))}
    tp = fp = fn = 0
    for index in range(max(len(want), len(got))):
        truth = want[index] if index < len(want) else set()
        guess = got[index] if index < len(got) else set()
        tp, fp, fn = tp + len(truth & guess), fp + len(guess - truth), fn + len(truth - guess)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0
    return {"valid": True, "bar_count_match": len(got) == len(want), "pitch_f1": f1, "bars": (len(got), len(want))}


def reconstruction_metrics(records: Sequence[Any], questions: Mapping[str, Question]) -> dict[str, Any]:
    per_score = {}
    for record in records:
        question = questions[record.question_id]
        per_score[question.score_id] = score_transcription(record.raw_output, parse(question.meta["musicxml"]))
    rows = list(per_score.values())
    pct = lambda values: round(100 * mean(values), 2) if values else float("nan")  # noqa: E731
    return {"valid": pct([r["valid"] for r in rows]), "bar_count_match": pct([r["bar_count_match"] for r in rows]),
            "pitch_f1": pct([r["pitch_f1"] for r in rows]), "overall": pct([r["pitch_f1"] for r in rows]),
            "n_invalid": sum(not r["valid"] for r in rows),
            "per_score": {k: {**v, "pitch_f1": round(100 * v["pitch_f1"], 2)} for k, v in per_score.items()}}
