"""BoYaEval's metrics: Task 1 and Task 3 accuracy (option letters, never guessed), Task 2 BLEU-4,
chrF and BERTScore-F1, each overall and per notation system where the release names it."""

from __future__ import annotations

from statistics import mean
from typing import Any, Mapping, Sequence

from scoreqa.data.records import Question
from scoreqa.metrics.choices import extract_choice
from scoreqa.metrics.text_overlap import BertScoreSpec, text_overlap
from scoreqa.prompts.answers import strip_thinking


def _accuracy(rows: Sequence[tuple[Question, bool]]) -> float:
    return round(100 * mean(c for _, c in rows), 2) if rows else float("nan")


def boyaeval_metrics(records: Sequence[Any], questions: Mapping[str, Question], bleu_tokenize: str,
                     bertscore: Mapping[str, Any]) -> dict[str, Any]:
    by_task: dict[int, list[tuple[Question, str]]] = {}
    for record in records:
        question = questions[record.question_id]
        by_task.setdefault(question.level, []).append((question, record.raw_output or ""))
    result: dict[str, Any] = {"tasks": {}}
    for task, rows in sorted(by_task.items()):
        if task == 2:
            spec = BertScoreSpec(**bertscore) if bertscore.get("model") or bertscore.get("lang") else None
            scores = text_overlap([strip_thinking(o) for _, o in rows], [q.reference or "" for q, _ in rows],
                                  bleu_tokenize=bleu_tokenize, bertscore=spec)
            result["tasks"]["task2"] = {**{k: round(v, 2) for k, v in scores.items()}, "n": len(rows)}
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
