"""``python -m scoreqa.judge --input pairs.jsonl --output verdicts.jsonl [judge=rules] [hydra overrides]``.

The default judge is ``rules`` (no model, no key). Input rows need ``question``, ``reference`` and ``prediction``
as strings (an ``id`` is optional; a null or non-string field is an error naming file:line); output rows are
the same plus ``verdict`` (1, 0 or null), ``decided_by``, the judge key and, from an ensemble, each
judge's vote. Rows are appended batch by batch, so a killed run loses at most one batch, and a rerun
skips every pair already judged by the same judge (except failed judge calls, which are asked again).
``--human-labels`` (rows with ``label`` and the same ``id`` or texts) adds agreement statistics, written
beside the output as ``*.agreement.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from scoreqa.evaluation.jsonl_store import JsonlStore
from scoreqa.evaluation.run_key import run_key
from scoreqa.judge.base import Judge, JudgeItem, Verdict


JUDGES_HELP = """judges (the last argument, a Hydra override; default: judge=rules):
  judge=rules                 music-aware rules only: no model, no key; undecided pairs get verdict null
  judge=cascade               rules first, the paper's three LLM judges for the rest (the documented real-run
                              judge); needs OPENAI_API_KEY, ANTHROPIC_API_KEY and GEMINI_API_KEY
  judge=llm_ensemble          the paper's judges alone: GPT-5, Claude Sonnet 4, Gemini 2.5 Pro (same three keys)
  judge=llm_ensemble_cheap    GPT-4o, Gemini 2.0 Flash, Claude Sonnet 4.5 (same three keys)
  judge=llm_ensemble_local    three open models behind vLLM servers (VLLM_BASE_URL, _B, _C; no keys)
  judge=llm_ensemble_smollm2  three local SmolLM2-135M judges on the CPU (pipeline check; no keys)
  judge=exact                 normalised exact match (no key)
  judge=cascade_cheap, judge=cascade_local   rules first, then the cheap or the local ensemble"""
_FIELDS = ("question", "reference", "prediction")


def _read_pairs(path: Path) -> list[JudgeItem]:
    items, seen = [], set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise SystemExit(f"{path}:{number}: not JSON ({error}); fix the line and rerun (done work is kept)")
        bad = [f for f in _FIELDS if not isinstance(row, dict) or not isinstance(row.get(f), str)]
        if bad:
            raise SystemExit(f"{path}:{number}: {', '.join(bad)} must be a string (got "
                             f"{', '.join(repr(row.get(f)) if isinstance(row, dict) else 'no object' for f in bad)}); "
                             f"fix the line and rerun (done work is kept)")
        item = JudgeItem(str(row.get("id", number)), row["question"], row["reference"], row["prediction"])
        if item.id in seen:
            raise SystemExit(f"{path}:{number}: id {item.id!r} appears twice; ids must be unique")
        seen.add(item.id)
        items.append(item)
    return items


def compose_judge(overrides: Sequence[str], rules_only: bool) -> tuple[Judge, dict[str, Any]]:
    """The judge that ``conf/evaluate.yaml`` + overrides describe (default ``judge=rules``: starts without keys)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    from scoreqa.config import REPO_ROOT, redact, register_resolvers

    register_resolvers()
    if rules_only:
        overrides = [o for o in overrides if not o.startswith("judge")] + ["judge=rules"]
    elif not any(o.startswith("judge=") for o in overrides):
        overrides = ["judge=rules", *overrides]
    conf_dir = Path(os.environ.get("SCOREQA_ROOT", REPO_ROOT)) / "conf"
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(conf_dir), version_base="1.3"):
        cfg = compose(config_name="evaluate", overrides=overrides)
    return instantiate(cfg.judge, _convert_="all"), redact(OmegaConf.to_container(cfg.judge, resolve=True))


def _row(item: JudgeItem, verdict: Verdict, judge_key: str) -> dict[str, Any]:
    row = {"id": item.id, "question": item.question, "reference": item.reference, "prediction": item.prediction,
           "verdict": None if verdict.correct is None else int(verdict.correct), "decided_by": verdict.decided_by,
           "judge_key": judge_key, "fingerprint": item.fingerprint()}
    votes = getattr(verdict, "votes", None)
    if votes:
        row["votes"] = {name: None if v is None else int(v) for name, v in votes.items()}
    return row


