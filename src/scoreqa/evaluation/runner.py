"""Run one evaluation: generate what the cache lacks, judge what is unjudged, compute the metrics."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tqdm.auto import tqdm

from scoreqa.backends.base import Backend, ChatRequest, Completion
from scoreqa.data.records import BenchmarkSplit
from scoreqa.evaluation.context_check import screen
from scoreqa.evaluation.jsonl_store import JsonlStore
from scoreqa.evaluation.run_key import run_key
from scoreqa.evaluation.scoring import QuestionRecord, judge_items, parse_completions
from scoreqa.judge.base import Judge
from scoreqa.prompts.builder import PromptBuilder

log = logging.getLogger(__name__)
PREDICTIONS, JUDGMENTS = "predictions.jsonl", "judgments.jsonl"
JUDGMENT_KEYS = ("judge_key", "question_id", "fingerprint", "correct", "decided_by")


@dataclass
class RunOutcome:
    run_key: str
    records: list[QuestionRecord]
    n_new_generations: int
    n_new_judgments: int
    usage: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # the error of every request that failed for good


def _completion_from_row(row: dict[str, Any]) -> Completion:
    return Completion(row["key"], str(row.get("text") or ""), row.get("input_tokens"), row.get("output_tokens"),
                      row.get("seconds"), row.get("error"), bool(row.get("too_long", False)))


def generate_missing(requests: list[ChatRequest], backend: Backend, store: JsonlStore, key: str,
                     too_long: str = "fail", describe: Callable[[ChatRequest], str] = lambda r: r.key
                     ) -> tuple[dict[str, Completion], int]:
    """Cached completions of this run key, plus new ones for the rest (appended batch by batch); requests over
    the context window are screened out first (``context_check``)."""
    cached = {row["key"]: _completion_from_row(row) for row in store.rows() if row.get("run_key") == key}
    pending = [r for r in requests if r.key not in cached or cached[r.key].error]
    pending, over = screen(pending, backend, too_long, describe)
    if over:
        log.warning("%d request(s) exceed the context window and are not sent (data.too_long=skip)", len(over))
        store.append([{"run_key": key, **vars(c)} for c in over])
        cached.update({c.key: c for c in over})
    if not pending:
        return cached, 0
    log.info("%d of %d requests cached; generating %d", len(requests) - len(pending), len(requests), len(pending))
    made = 0
    with tqdm(total=len(pending), desc="generating", unit="request") as bar:
        for batch in backend.generate(pending):
            store.append([{"run_key": key, **vars(c)} for c in batch])
            for completion in batch:
                cached[completion.key] = completion
            made += len(batch)
            bar.update(len(batch))
    return cached, made


def judge_missing(records: list[QuestionRecord], judge: Judge, store: JsonlStore, batch_size: int = 64) -> int:
    """Fill ``correct``/``decided_by`` from cached verdicts, judging (and caching) only new items."""
    judge_key = run_key(judge.identity())
    items = judge_items(records)
    cached = {(row["question_id"], row["fingerprint"]): row for row in store.rows()
              if row.get("judge_key") == judge_key}
    # a judge call that failed (decided_by "...:failed": timeouts, rate limits) is asked again on the next run
    todo = [item for item in items if (item.id, item.fingerprint()) not in cached
            or str(cached[(item.id, item.fingerprint())].get("decided_by", "")).endswith(":failed")]
    with tqdm(total=len(todo), desc="judging", unit="answer", disable=not todo) as bar:
        for start in range(0, len(todo), batch_size):
            batch = todo[start:start + batch_size]
            rows = [{"judge_key": judge_key, "question_id": item.id, "fingerprint": item.fingerprint(),
                     "correct": verdict.correct, "decided_by": verdict.decided_by}
                    for item, verdict in zip(batch, judge.judge(batch))]
            store.append(rows)
            cached.update({(row["question_id"], row["fingerprint"]): row for row in rows})
            bar.update(len(batch))
    by_id = {r.question_id: r for r in records}
    for item in items:
        row = cached[(item.id, item.fingerprint())]
        record = by_id[item.id]
        record.decided_by = row["decided_by"]
        record.undecided = row["correct"] is None
        record.correct = bool(row["correct"])
    return len(todo)


def describe_request(split: BenchmarkSplit) -> Callable[[ChatRequest], str]:
    """"score <id> ('<title>'), question <id>" for a request: what a one-line error names."""
    questions = {q.id: q for q in split.questions}
    titles = {score_id: score.title for score_id, score in split.scores.items()}

    def describe(request: ChatRequest) -> str:
        question = questions.get(request.question_ids[0])
        if question is None:
            return f"request {request.key}"
        return (f"score {question.score_id} ({titles.get(question.score_id, '?')!r}), "
                f"question {', '.join(request.question_ids)}")

    return describe


def run_evaluation(split: BenchmarkSplit, builder: PromptBuilder, backend: Backend, judge: Judge, run_dir: Path,
                   key_parts: dict[str, Any] | None = None, too_long: str = "fail") -> RunOutcome:
    run_dir = Path(run_dir)
    requests = builder.requests(split)
    key = run_key({"data": {"name": split.name, "split": split.split, "version": split.version()},
                   "prompt": builder.identity(), "backend": backend.identity(), **(key_parts or {})})
    began = time.perf_counter()
    completions, n_new = generate_missing(requests, backend,
                                          JsonlStore(run_dir / PREDICTIONS, ("run_key", "key", "text")), key,
                                          too_long, describe_request(split))
    usage = {**backend.usage(), "wall_seconds": round(time.perf_counter() - began, 3)}  # generation, this invocation
    records = parse_completions(split, requests, completions, builder.mode)
    n_judged = judge_missing(records, judge, JsonlStore(run_dir / JUDGMENTS, JUDGMENT_KEYS))
    errors = [completions[r.key].error or "" for r in requests if completions[r.key].error]
    return RunOutcome(key, records, n_new, n_judged, usage, errors)
