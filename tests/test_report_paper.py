"""The paper column of the report: run dirs written as evaluate.py writes them, compared with the published cells
they reproduce (or, for a model the paper did not test, with the table's best and chance), on hand-computed
values."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
import yaml

from scoreqa.evaluation.report import level_metrics
from scoreqa.evaluation.scoring import QuestionRecord
from scoreqa.metrics.ranking import sequencing_score
from scoreqa.report.__main__ import main as report_main
from scoreqa.report.compare import CHANCE, PAPER_BEST, SAME_MODEL, comparisons
from scoreqa.report.paper import load_paper_results
from scoreqa.report.runs import load_run


def _config(data: dict, model: str, modality: str, prompt: str, adapter: str | None = None) -> dict:
    return {"data": data, "model": {"name": model, "adapter": adapter}, "modality": {"name": modality},
            "prompt": {"name": prompt}, "sampling": {"name": "paper"},
            "judge": {"_target_": "scoreqa.judge.exact.ExactMatchJudge"}}


def _counts(records: list[QuestionRecord], name: str) -> dict:
    """The counters evaluate.py writes beside a benchmark's own metrics in metrics.json."""
    return {"n_questions": len(records), "n_scores": len({r.score_id for r in records}),
            "n_judged": sum(r.correct is not None for r in records), "n_unreferenced": 0,
            "n_parse_failures": sum(r.decided_by == "parse_failure" for r in records), "n_generation_failures": 0,
            "n_undecided": 0, "n_skipped_scores": 0, "n_new_generations": 0, "run_key": f"key-{name}"}


def _write(path: Path, metrics: dict, config: dict, records: list[QuestionRecord]) -> Path:
    path.mkdir(parents=True)
    (path / "metrics.json").write_text(json.dumps(metrics))
    (path / "config.yaml").write_text(yaml.safe_dump(config))
    (path / "records.jsonl").write_text("".join(json.dumps(r.as_dict()) + "\n" for r in records))
    return path


