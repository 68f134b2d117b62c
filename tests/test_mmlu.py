"""MMLU through lm-eval over a fixture in the cais/mmlu layout: categories, a direct recomputation, the before/after delta."""

from __future__ import annotations

import json
from importlib import resources

import pandas as pd
import pytest
import torch
import yaml

from scoreqa.evaluation.entry import evaluate
from scoreqa.mmlu.layout import require_files, write_fixture
from scoreqa.mmlu.subjects import CATEGORIES, SUBJECTS, subjects_of
from scoreqa.models.loading import load_model, load_text_processor
from scoreqa.models.spec import ModelSpec

pytestmark = pytest.mark.slow
PICKED = [s for c in CATEGORIES for s in subjects_of(c)[:2]]  # two subjects per category
FEWSHOT = 2


def test_subject_table_is_lm_evals_grouping():
    folder = resources.files("lm_eval") / "tasks" / "mmlu" / "default"
    grouping = {}
    for item in folder.iterdir():
        if item.name.startswith("mmlu_") and item.name.endswith(".yaml"):
            task = yaml.safe_load(item.read_text())
            grouping[task["dataset_name"]] = task["tag"].removeprefix("mmlu_").removesuffix("_tasks")
    assert grouping == SUBJECTS and len(SUBJECTS) == 57
    assert [len(subjects_of(c)) for c in CATEGORIES] == [19, 13, 12, 13]


@pytest.fixture(scope="module")
def fixture_root(tmp_path_factory):
    return write_fixture(tmp_path_factory.mktemp("mmlu"), PICKED, n_test=4, n_dev=5)


def test_fixture_is_written_in_the_cais_mmlu_layout(fixture_root):
    for subject in PICKED:
        for split, n in (("test", 4), ("validation", 4), ("dev", 5)):
            frame = pd.read_parquet(fixture_root / subject / f"{split}-00000-of-00001.parquet")
            assert list(frame.columns) == ["question", "subject", "choices", "answer"] and len(frame) == n
            for row in frame.itertuples():
                a, b = (int(x) for x in row.question.removeprefix("What is ").removesuffix("?").split(" + "))
                assert len(row.choices) == 4 and row.choices[row.answer] == str(a + b) and row.subject == subject
    absent = next(s for s in SUBJECTS if s not in PICKED)
    with pytest.raises(FileNotFoundError, match=rf"{absent}/test-00000-of-00001.parquet.*huggingface-cli download"):
        require_files(fixture_root, [absent], ["test"])


def _mmlu_cfg(compose, fixture_root, *extra):
    return compose("evaluate", ["data=mmlu", f"data.root={fixture_root}", f"data.subjects=[{','.join(PICKED)}]",
                                f"data.num_fewshot={FEWSHOT}", "logger=none", *extra])


@pytest.fixture(scope="module")
def base_run(compose, fixture_root, tiny_qwen3, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("mmlu-base")
    cfg = _mmlu_cfg(compose, fixture_root)
    return cfg, evaluate(cfg, run_dir), run_dir


def _reference_accuracy(cfg, fixture_root, subject: str) -> float:
    """MMLU scored by hand: k-shot prompt from the dev split, the letter with the highest log-likelihood."""
    spec = ModelSpec.from_config(cfg.model)
    tokenizer, model = load_text_processor(spec), load_model(spec, torch.device("cpu"))

    def block(row) -> str:
        options = "".join(f"\n{letter}. {choice}" for letter, choice in zip("ABCD", row.choices))
        return f"{row.question.strip()}{options}\nAnswer:"

    dev = pd.read_parquet(fixture_root / subject / "dev-00000-of-00001.parquet").head(FEWSHOT)
    header = f"The following are multiple choice questions (with answers) about {subject.replace('_', ' ')}.\n\n"
    shots = "".join(f"{block(row)} {'ABCD'[row.answer]}\n\n" for row in dev.itertuples())
    correct = 0
    test = pd.read_parquet(fixture_root / subject / "test-00000-of-00001.parquet")
    for row in test.itertuples():
        context = header + shots + block(row)
        context_ids = tokenizer(context, add_special_tokens=False)["input_ids"]
        scores = []
        for letter in "ABCD":
            ids = tokenizer(context + " " + letter, add_special_tokens=False)["input_ids"]
            with torch.no_grad():
                logprobs = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0, :-1], dim=-1)
            scores.append(sum(logprobs[i - 1, ids[i]].item() for i in range(len(context_ids), len(ids))))
        correct += int(max(range(4), key=scores.__getitem__) == row.answer)
    return 100 * correct / len(test)


def test_mmlu_run_reports_subjects_categories_and_overall_as_recomputed(base_run, fixture_root):
    cfg, metrics, run_dir = base_run
    assert json.loads((run_dir / "metrics.json").read_text()) == metrics.as_dict()
    assert set(metrics["accuracy"]) == {"overall", *CATEGORIES} and metrics["n_questions"] == 4 * len(PICKED)
    for subject in PICKED:
        assert metrics["subjects"][subject] == {"category": SUBJECTS[subject], "n": 4,
                                                "accuracy": _reference_accuracy(cfg, fixture_root, subject)}
    for category in CATEGORIES:
        mine = [metrics["subjects"][s]["accuracy"] for s in PICKED if SUBJECTS[s] == category]
        assert metrics["accuracy"][category] == pytest.approx(sum(mine) / len(mine), abs=0.01)
    every = [metrics["subjects"][s]["accuracy"] for s in PICKED]
    assert metrics["accuracy"]["overall"] == pytest.approx(sum(every) / len(every), abs=0.01)
    assert (run_dir / "lm_eval_tasks" / "scoreqa_mmlu.yaml").exists()


def test_adapter_run_reports_the_change_against_the_base_run(compose, base_run, fixture_root, tmp_path):
    from peft import LoraConfig, get_peft_model

    cfg, before, base_dir = base_run
    spec = ModelSpec.from_config(cfg.model)
    torch.manual_seed(1)
    lora = LoraConfig(r=8, lora_alpha=64, target_modules=["q_proj", "v_proj", "down_proj"], init_lora_weights=False)
    get_peft_model(load_model(spec, torch.device("cpu")), lora).save_pretrained(tmp_path / "adapter")
    after = evaluate(_mmlu_cfg(compose, fixture_root, f"model.adapter={tmp_path / 'adapter'}",
                               f"data.base_run={base_dir}"), tmp_path / "after")
    assert after["model"]["adapter"] == str(tmp_path / "adapter") and after["base_run"] == str(base_dir)
    assert after["delta"] == {k: round(after["accuracy"][k] - before["accuracy"][k], 2) for k in before["accuracy"]}
    assert after["subjects"] != before["subjects"]  # a random, strong adapter changes some answers
    with pytest.raises(ValueError, match="num_fewshot"):
        evaluate(_mmlu_cfg(compose, fixture_root, "data.num_fewshot=0", f"data.base_run={base_dir}"),
                 tmp_path / "mismatch")
