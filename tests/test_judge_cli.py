"""Judges from Hydra configs, inside the evaluation runner's verdict cache, and through
``python -m scoreqa.judge`` (resumable, with a summary and agreement statistics)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoreqa.evaluation.jsonl_store import JsonlStore
from scoreqa.evaluation.report import count_outcomes, judged_by
from scoreqa.evaluation.runner import judge_missing
from scoreqa.evaluation.run_key import run_key
from scoreqa.evaluation.scoring import QuestionRecord
from scoreqa.judge.cascade import CascadeJudge
from scoreqa.judge.cli import main
from scoreqa.judge.ensemble import EnsembleJudge
from scoreqa.judge.rules import RuleJudge
from scoreqa.testing.openai_mock import MockOpenAIServer, Reply

KEY_ENV = "SCOREQA_TEST_JUDGE_KEY"
PAIRS = [
    {"id": "a", "question": "What is the initial key?", "reference": "G minor", "prediction": "g minor"},
    {"id": "b", "question": "What is the initial time signature?", "reference": "4/4 time", "prediction": "3/4"},
    {"id": "c", "question": "What is the title of the piece?", "reference": "Gnomus", "prediction": "The Gnome"},
    {"id": "d", "question": "What is the genre of the piece?", "reference": "Sonata", "prediction": "A rondo"},
]


def mock_overrides(server: MockOpenAIServer, prefix: str = "judge.llm.judges") -> list[str]:
    return [f"{prefix}.{name}.model.{key}={value}" for name in ("gpt", "gemini", "claude")
            for key, value in (("base_url", server.base_url), ("api_key_env", KEY_ENV), ("max_retries", 0),
                               ("timeout", 5))]


def verdict_script(request: dict, n: int) -> Reply:
    """'The Gnome' is right for two judges of three; every judge says 'A rondo' is wrong."""
    text = request["messages"][-1]["content"]
    if "The Gnome" in text:
        return Reply("0" if request["model"].startswith("gemini") else "1")
    return Reply("0")


def test_configs_build_the_judges_and_identity_tracks_the_judge_models(compose, monkeypatch) -> None:
    from hydra.utils import instantiate

    rules = instantiate(compose("evaluate", ["judge=rules"]).judge)
    ensemble = instantiate(compose("evaluate", ["judge=llm_ensemble"]).judge, _convert_="all")
    cascade = instantiate(compose("evaluate", ["judge=cascade"]).judge, _convert_="all")
    swapped = instantiate(compose("evaluate", ["judge=cascade", "judge/llm@judge.llm.judges.claude=qwen3-vllm"]
                                  ).judge, _convert_="all")
    assert isinstance(rules, RuleJudge) and isinstance(ensemble, EnsembleJudge)
    assert isinstance(cascade, CascadeJudge) and sorted(ensemble.judges) == ["claude", "gemini", "gpt"]
    models = {n: j["model"]["model"] for n, j in cascade.identity()["llm"]["judges"].items()}
    assert models == {"gpt": "gpt-5", "gemini": "gemini-2.5-pro", "claude": "claude-sonnet-4-20250514"}
    budgets = {n: (j["reading"], j["model"]["max_tokens"]) for n, j in cascade.identity()["llm"]["judges"].items()}
    assert budgets == {"gpt": ("first_digit", 1024), "gemini": ("first_digit", 2048), "claude": ("single_token", 1)}
    cheap = instantiate(compose("evaluate", ["judge=llm_ensemble_cheap"]).judge, _convert_="all")
    assert {n: j.model.model for n, j in cheap.judges.items()} == {
        "gpt": "gpt-4o-2024-08-06", "gemini": "gemini-2.0-flash", "claude": "claude-sonnet-4-5"}
    assert run_key(swapped.identity()) != run_key(cascade.identity())
    assert swapped.identity()["llm"]["judges"]["claude"]["model"]["extra_body"] == {
        "chat_template_kwargs": {"enable_thinking": False}}


def test_runner_caches_cascade_verdicts_and_metrics_count_who_judged(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(KEY_ENV, "k")
    records = [QuestionRecord(p["id"], "s1", 1, p["question"], p["reference"], p["prediction"], p["prediction"])
               for p in PAIRS]
    from hydra.utils import instantiate

    from scoreqa.config import register_resolvers

    register_resolvers()
    with MockOpenAIServer(verdict_script) as server:
        from hydra import compose, initialize_config_dir
        from hydra.core.global_hydra import GlobalHydra

        GlobalHydra.instance().clear()
        with initialize_config_dir(config_dir=str(Path(__file__).resolve().parents[1] / "conf"), version_base="1.3"):
            cfg = compose(config_name="evaluate", overrides=["judge=cascade", *mock_overrides(server)])
        judge = instantiate(cfg.judge, _convert_="all")
        store = JsonlStore(tmp_path / "judgments.jsonl")
        assert judge_missing(records, judge, store) == 4
        calls = len(server.requests)
        assert calls == 6                                          # 2 undecided items x 3 judges
        assert judge_missing(records, judge, store) == 0 and len(server.requests) == calls
    assert judged_by(records) == {"llm_ensemble:2/3": 1, "llm_ensemble:3/3": 1, "rules:key": 1, "rules:meter": 1}
    counters = count_outcomes(records, n_new_generations=0, n_skipped_scores=0)
    assert [r.correct for r in records] == [True, False, True, False] and counters.n_undecided == 0


def write_pairs(path: Path) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in PAIRS))
    return path


def test_cli_rules_only_resumes_and_summarises(tmp_path: Path) -> None:
    pairs, out = write_pairs(tmp_path / "pairs.jsonl"), tmp_path / "verdicts.jsonl"
    summary = main(["--input", str(pairs), "--output", str(out), "--rules-only"])
    assert (summary["decided_by_rules"], summary["decided_by_llm"], summary["undecided"]) == (2, 0, 2)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["verdict"], r["decided_by"]) for r in rows] == [
        ("a", 1, "rules:key"), ("b", 0, "rules:meter"), ("c", None, "rules:undecided"), ("d", None, "rules:undecided")]
    assert main(["--input", str(pairs), "--output", str(out), "--rules-only"])["n"] == 4
    assert len(out.read_text().splitlines()) == 4                     # nothing judged twice


def test_cli_cascade_with_human_labels(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv(KEY_ENV, "k")
    pairs, out = write_pairs(tmp_path / "pairs.jsonl"), tmp_path / "verdicts.jsonl"
    labels = tmp_path / "human.jsonl"
    labels.write_text("".join(json.dumps({"id": i, "label": label}) + "\n"
                              for i, label in zip("abcd", [1, 0, 0, 0])))
    with MockOpenAIServer(verdict_script) as server:
        summary = main(["--input", str(pairs), "--output", str(out), "--human-labels", str(labels),
                        "judge=cascade", *mock_overrides(server)])
    assert (summary["decided_by_rules"], summary["decided_by_llm"], summary["undecided"]) == (2, 2, 0)
    agreement = json.loads(out.with_suffix(".agreement.json").read_text())
    assert agreement["n_compared"] == 4 and agreement["agreement"] == 0.75        # c: judges 1, human 0
    assert agreement["n_fleiss"] == 2 and "fleiss_kappa_judges_and_human" in agreement
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[2]["votes"] == {"gpt": 1, "gemini": 0, "claude": 1}
    assert "decided by rules 2, by LLM judges 2, undecided 0" in capsys.readouterr().out


def test_cli_names_the_bad_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(PAIRS[0]) + "\n" + json.dumps({"question": "q", "reference": "r"}) + "\n")
    with pytest.raises(SystemExit, match=r"bad.jsonl:2: prediction must be a string"):
        main(["--input", str(bad), "--output", str(tmp_path / "o.jsonl"), "--rules-only"])


def test_a_null_reference_is_an_error_naming_the_line_never_the_string_none(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(PAIRS[0]) + "\n" + json.dumps({"question": "q", "reference": None,
                                                              "prediction": "None"}) + "\n")
    with pytest.raises(SystemExit, match=r"bad.jsonl:2: reference must be a string \(got None\)"):
        main(["--input", str(bad), "--output", str(tmp_path / "o.jsonl")])
    assert not (tmp_path / "o.jsonl").exists()


def test_the_default_judge_starts_without_api_keys(tmp_path: Path, monkeypatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    pairs, out = write_pairs(tmp_path / "pairs.jsonl"), tmp_path / "v.jsonl"
    summary = main(["--input", str(pairs), "--output", str(out)])
    assert summary["judge"] == "scoreqa.judge.rules.RuleJudge" and summary["decided_by_llm"] == 0
    done = subprocess.run([sys.executable, "-m", "scoreqa.judge", "--help"], capture_output=True, text=True,
                          timeout=120)
    assert "default: judge=rules" in done.stdout and "judge=cascade" in done.stdout


def test_module_entry_point_runs(tmp_path: Path) -> None:
    pairs, out = write_pairs(tmp_path / "pairs.jsonl"), tmp_path / "v.jsonl"
    done = subprocess.run([sys.executable, "-m", "scoreqa.judge", "--input", str(pairs), "--output", str(out),
                           "--rules-only"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "4 pairs: decided by rules 2, by LLM judges 0, undecided 2" in done.stdout


def test_failed_judge_calls_are_asked_again_on_the_next_run(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(KEY_ENV, "k")
    pairs, out = write_pairs(tmp_path / "pairs.jsonl"), tmp_path / "verdicts.jsonl"
    with MockOpenAIServer(lambda request, n: Reply.error(503, retry_after=0.01)) as server:
        first = main(["--input", str(pairs), "--output", str(out), "judge=cascade", *mock_overrides(server)])
    assert first["undecided"] == 2 and first["judged_by"]["llm_ensemble:failed"] == 2
    with MockOpenAIServer(verdict_script) as server:
        second = main(["--input", str(pairs), "--output", str(out), "judge=cascade", *mock_overrides(server)])
    assert len(server.requests) == 6 and second["decided_by_llm"] == 2 and second["undecided"] == 0


def test_runner_asks_failed_judge_calls_again(tmp_path: Path, monkeypatch) -> None:
    from scoreqa.judge.chat_models import OpenAIChatModel
    from scoreqa.judge.llm import LLMJudge

    monkeypatch.setenv(KEY_ENV, "k")
    pair = PAIRS[2]
    store = JsonlStore(tmp_path / "judgments.jsonl")
    for script, expected in ((lambda r, n: Reply.error(500, retry_after=0.01), "llm_ensemble:failed"),
                             (lambda r, n: Reply("1"), "llm_ensemble:1/1")):
        # each run parses its records afresh, as evaluation.runner does
        records = [QuestionRecord("c", "s1", 4, pair["question"], pair["reference"], "x", pair["prediction"])]
        with MockOpenAIServer(script) as server:
            model = OpenAIChatModel("m", base_url=server.base_url, api_key_env=KEY_ENV, max_retries=0)
            judge = CascadeJudge(RuleJudge(), EnsembleJudge({"m": LLMJudge(model, name="m", attempts=1)}))
            assert judge_missing(records, judge, store) == 1
        assert (records[0].decided_by, records[0].undecided) == (expected, expected.endswith("failed"))
