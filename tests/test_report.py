"""The results report: paired tests against hand-computed / reference values, and the report built from run
dirs whose metrics come from the evaluation's own metric code."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image
from scipy import stats

from scoreqa.evaluation.report import level_metrics
from scoreqa.evaluation.scoring import QuestionRecord
from scoreqa.report.__main__ import main as report_main
from scoreqa.report.paired import paired_comparison
from scoreqa.report.runs import find_run_dirs, load_run


def correctness(pattern: str) -> dict[str, bool]:
    return {f"q{i}": c == "1" for i, c in enumerate(pattern)}


def test_mcnemar_exact_matches_the_binomial_by_hand():
    # 4 both right, A alone right on 1, B alone on 5, 2 both wrong: p = 2 * P(X <= 1 | n=6, 1/2) = 2 * 7/64
    a = correctness("1111" + "1" + "00000" + "00")
    b = correctness("1111" + "0" + "11111" + "00")
    c = paired_comparison(a, b, n_resamples=2000)
    assert (c.n, c.both_correct, c.only_a, c.only_b, c.both_wrong) == (12, 4, 1, 5, 2)
    assert c.mcnemar_exact and c.mcnemar_p == pytest.approx(14 / 64)
    assert c.difference == pytest.approx(4 / 12) and not c.significant


def test_mcnemar_chi_square_with_continuity_correction_by_hand():
    a = {f"q{i}": i % 2 == 0 for i in range(100)}
    b = {f"q{i}": i % 3 == 0 for i in range(100)}
    c = paired_comparison(a, b, n_resamples=2000)
    assert (c.only_a, c.only_b) == (33, 17) and not c.mcnemar_exact
    assert c.mcnemar_statistic == pytest.approx((abs(33 - 17) - 1) ** 2 / 50)
    assert c.mcnemar_p == pytest.approx(stats.chi2.sf(4.5, df=1))


def test_paired_bootstrap_interval_agrees_with_a_plain_numpy_bootstrap():
    rng = np.random.default_rng(1)
    x = rng.random(300) < 0.45
    y = np.where(rng.random(300) < 0.8, x, rng.random(300) < 0.6)
    a, b = ({f"q{i}": bool(v) for i, v in enumerate(arr)} for arr in (x, y))
    ours = paired_comparison(a, b, n_resamples=20_000, seed=3).difference_ci
    order = sorted(a)  # paired_comparison aligns questions by sorted id
    xs = np.array([a[q] for q in order], dtype=float)
    ys = np.array([b[q] for q in order], dtype=float)
    idx = np.random.default_rng(7).integers(0, len(xs), size=(20_000, len(xs)))
    reference = np.percentile(ys[idx].mean(axis=1) - xs[idx].mean(axis=1), [2.5, 97.5])
    assert ours == pytest.approx(tuple(reference), abs=0.006)


def test_identical_runs_have_no_difference():
    a = correctness("1100101")
    c = paired_comparison(a, dict(a))
    assert c.mcnemar_p == 1.0 and c.difference_ci == (0.0, 0.0) and not c.significant


def test_runs_without_common_questions_are_refused():
    with pytest.raises(ValueError, match="share no judged question"):
        paired_comparison({"a": True}, {"b": True})


def write_run(path: Path, *, model: str, prompt: str = "single", adapter: str | None = None, modality: str = "abc",
              correct: list[bool]) -> Path:
    """A run dir as evaluate.py writes it: 4 scores x 12 questions, metrics from the evaluation's metric code."""
    records = [QuestionRecord(f"s{i // 12}:L{(i % 12) // 3 + 1}.{i % 3 + 1}", f"s{i // 12}", (i % 12) // 3 + 1,
                              "q", "ref", "out", "pred", correct=bool(c), decided_by="exact")
               for i, c in enumerate(correct)]
    path.mkdir(parents=True)
    metrics = {**level_metrics(records, bootstrap_resamples=500), "n_questions": len(records),
               "n_judged": len(records), "n_new_generations": 0, "run_key": f"key-{path.name}"}
    (path / "metrics.json").write_text(json.dumps(metrics))
    (path / "config.yaml").write_text(yaml.safe_dump({
        "data": {"name": "msu", "split": "all", "limit": None}, "model": {"name": model, "adapter": adapter},
        "modality": {"name": modality}, "prompt": {"name": prompt}, "sampling": {"name": "paper"},
        "judge": {"_target_": "scoreqa.judge.exact.ExactMatchJudge"}}))
    (path / "records.jsonl").write_text("".join(json.dumps(r.as_dict()) + "\n" for r in records))
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(0)
    base = rng.random(48) < 0.35
    write_run(root / "single", model="gemini-2.5-pro", correct=list(base))
    write_run(root / "batched", model="gemini-2.5-pro", prompt="batched", correct=list(base & (rng.random(48) < 0.7)))
    write_run(root / "zero-shot", model="qwen3-4b", correct=[False] * 40 + [True] * 8)
    write_run(root / "lora", model="qwen3-4b", adapter="/adapters/qwen3-4b", correct=[True] * 30 + [False] * 18)
    (root / "lora" / "shard-0").mkdir()
    (root / "lora" / "shard-0" / "metrics.json").write_text("{}")  # a shard below a run dir is not a run
    out = tmp_path_factory.mktemp("report")
    assert report_main([str(root), "-o", str(out), "--resamples", "2000"]) == 0
    return root, out, (out / "report.md").read_text()


