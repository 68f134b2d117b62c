"""BoYaEval's metrics: Task 1 and Task 3 accuracy (option letters, never guessed); Task 2 BLEU-4, chrF
and BERTScore-F1 per track as the paper reports them (Table 2: Recognition = Gongchepu + Lülüpu,
Translation = Jianzipu) and per notation (Table 6), plus all Task 2 items pooled.

A Task 2 answer written with the label its Appendix E.2 template asks for (``Interpretation: ...``,
``Notation: ...``) is scored on the text after the last such label; any other answer as written.
"""

from __future__ import annotations

import re
from statistics import mean
from typing import Any, Mapping, Sequence

from scoreqa.data.boyaeval import TASK2_TRACKS
from scoreqa.data.records import Question
from scoreqa.metrics.choices import extract_choice
from scoreqa.metrics.text_overlap import BertScoreSpec, text_overlap
from scoreqa.prompts.answers import strip_thinking

_TASK2_LABEL = re.compile(r"(?im)^\W*(?:interpretation|notation)\W*[:：]\s*")


def task2_answer(output: str | None) -> str:
    """The answer text: after the last ``Interpretation:`` / ``Notation:`` label when there is one."""
    text = strip_thinking(output or "")
    labels = list(_TASK2_LABEL.finditer(text))
    return (text[labels[-1].end():] if labels else text).strip()


def _accuracy(rows: Sequence[tuple[Question, bool]]) -> float:
    return round(100 * mean(c for _, c in rows), 2) if rows else float("nan")


def _overlap(rows: Sequence[tuple[Question, str]], bleu_tokenize: str, spec: BertScoreSpec | None) -> dict[str, Any]:
    scores = text_overlap([task2_answer(o) for _, o in rows], [q.reference or "" for q, _ in rows],
                          bleu_tokenize=bleu_tokenize, bertscore=spec)
    return {**{k: round(v, 2) for k, v in scores.items()}, "n": len(rows)}


def task2_metrics(rows: Sequence[tuple[Question, str]], bleu_tokenize: str,
                  bertscore: Mapping[str, Any]) -> dict[str, Any]:
    """Pooled scores, then ``tracks`` (recognition / translation) and ``notations``, each corpus-level."""
    spec = BertScoreSpec(**bertscore) if bertscore.get("model") or bertscore.get("lang") else None
    tracks: dict[str, list[tuple[Question, str]]] = {}
    notations: dict[str, list[tuple[Question, str]]] = {}
    for question, output in rows:
        key = question.meta.get("notation_key")
        if key:
            notations.setdefault(key, []).append((question, output))
        if key in TASK2_TRACKS:
            tracks.setdefault(TASK2_TRACKS[key], []).append((question, output))
    return {**_overlap(rows, bleu_tokenize, spec),
            "tracks": {name: _overlap(group, bleu_tokenize, spec) for name, group in sorted(tracks.items())},
            "notations": {name: _overlap(group, bleu_tokenize, spec) for name, group in sorted(notations.items())}}


def boyaeval_metrics(records: Sequence[Any], questions: Mapping[str, Question], bleu_tokenize: str,
                     bertscore: Mapping[str, Any]) -> dict[str, Any]:
    by_task: dict[int, list[tuple[Question, str]]] = {}
    for record in records:
        question = questions[record.question_id]
        by_task.setdefault(question.level, []).append((question, record.raw_output or ""))
    result: dict[str, Any] = {"tasks": {}}
    for task, rows in sorted(by_task.items()):
        if task == 2:
            result["tasks"]["task2"] = task2_metrics(rows, bleu_tokenize, bertscore)
            continue
        picks = [(q, extract_choice(o, q.meta["option_labels"], () if task == 3 else q.choices)) for q, o in rows]
        judged = [(q, pick == q.reference) for q, pick in picks]
        notations: dict[str, list[tuple[Question, bool]]] = {}
        for q, correct in judged:
            if q.meta.get("notation"):
                notations.setdefault(str(q.meta["notation"]), []).append((q, correct))
        result["tasks"][f"task{task}"] = {"accuracy": _accuracy(judged), "n": len(rows),
                                          "n_unparseable": sum(p is None for _, p in picks),
                                          "notations": {k: _accuracy(v) for k, v in sorted(notations.items())}}
    return result
