"""Every benchmark end to end with the default W&B logger (offline), as a user runs it: CI sees what users see.

The W&B logger once crashed every non-MSU benchmark (KeyError: 'accuracy') and CI never saw it because the
suite ran with WANDB_MODE=disabled. Here each benchmark runs with ``logger=wandb`` in offline mode, and the
offline run must hold the same headline as ``metrics.json``.
"""

from __future__ import annotations

import json

import pytest

from scoreqa.evaluation.entry import evaluate
from scoreqa.testing.wandb_offline import offline_run_files, summary_value
from test_baselines_reconstruction import corpus  # noqa: F401,F811 (fixture: two Bach chorales, one page each)
from test_boyaeval import write_release as write_boyaeval
from test_mmlu import PICKED, fixture_root  # noqa: F401 (fixture: the cais/mmlu layout)
from test_wildscore import write_release as write_wildscore


@pytest.fixture(scope="module")
def wildscore_release(tmp_path_factory):
    return write_wildscore(tmp_path_factory.mktemp("WildScore"), n_items=12)


@pytest.fixture(scope="module")
def boyaeval_release(tmp_path_factory):
    return write_boyaeval(tmp_path_factory.mktemp("BoYaEval"))


@pytest.fixture()
def offline_wandb(monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "offline")  # the conftest disables W&B; users get offline


def run(compose, run_dir, overrides):
    metrics = evaluate(compose("evaluate", [*overrides, "logger=wandb", "bootstrap_resamples=100"]), run_dir)
    written = json.loads((run_dir / "metrics.json").read_text())
    files = offline_run_files(run_dir)
    assert len(files) == 1, "no offline W&B run in the run folder"
    assert json.loads(summary_value(files[0], "headline/value")) == written["headline"]["value"]
    assert summary_value(files[0], "complete") == json.dumps(written["complete"])
    for group in written["groups"]:
        assert f"score_by_{group}".encode() in files[0].read_bytes(), f"no bar chart of {group}"
    return metrics, written


def test_msu_title(compose, data_root, tmp_path, offline_wandb):
    metrics, written = run(compose, tmp_path, ["data=msu", "modality=title", "data.limit=2", "model=oracle",
                                               f"paths.data_root={data_root}"])
    assert written["accuracy"]["overall"] == 100.0 and written["headline"] == {"name": "accuracy", "value": 100.0}
    assert written["complete"] and written["n_questions"] == 24 and set(written["groups"]["level"]) == {
        "level_1", "level_2", "level_3", "level_4"}


def test_corpus(compose, small_corpus, tmp_path, offline_wandb):
    _, written = run(compose, tmp_path, ["data=corpus", f"data.root={small_corpus}", "data.build_limit=5",
                                         "data.split=all", "model=oracle"])
    assert written["complete"] and written["headline"]["value"] == 100.0


def test_abc_eval(compose, tmp_path, offline_wandb, capsys):
    _, written = run(compose, tmp_path, ["data=abc_eval", "model=symbolic", "data.limit=5"])
    out = capsys.readouterr().out
    assert "-- by subtask" in out and "-- by category" in out and "Bar_Sequencing" in out
    assert written["complete"] and len(written["groups"]["subtask"]) == 9 == len(written["subtasks"])
    assert written["headline"]["value"] == written["overall"]


def test_wildscore_fixture(compose, wildscore_release, tmp_path, offline_wandb):
    _, written = run(compose, tmp_path, ["data=wildscore", f"data.root={wildscore_release}", "model=oracle"])
    assert written["complete"] and written["headline"]["value"] == 100.0


def test_boyaeval_fixture(compose, boyaeval_release, tmp_path, offline_wandb):
    _, written = run(compose, tmp_path, ["data=boyaeval", f"data.root={boyaeval_release}", "model=oracle",
                                         "data.tasks=[1,3]"])
    assert written["complete"] and written["headline"] == {"name": "mean_choice_accuracy", "value": 100.0}


def test_reconstruction(compose, corpus, tmp_path, offline_wandb):  # noqa: F811 (the imported fixture)
    _, written = run(compose, tmp_path, ["data=reconstruction", f"data.root={corpus}",
                                         "data.build_limit=2", "data.auto_build=false", "data.max_pages=2",
                                         "model=oracle"])
    assert written["complete"] and written["headline"] == {"name": "pitch_f1", "value": 100.0}


def test_mmlu_fixture(compose, fixture_root, tiny_qwen3, tmp_path, offline_wandb):  # noqa: F811 (imported fixture)
    _, written = run(compose, tmp_path, ["data=mmlu", f"data.root={fixture_root}",
                                         f"data.subjects=[{','.join(PICKED)}]", "data.num_fewshot=0"])
    assert written["complete"] and written["n_questions"] == 4 * len(PICKED)
    assert written["headline"]["value"] == written["accuracy"]["overall"]