def judge_file(items: list[JudgeItem], judge: Judge, store: JsonlStore, batch_size: int = 32) -> list[dict]:
    """Judge what the output lacks (for this judge), appending per batch; returns this judge's rows in input order."""
    judge_key = run_key(judge.identity())
    done = {(row.get("id"), row.get("fingerprint")): row for row in store.rows() if row.get("judge_key") == judge_key}
    todo = [item for item in items if (item.id, item.fingerprint()) not in done     # failed calls are retried
            or str(done[(item.id, item.fingerprint())]["decided_by"]).endswith(":failed")]
    for start in range(0, len(todo), batch_size):
        batch = todo[start:start + batch_size]
        rows = [_row(item, verdict, judge_key) for item, verdict in zip(batch, judge.judge(batch))]
        store.append(rows)
        done.update({(row["id"], row["fingerprint"]): row for row in rows})
        print(f"judged {min(start + batch_size, len(todo))}/{len(todo)}", file=sys.stderr)
    return [done[(item.id, item.fingerprint())] for item in items]


def summarise(rows: list[dict]) -> dict[str, Any]:
    """Counts of who decided: rules, LLM judges, nobody; plus verdict counts per decider."""
    by = Counter(row["decided_by"] for row in rows)
    decided = [row for row in rows if row["verdict"] is not None]
    return {"n": len(rows),
            "decided_by_rules": sum(r["decided_by"].startswith("rules:") for r in decided),
            "decided_by_llm": sum(r["decided_by"].startswith("llm") for r in decided),
            "undecided": len(rows) - len(decided),
            "correct": sum(r["verdict"] == 1 for r in decided), "incorrect": sum(r["verdict"] == 0 for r in decided),
            "judged_by": dict(sorted(by.items()))}


def human_agreement(rows: list[dict], labels_path: Path, n_resamples: int = 10_000) -> dict[str, Any]:
    """Agreement of decided verdicts with human labels; Fleiss' κ over the ensemble's judges and the human."""
    from scoreqa.metrics.agreement import agreement_report, fleiss

    labels: dict[Any, int] = {}
    for number, line in enumerate(labels_path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            row = json.loads(line)
            if "label" not in row:
                raise SystemExit(f"{labels_path}:{number}: a human label row needs 'label' (1/0 or true/false)")
            item = JudgeItem("", str(row.get("question")), str(row.get("reference")), str(row.get("prediction")))
            labels[str(row["id"]) if "id" in row else item.fingerprint()] = int(bool(row["label"]))
    matched = [(row, labels.get(row["id"], labels.get(row["fingerprint"]))) for row in rows]
    pairs = [(row, label) for row, label in matched if label is not None and row["verdict"] is not None]
    report = {"n_labelled": sum(label is not None for _, label in matched), "n_compared": len(pairs)}
    if pairs:
        report.update(agreement_report([r["verdict"] for r, _ in pairs], [label for _, label in pairs],
                                       n_resamples=n_resamples))
    voted = [(r, label) for r, label in pairs if r.get("votes") and None not in r["votes"].values()]
    if voted:
        report["fleiss_kappa_judges_and_human"] = fleiss([[*r["votes"].values(), label] for r, label in voted])
        report["n_fleiss"] = len(voted)
    return report


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m scoreqa.judge", description=__doc__.split("\n\n")[0],
                                     epilog=JUDGES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", required=True, type=Path, help="JSONL with question, reference, prediction")
    parser.add_argument("--output", required=True, type=Path, help="JSONL of verdicts (appended, resumable)")
    parser.add_argument("--rules-only", action="store_true", help="the rule judge alone (judge=rules)")
    parser.add_argument("--human-labels", type=Path, help="JSONL with id (or the texts) and label")
    parser.add_argument("--batch-size", type=int, default=32)
    args, overrides = parser.parse_known_args(argv)
    if not args.input.exists():
        raise SystemExit(f"--input {args.input} does not exist")
    judge, config = compose_judge(overrides, args.rules_only)
    rows = judge_file(_read_pairs(args.input), judge, JsonlStore(args.output), args.batch_size)
    summary = {"judge": config.get("_target_"), **summarise(rows)}
    failures = getattr(judge, "failures", [])
    if failures:
        summary["judge_failures"] = len(failures)
    if args.human_labels:
        summary["agreement"] = human_agreement(rows, args.human_labels)
        args.output.with_suffix(".agreement.json").write_text(json.dumps(summary["agreement"], indent=2))
    print(f"{summary['n']} pairs: decided by rules {summary['decided_by_rules']}, by LLM judges "
          f"{summary['decided_by_llm']}, undecided {summary['undecided']} "
          f"(correct {summary['correct']}, incorrect {summary['incorrect']})")
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return summary
