"""The guards of issue 15 that need no model: run-folder lock, folder identity, input validation, redaction."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from scoreqa.config import redact, run_variant, scrub
from scoreqa.data.benchmark import check_limit
from scoreqa.data.msu import MSUBench
from scoreqa.data.split import select_split
from scoreqa.evaluation.entry import scrub_hydra_dir
from scoreqa.evaluation.run_lock import RunFolderBusy, run_folder_lock
from scoreqa.models.tiny import build_tiny_model

REPO = Path(__file__).resolve().parents[1]


def test_a_second_run_into_a_locked_folder_is_refused_naming_the_holder(tmp_path):
    with run_folder_lock(tmp_path):
        with pytest.raises(RunFolderBusy, match=rf"in use by PID {os.getpid()} \(started 20\d\d-"):
            with run_folder_lock(tmp_path):
                pass
    with run_folder_lock(tmp_path):  # released: the next run gets it
        pass


def test_the_lock_holds_across_processes(tmp_path):
    code = ("import sys; from scoreqa.evaluation.run_lock import run_folder_lock, RunFolderBusy\n"
            f"try:\n  run_folder_lock({str(tmp_path)!r}).__enter__()\nexcept RunFolderBusy as e:\n  print(e)")
    with run_folder_lock(tmp_path):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO / "src")}).stdout
    assert f"in use by PID {os.getpid()}" in out


def test_variants_get_their_own_folder_and_the_same_settings_the_same_one():
    sampling, judge = {"name": "paper", "temperature": 0.95}, {"_target_": "scoreqa.judge.exact.ExactMatchJudge"}
    data = {"name": "msu", "limit": None, "split": "test"}
    base = run_variant("abc-single", None, sampling, judge, data)
    assert base == run_variant("abc-single", None, dict(sampling), dict(judge), dict(data))
    assert base.startswith("abc-single-paper-exactmatch-")
    others = [run_variant("abc-single", "/ckpt/adapter", sampling, judge, data),
              run_variant("abc-single", None, {**sampling, "temperature": 0.5}, judge, data),
              run_variant("abc-single", None, sampling, {"_target_": "scoreqa.judge.rules.RuleJudge"}, data),
              run_variant("abc-single", None, sampling, judge, {**data, "limit": 5})]
    assert len({base, *others}) == 5
    assert others[0].startswith("abc-single-lora-adapter-") and "-limit5-" in others[3]
    assert run_variant("title-single", None, None, None, data) == "title-single"  # train.py keeps its stem


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3", True])
def test_limit_must_be_a_positive_integer_or_null(bad):
    with pytest.raises(ValueError, match=r"data.limit must be an integer >= 1, or null"):
        check_limit(bad)
    assert check_limit(None) is None and check_limit(3) == 3


def test_a_tiny_model_is_never_built_outside_the_cache(tmp_path, cache_dir, monkeypatch):
    monkeypatch.delenv("SCOREQA_TINY_ANYWHERE", raising=False)
    with pytest.raises(ValueError, match=r"model.name_or_path=.*typo is outside the cache"):
        build_tiny_model("qwen3", tmp_path / "typo")
    assert not (tmp_path / "typo").exists()


def _score_dir(tmp_path: Path, data_root: Path, bad_inside: bool) -> tuple[Path, str]:
    _, questions = MSUBench(tables_dir=str(data_root / "msu"), split="all").read_all()
    order = list(dict.fromkeys(q.score_id for q in questions))
    test = select_split(order, "test", 0)[:2]
    for score_id in test:
        (tmp_path / f"{score_id}.abc").write_text("X:1\nK:C\nCDEF|\n", encoding="utf-8")
    bad = test[1] if bad_inside else next(s for s in order if s not in test)
    (tmp_path / f"{bad}.abc").write_bytes(b"X:1\nT:Dvo\xf8r\xe1k\nK:C\n")
    return tmp_path, bad


def test_a_non_utf8_score_file_outside_the_split_is_never_read(tmp_path, data_root):
    folder, _ = _score_dir(tmp_path, data_root, bad_inside=False)
    bench = MSUBench(tables_dir=str(data_root / "msu"), score_dir=str(folder), limit=2)
    split = bench.load(["abc"])
    assert len(split.scores) == 2 and all(s.abc.startswith("X:1") for s in split.scores.values())
    assert len(bench.all_score_ids()) == 150  # split.json needs every id, never a score file


def test_a_non_utf8_score_file_in_the_split_is_named_with_its_score(tmp_path, data_root):
    folder, bad = _score_dir(tmp_path, data_root, bad_inside=True)
    with pytest.raises(ValueError, match=rf"{bad}\.abc \(score {bad}\) is not UTF-8 text"):
        MSUBench(tables_dir=str(data_root / "msu"), score_dir=str(folder), limit=2).load(["abc"])


def test_an_xlsx_that_is_not_a_zip_names_its_path(tmp_path):
    for name in ("msu-bench.xlsx", "metadata.xlsx"):
        (tmp_path / name).write_text("<html>404</html>")
    with pytest.raises(ValueError, match=rf"{tmp_path / 'msu-bench.xlsx'} is not a readable .xlsx table"):
        MSUBench(tables_dir=str(tmp_path)).load(["title"])


def test_key_like_strings_are_scrubbed_from_error_texts_and_configs():
    text = "401: Incorrect API key provided: sk-proj-abc123def456. Header: Bearer eyJhbGciOi.x; api_key=hunter22"
    assert scrub(text) == "401: Incorrect API key provided: <redacted>. Header: Bearer <redacted> api_key=<redacted>"
    assert scrub("my key is plainsecretvalue", ["plainsecretvalue"]) == "my key is <redacted>"
    assert redact({"model": {"api_key": "x", "key_env": "OPENAI_API_KEY", "note": "Bearer abcdefgh"}}) == {
        "model": {"api_key": "<redacted>", "key_env": "OPENAI_API_KEY", "note": "Bearer <redacted>"}}


def test_hydra_copies_of_the_config_are_redacted(tmp_path):
    (tmp_path / "config.yaml").write_text(OmegaConf.to_yaml({"model": {"api_key": "sk-live-0123456789"}}))
    (tmp_path / "overrides.yaml").write_text(OmegaConf.to_yaml(["model=gpt-5", "+model.api_key=sk-live-0123456789"]))
    scrub_hydra_dir(tmp_path)
    both = (tmp_path / "config.yaml").read_text() + (tmp_path / "overrides.yaml").read_text()
    assert "0123456789" not in both and "model=gpt-5" in both
    assert json.dumps(OmegaConf.to_container(OmegaConf.load(tmp_path / "overrides.yaml"))) == \
        '["model=gpt-5", "+model.api_key=<redacted>"]'