def msu_run(path: Path, *, model: str, split: str = "all", prompt: str = "batched") -> Path:
    """4 scores x 12 questions, every level-1 and level-2 question right, every level-3 and level-4 one wrong:
    accuracy 100 / 100 / 0 / 0, overall 50."""
    records = [QuestionRecord(f"s{i // 12}:L{(i % 12) // 3 + 1}.{i % 3 + 1}", f"s{i // 12}", (i % 12) // 3 + 1,
                              "q", "ref", "out", "pred", correct=(i % 12) // 3 + 1 <= 2, decided_by="exact")
               for i in range(48)]
    metrics = {**level_metrics(records, bootstrap_resamples=1000), **_counts(records, path.name)}
    return _write(path, metrics, _config({"name": "msu", "split": split, "limit": None}, model, "abc", prompt),
                  records)


def abc_eval_run(path: Path, *, model: str, adapter: str | None = None) -> Path:
    """Two subtasks: Bar Count Estimation 90 (5 of 100 answers unparseable) and Metadata QA 100 (60 of 60)."""
    records = [QuestionRecord(f"bc{i}", f"bc{i}", 0, "q", "8", "8", "8", correct=i < 90,
                              decided_by="exact" if i < 95 else "parse_failure") for i in range(100)]
    records += [QuestionRecord(f"mq{i}", f"mq{i}", 0, "q", "0", "0", "0", correct=True, decided_by="exact")
                for i in range(60)]
    scores = {"subtasks": {"Bar_Count_Estimation": 90.0, "Metadata_QA": 100.0},
              "categories": {"basic_syntax": 95.0}, "overall": 95.0,
              "subtask_details": {"Bar_Count_Estimation": {"metric": "accuracy", "n": 100, "n_unparseable": 5,
                                                           "category": "basic_syntax"},
                                  "Metadata_QA": {"metric": "accuracy", "n": 60, "n_unparseable": 0,
                                                  "category": "basic_syntax"}}}
    metrics = {**scores, **_counts(records, path.name)}
    return _write(path, metrics, _config({"name": "abc_eval", "split": "all", "limit": None}, model, "abc", "single",
                                         adapter), records)


def _table(rows, *, run=None, reference=None):
    return {(c.cell.table, c.cell.measure, c.cell.model_label): c for c in rows
            if (run is None or c.run.path.name == run) and (reference is None or c.reference == reference)}


def test_a_run_of_a_published_model_meets_its_cells_with_hand_computed_differences(tmp_path):
    run = load_run(msu_run(tmp_path / "gemini", model="gemini-2.5-pro"))
    assert run.metrics["accuracy"] == {"level_1": 100.0, "level_2": 100.0, "level_3": 0.0, "level_4": 0.0,
                                       "overall": 50.0}
    found = _table(comparisons([run]))
    # Table 2 (5 levels) and Table 3 (overall with the paper's CI) of the textual block; Table 5 has no such row
    assert sorted(found) == sorted([("msu/table2", m, "Gemini 2.5 Pro") for m in
                                    ("level_1", "level_2", "level_3", "level_4", "overall")]
                                   + [("msu/table3", "overall", "Gemini 2.5 Pro")])
    assert all(c.reference == SAME_MODEL and c.cell.group == "Textual QA" for c in found.values())
    level_1, overall = found[("msu/table2", "level_1", "Gemini 2.5 Pro")], found[("msu/table2", "overall",
                                                                                   "Gemini 2.5 Pro")]
    assert level_1.difference == pytest.approx(100 - 65.33) and overall.difference == pytest.approx(50 - 49.44)
    # all 16 level-1 answers right: our bootstrap interval is [100, 100], so the paper's 65.33 lies outside it
    assert level_1.ours_ci == (100.0, 100.0) and level_1.verdict == "paper outside our CI"
    assert overall.verdict == "within"
    table3 = found[("msu/table3", "overall", "Gemini 2.5 Pro")]
    assert table3.cell.ci95 == (47.14, 51.75) and table3.ours_outside_paper_ci is False


def test_outside_the_papers_interval_is_flagged(tmp_path):
    run = load_run(msu_run(tmp_path / "grok", model="grok-4"))
    # Grok 4's Table 3 CI is [40.34, 44.91]: our 50.00 lies above it, and 42.61 inside our (wide) interval
    c = _table(comparisons([run]))[("msu/table3", "overall", "Grok 4")]
    assert c.difference == pytest.approx(50 - 42.61) and c.verdict == "ours outside paper CI"


def test_runs_of_another_split_prompt_or_adapter_meet_nothing(tmp_path):
    runs = [load_run(msu_run(tmp_path / "test-split", model="gemini-2.5-pro", split="test")),
            load_run(msu_run(tmp_path / "single", model="gemini-2.5-pro", prompt="single")),
            load_run(abc_eval_run(tmp_path / "lora", model="gpt-5", adapter="/adapters/x"))]
    assert comparisons(runs) == []


def test_a_published_abc_eval_model_meets_its_column(tmp_path):
    found = _table(comparisons([load_run(abc_eval_run(tmp_path / "gpt5", model="gpt-5"))]))
    # only the measures our run has: two subtasks, their category average and the overall
    assert {k[1]: round(c.difference, 2) for k, c in found.items()} == {
        "Bar Count Estimation": 90 - 93.0, "Metadata QA": 0.0, "Basic Syntax Average": 95 - 96.5,
        "Overall Average": round(95 - 55.02, 2)}
    assert {k[2] for k in found} == {"GPT-5"}
    assert found[("abc_eval/table3", "Bar Count Estimation", "GPT-5")].parsed == (95, 100)
    assert found[("abc_eval/table3", "Basic Syntax Average", "GPT-5")].parsed == (155, 160)


def test_a_baseline_is_placed_against_the_papers_best_and_chance(tmp_path):
    rows = comparisons([load_run(abc_eval_run(tmp_path / "symbolic", model="symbolic"))])
    best, chance = _table(rows, reference=PAPER_BEST), _table(rows, reference=CHANCE)
    assert {k[1]: (k[2], c.cell.value, round(c.difference, 2)) for k, c in best.items()} == {
        "Bar Count Estimation": ("GPT-5-mini", 99.0, -9.0),
        "Metadata QA": ("DeepSeek-chat = GPT-5-mini = GPT-5", 100.0, 0.0),
        "Basic Syntax Average": ("GPT-5-mini", 99.5, -4.5),
        "Overall Average": ("GPT-5", 55.02, round(95 - 55.02, 2))}
    # chance is defined for the four-option subtask only (Bar Count Estimation has none)
    assert {k[1]: (c.cell.value, c.difference) for k, c in chance.items()} == {"Metadata QA": (25.0, 75.0)}


def test_the_bar_sequencing_chance_level_is_the_mean_score_of_a_random_order():
    # every order of 4 bars equally likely: the mapped, completeness-penalised tau averages to the stored 50
    truth = "2031"
    scores = [sequencing_score("".join(p), truth, 4).score for p in itertools.permutations("0123")]
    chance = load_paper_results().tables["abc_eval/table3"].chance["Bar Sequencing (Kendall’s τ)"]
    assert 100 * sum(scores) / len(scores) == pytest.approx(chance)


def test_the_report_shows_the_paper_column_and_a_plot_per_table(tmp_path):
    root = tmp_path / "runs"
    msu_run(root / "gemini", model="gemini-2.5-pro")
    abc_eval_run(root / "symbolic", model="symbolic")
    msu_run(root / "smol", model="smollm2-135m", split="test", prompt="single")
    out = tmp_path / "report"
    assert report_main([str(root), "-o", str(out), "--resamples", "500"]) == 0
    text = (out / "report.md").read_text()
    assert ("| gemini-2.5-pro · msu/abc · batched | Textual QA · Gemini 2.5 Pro | same model | overall | "
            "49.44 [47.14, 51.75] | 50.00 [") in text
    assert "| 0.56 | within | 48/48 |" in text
    assert ("| symbolic · abc_eval/abc · single | chance | chance | Metadata QA | 25.00 | 100.00 – | 75.00 | "
            "no interval | 60/60 |") in text
    assert "No published cell matches: smollm2-135m · msu/abc · single." in text
    assert {p.name for p in out.glob("paper_*.png")} == {"paper_msu_table2.png", "paper_msu_table3.png",
                                                         "paper_abc_eval_table3.png"}


def test_an_incomplete_run_is_flagged_not_passed_off_as_a_reproduction(tmp_path):
    path = abc_eval_run(tmp_path / "gpt5", model="gpt-5")
    metrics = json.loads((path / "metrics.json").read_text())
    (path / "metrics.json").write_text(json.dumps({**metrics, "complete": False}))
    rows = comparisons([load_run(path)])
    assert rows and {c.verdict for c in rows} == {"INCOMPLETE run"}