def test_report_tables_hold_each_runs_numbers(report):
    root, _, text = report
    single = load_run(root / "single")
    row = next(line for line in text.splitlines() if line.startswith("| gemini-2.5-pro · msu/abc · single |")
               and "[" in line)
    overall, (lo, hi) = single.metrics["accuracy"]["overall"], single.metrics["accuracy_ci95"]["overall"]
    assert row.rstrip(" |").endswith(f"{overall:.2f} [{lo:.2f}, {hi:.2f}]")
    assert "## Level-wise success rate" in text and "## Single vs batched prompting" in text
    assert "## Zero-shot vs LoRA" in text and "qwen3-4b+LoRA · msu/abc · single" in text


def test_report_puts_the_paper_number_beside_ours(report):
    # the batched run of gemini-2.5-pro on all scores (ABC) reproduces MSU Table 2's "Gemini 2.5 Pro" row
    root, out, text = report
    overall = load_run(root / "batched").metrics["accuracy"]["overall"]
    row = next(line for line in text.splitlines() if line.startswith(
        "| gemini-2.5-pro · msu/abc · batched | Textual QA · Gemini 2.5 Pro | same model | overall | 49.44 |"))
    assert f"| {overall - 49.44:.2f} |" in row
    assert (out / "paper_msu_table2.png").exists()


def test_report_tests_the_lora_gain_and_finds_it_significant(report):
    _, _, text = report
    row = next(line for line in text.splitlines()
               if line.startswith("| qwen3-4b · msu/abc · single | qwen3-4b+LoRA · msu/abc · single |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2:5] == ["48", "16.67", "62.50"]
    assert cells[6] == "8 / 30"  # 8 right only zero-shot (questions 40-47), 30 only with LoRA (0-29)
    # 38 discordant pairs: chi-square with continuity correction, p ~ 7e-4
    assert float(cells[7]) == pytest.approx(stats.chi2.sf((abs(30 - 8) - 1) ** 2 / 38, df=1), abs=1e-4)
    assert cells[8] == "yes"


def test_report_figures_are_real_images_and_the_html_has_the_tables(report):
    _, out, _ = report
    for name in ("accuracy_by_level.png", "lsr.png", "single_vs_batched.png", "zero_shot_vs_lora.png"):
        image = np.asarray(Image.open(out / name).convert("L"), dtype=float)
        assert image.shape[0] > 300 and image.shape[1] > 500 and image.std() > 10  # drawn, not blank
    html = (out / "report.html").read_text()
    assert html.count("<table>") >= 5 and '<img src="lsr.png"' in html


def test_find_run_dirs_skips_shards_and_hidden_folders(tmp_path):
    for sub in ("a", "b/merged", "b/shard-0", ".submitit/1"):
        (tmp_path / sub).mkdir(parents=True)
        (tmp_path / sub / "metrics.json").write_text("{}")
    assert find_run_dirs([tmp_path]) == [tmp_path / "a", tmp_path / "b" / "merged"]
    with pytest.raises(FileNotFoundError, match="not a finished run dir"):
        load_run(tmp_path / "b")
