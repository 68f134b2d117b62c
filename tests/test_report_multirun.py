"""Done-when of the cluster issue: a submitit_local multirun of two tiny evaluations completes, and the report
command turns their run dirs into a report with its plots."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parents[1]


def test_submitit_local_multirun_then_report(tmp_path, cache_dir, tiny_qwen3):
    sweep = tmp_path / "sweep"
    subprocess.run([sys.executable, "evaluate.py", "-m", "hydra/launcher=submitit_local", "data=msu", "modality=title",
                    "data.limit=1", "model=tiny-qwen3", "sampling=paper", "judge=exact",
                    "prompt=single,batched", "logger=none", "sampling.max_new_tokens=16", "bootstrap_resamples=500",
                    f"hydra.sweep.dir={sweep}"], cwd=REPO, check=True, capture_output=True, text=True, timeout=600)
    runs = sorted((p.parent for p in sweep.glob("**/metrics.json")), key=lambda p: "batched" in p.name)
    # a cell's folder is its identity (scoreqa.config.run_variant), so a rerun of the sweep resumes in place
    assert [p.relative_to(sweep).parent.as_posix() for p in runs] == ["msu/tiny-qwen3"] * 2
    assert [p.name.rsplit("-", 1)[0] for p in runs] == ["title-single-paper-exactmatch-limit1",
                                                       "title-batched-paper-exactmatch-limit1"]
    metrics = [json.loads((p / "metrics.json").read_text()) for p in runs]
    assert [m["n_questions"] for m in metrics] == [12, 12]
    assert [m["n_new_generations"] for m in metrics] == [12, 1]  # one request per question / per score
    assert list(sweep.glob(".submitit/*/*_result.pkl"))  # each cell ran as a submitit job

    out = tmp_path / "report"
    subprocess.run([sys.executable, "-m", "scoreqa.report", str(sweep), "-o", str(out), "--resamples", "1000"],
                   cwd=REPO, check=True, capture_output=True, text=True)
    text = (out / "report.md").read_text()
    assert "## Single vs batched prompting" in text
    single, batched = "tiny-qwen3 · msu/title · single", "tiny-qwen3 · msu/title · batched"
    row = next(line for line in text.splitlines()  # runs are ordered by folder name ("title-batched-…" first)
               if line.startswith((f"| {single} | {batched} |", f"| {batched} | {single} |")))
    assert row.split("|")[3].strip() == str(metrics[0]["n_judged"])  # paired over the same judged questions
    # title-only runs on the test split meet MSU Table 4's setting: placed against its best row (no tiny-qwen3 row)
    assert "| tiny-qwen3 · msu/title · single | Qwen3-4B | paper's best | level_2 | 30.00 |" in text
    for name in ("accuracy_by_level.png", "lsr.png", "single_vs_batched.png", "paper_msu_table4.png"):
        image = np.asarray(Image.open(out / name).convert("L"), dtype=float)
        assert image.std() > 10, name
    assert (out / "report.html").read_text().count("<img") == 4
