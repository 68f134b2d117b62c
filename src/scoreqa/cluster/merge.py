"""Merge the caches of sharded evaluations into one run dir: ``python -m scoreqa.cluster.merge OUT SHARD…``.

Each array task evaluates one shard (``shard.index=i shard.count=n``) into its own run dir, so no
two processes ever append to the same file (appends from several nodes to one file on NFS can
interleave). The merge takes the union of their ``predictions.jsonl`` and ``judgments.jsonl`` rows
(and of any rows already in OUT), one row per cache key, and writes it to OUT. Running
``python evaluate.py <the same overrides> hydra.run.dir=OUT`` afterwards finds every answer and
verdict cached (a shard's run key is the unsharded run's, see :mod:`scoreqa.data.shards`), makes no
model or judge call, and computes the metrics over the whole split.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from scoreqa.evaluation.jsonl_store import JsonlStore
from scoreqa.evaluation.runner import JUDGMENTS, PREDICTIONS


def _prediction_key(row: dict[str, Any]) -> tuple:
    return row.get("run_key"), row.get("key")


def _judgment_key(row: dict[str, Any]) -> tuple:
    return row.get("judge_key"), row.get("question_id"), row.get("fingerprint")


def _union(files: Iterable[Path], key: Callable[[dict[str, Any]], tuple]) -> list[dict[str, Any]]:
    """One row per key; a row without an error replaces a failed one, never the reverse."""
    merged: dict[tuple, dict[str, Any]] = {}
    for path in files:
        for row in JsonlStore(path).rows():
            k = key(row)
            if k not in merged or (merged[k].get("error") and not row.get("error")):
                merged[k] = row
    return list(merged.values())


def _write_atomically(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".merging")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def shard_run_keys(shard_dirs: Sequence[Path]) -> dict[Path, str | None]:
    """The run key each shard reported in its ``metrics.json`` (None: the shard did not finish)."""
    keys: dict[Path, str | None] = {}
    for shard in shard_dirs:
        metrics = Path(shard) / "metrics.json"
        keys[Path(shard)] = json.loads(metrics.read_text()).get("run_key") if metrics.exists() else None
    return keys


def merge_shards(out_dir: Path, shard_dirs: Sequence[Path], expect: int | None = None) -> dict[str, Any]:
    """Write the union of the shards' caches to ``out_dir``; returns counts for the log.

    Refuses (before writing anything) when a shard has not finished, when fewer than ``expect``
    shard dirs are given, or when the shards report different run keys (their configs differ, so
    their rows could never serve one run).
    """
    out_dir, shard_dirs = Path(out_dir), [Path(s) for s in shard_dirs]
    if expect is not None and len(shard_dirs) != expect:
        raise SystemExit(f"expected {expect} shard dirs, got {len(shard_dirs)}: {[str(s) for s in shard_dirs]}")
    keys = shard_run_keys(shard_dirs)
    unfinished = [str(s) for s, k in keys.items() if k is None]
    if unfinished:
        raise SystemExit(f"shard(s) without metrics.json (not finished): {unfinished}. Re-run them (their cache "
                         f"resumes), e.g. sbatch --array=<task ids> slurm/eval_array.sbatch …, then merge again.")
    distinct = sorted(set(keys.values()))
    if len(distinct) > 1:
        by_key = {k: [str(s) for s, v in keys.items() if v == k] for k in distinct}
        raise SystemExit(f"shards report different run keys {by_key}: they were run with different settings "
                         f"(model, data, prompt, sampling…) and cannot be merged into one run")
    out_dir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, Any] = {"run_key": distinct[0] if distinct else None, "shards": len(shard_dirs)}
    for name, key in ((PREDICTIONS, _prediction_key), (JUDGMENTS, _judgment_key)):
        rows = _union([out_dir / name, *(s / name for s in shard_dirs)], key)
        _write_atomically(out_dir / name, rows)
        counts[name] = len(rows)
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoreqa.cluster.merge", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the merged run dir (the unsharded run's hydra.run.dir)")
    parser.add_argument("shards", type=Path, nargs="+", help="the shard run dirs")
    parser.add_argument("--expect", type=int, default=None, help="fail unless exactly this many shard dirs")
    args = parser.parse_args(argv)
    counts = merge_shards(args.out, args.shards, expect=args.expect)
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
