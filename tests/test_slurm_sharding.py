"""Sharded array evaluation: shards keep whole scores and the full run key; merging their caches lets the
unsharded run finish with zero new model or judge calls — through the real sbatch scripts on the tiny model."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from scoreqa.cluster.merge import merge_shards
from scoreqa.data.records import BenchmarkSplit, Question, Score
from scoreqa.data.shards import shard_split

REPO = Path(__file__).resolve().parents[1]


def small_split(n_scores: int = 5) -> BenchmarkSplit:
    scores = {f"s{i}": Score(id=f"s{i}", title=f"Piece {i}") for i in range(n_scores)}
    questions = [Question(id=f"s{i}:L{l}.1", score_id=f"s{i}", level=l, text=f"q{i}{l}", reference="x")
                 for i in range(n_scores) for l in (1, 2, 3, 4)]
    return BenchmarkSplit(name="msu", split="test", scores=scores, questions=questions)


def test_shards_partition_the_split_by_whole_scores_round_robin():
    split = small_split(5)
    shards = [shard_split(split, i, 3) for i in range(3)]
    assert [sorted(s.scores) for s in shards] == [["s0", "s3"], ["s1", "s4"], ["s2"]]
    assert sorted(q.id for s in shards for q in s.questions) == sorted(q.id for q in split.questions)
    for shard in shards:
        assert {q.score_id for q in shard.questions} == set(shard.scores)  # a score's questions stay together
        assert shard.version() == split.version()  # so the run key is the unsharded run's
    assert shard_split(split, None, 1) is split and shard_split(split, 0, 1) is split


@pytest.mark.parametrize("index,count", [(3, 3), (-1, 2), (0, 0)])
def test_bad_shard_settings_are_refused(index, count):
    with pytest.raises(ValueError, match="shard.index"):
        shard_split(small_split(), index, count)


def _shard_dir(path: Path, run_key: str, rows: list[dict], finished: bool = True) -> Path:
    path.mkdir(parents=True)
    (path / "predictions.jsonl").write_text("".join(json.dumps({"run_key": run_key, **r}) + "\n" for r in rows))
    if finished:
        (path / "metrics.json").write_text(json.dumps({"run_key": run_key}))
    return path


def test_merge_keeps_one_row_per_key_and_prefers_a_success(tmp_path):
    a = _shard_dir(tmp_path / "a", "k1", [{"key": "q1", "text": "", "error": "timeout"}, {"key": "q2", "text": "B"}])
    b = _shard_dir(tmp_path / "b", "k1", [{"key": "q1", "text": "A", "error": None}])
    counts = merge_shards(tmp_path / "out", [a, b], expect=2)
    rows = {r["key"]: r for r in map(json.loads, (tmp_path / "out" / "predictions.jsonl").read_text().splitlines())}
    assert counts["predictions.jsonl"] == 2 and rows["q1"]["text"] == "A" and rows["q2"]["text"] == "B"


def test_merge_refuses_unfinished_or_mismatched_shards_before_writing(tmp_path):
    a = _shard_dir(tmp_path / "a", "k1", [{"key": "q1", "text": "A"}])
    b = _shard_dir(tmp_path / "b", "k2", [{"key": "q2", "text": "B"}])
    c = _shard_dir(tmp_path / "c", "k1", [{"key": "q3", "text": "C"}], finished=False)
    with pytest.raises(SystemExit, match="different run keys"):
        merge_shards(tmp_path / "out", [a, b])
    with pytest.raises(SystemExit, match="not finished"):
        merge_shards(tmp_path / "out", [a, c])
    with pytest.raises(SystemExit, match="expected 3 shard dirs"):
        merge_shards(tmp_path / "out", [a, c], expect=3)
    assert not (tmp_path / "out").exists()


def test_array_tasks_then_merge_job_make_no_new_call(tmp_path, cache_dir, tiny_qwen3):
    """slurm/eval_array.sbatch for 2 shards, then slurm/eval_merge.sbatch, under simulated SLURM variables."""
    cells = tmp_path / "cells.txt"
    cells.write_text(shlex.join(["data=msu", "modality=title", "data.limit=3", "logger=none", "sampling=greedy", "sampling.max_new_tokens=6",
                                 "bootstrap_resamples=200"]) + "\n")
    env = {**os.environ, "SLURM_SUBMIT_DIR": str(REPO), "SCOREQA_ARRAY_ROOT": str(tmp_path / "array"),
           "CELLS_FILE": str(cells), "NUM_SHARDS": "2", "SLURM_ARRAY_JOB_ID": "77", "ARRAY_JOB_ID": "77"}
    for task in (0, 1):
        subprocess.run(["bash", str(REPO / "slurm" / "eval_array.sbatch")],
                       env={**env, "SLURM_ARRAY_TASK_ID": str(task)}, check=True, capture_output=True, text=True)
    cell = tmp_path / "array" / "77" / "cell-0"
    shard_metrics = [json.loads((cell / f"shard-{s}" / "metrics.json").read_text()) for s in (0, 1)]
    assert [m["n_scores"] for m in shard_metrics] == [2, 1]
    assert shard_metrics[0]["run_key"] == shard_metrics[1]["run_key"]
    merge = subprocess.run(["bash", str(REPO / "slurm" / "eval_merge.sbatch")], env=env, check=True,
                           capture_output=True, text=True)
    assert "made" not in merge.stderr  # the script warns when the merged run had to generate
    merged = json.loads((cell / "merged" / "metrics.json").read_text())
    assert merged["n_new_generations"] == 0 and merged["inference"].get("requests", 0) == 0
    assert merged["run_key"] == shard_metrics[0]["run_key"]
    assert merged["n_scores"] == 3 and merged["n_questions"] == 36
    judged = (cell / "merged" / "judgments.jsonl").read_text().splitlines()
    assert len(judged) == sum(m["n_judged"] for m in shard_metrics)  # no verdict was asked again
    by_question = {}
    for s in (0, 1):
        for line in (cell / f"shard-{s}" / "records.jsonl").read_text().splitlines():
            record = json.loads(line)
            by_question[record["question_id"]] = (record["raw_output"], record["correct"])
    merged_records = [json.loads(line) for line in (cell / "merged" / "records.jsonl").read_text().splitlines()]
    assert {r["question_id"]: (r["raw_output"], r["correct"]) for r in merged_records} == by_question
