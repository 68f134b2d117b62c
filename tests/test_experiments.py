"""conf/experiment/: every file composes for every cell of its grid, with hub model ids, a backend that fits
its models, one folder per cell, and a line in the README."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from scoreqa.cluster.cells import sweep_cells

REPO = Path(__file__).resolve().parents[1]
# experiments that reproduce a paper's table or figure (smollm2_* are the repo's own CPU measurements:
# benchmarks/lora_gain.py runs them; tests/test_train_*.py cover them)
EXPERIMENTS = sorted(p for p in (REPO / "conf" / "experiment").glob("*.yaml") if not p.stem.startswith("smollm2_"))
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def entry_point(path: Path) -> str:
    """The config an experiment is for, from the usage line its header shows."""
    match = re.search(r"python (evaluate|train)\.py", path.read_text())
    assert match, f"{path.name}: the header shows no `python evaluate.py …` / `python train.py …` usage line"
    return match.group(1)


@pytest.fixture(scope="module")
def composed(compose):
    """Every cell of every experiment: (experiment, cell overrides, composed config with the hydra node)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    todo = [(path.stem, entry_point(path), cell) for path in EXPERIMENTS
            for cell in sweep_cells([f"experiment={path.stem}"], config_name=entry_point(path))]
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cells = [(name, cell, hydra_compose(config_name=config_name, overrides=cell, return_hydra_config=True))
                 for name, config_name, cell in todo]
    GlobalHydra.instance().clear()
    return cells


def job(cfg) -> dict:
    """The job config (everything but the hydra node), resolved."""
    return OmegaConf.to_container(OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"]), resolve=True)


def test_there_is_an_experiment_per_paper_result():
    names = {p.stem for p in EXPERIMENTS}
    for needed in ("msu_table2_text", "msu_table2_visual", "msu_table4_title", "msu_fig5_lora_qwen3",
                   "msu_fig5_lora_qwen25vl", "msu_fig12_single_vs_batched", "msu_table6_mmlu", "wildscore_table3",
                   "abc_eval_table3", "boyaeval_table2"):
        assert needed in names


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.stem)
def test_experiment_is_global_and_has_a_grid(path, composed):
    assert path.read_text().startswith("# @package _global_\n")
    cells = [c for name, c, _ in composed if name == path.stem]
    assert cells and all(f"experiment={path.stem}" in c for c in cells)


def test_every_cell_resolves_with_hub_ids_and_a_fitting_backend(composed):
    for name, cell, cfg in composed:
        plain = job(cfg)
        model = plain["model"]
        backend = plain.get("backend", {}).get("_target_", "")
        if backend.endswith("OpenAIBackend"):
            assert model.get("api", {}).get("key_env"), f"{name} {cell}: an API model without a key variable"
        else:
            assert HUB_ID.match(model["name_or_path"]), f"{name} {cell}: {model['name_or_path']} is not a hub id"
            assert "api" not in model, f"{name} {cell}: a proprietary model on a local backend"
        if plain["data"]["name"] == "msu" and name.startswith("msu_") and "train" not in plain.get("task_name", ""):
            assert plain["judge"]["_target_"].endswith("EnsembleJudge"), f"{name}: MSU results use the paper's judges"


def test_msu_results_run_on_msu_bench_not_the_default_corpus(composed):
    for name, _, cfg in composed:
        if name.startswith("msu_") and "mmlu" not in name:
            assert cfg.data.name == "msu", name


def test_each_cell_has_its_own_folder_that_a_rerun_finds_again(composed):
    folders: dict[str, str] = {}
    for name, cell, cfg in composed:
        folder = f"{OmegaConf.select(cfg, 'hydra.sweep.dir')}/{OmegaConf.select(cfg, 'hydra.sweep.subdir')}"
        assert folder == OmegaConf.select(cfg, "hydra.run.dir"), f"{name}: one cell, two folders"
        assert "${now:" not in str(OmegaConf.to_yaml(cfg.hydra.sweep)), f"{name}: a dated folder never resumes"
        setting = repr({k: v for k, v in job(cfg).items() if k != "logger"})
        assert folders.setdefault(folder, setting) == setting, f"{name} {cell}: shares {folder} with another setting"


def test_lora_evaluations_read_the_adapters_the_training_experiments_write(composed):
    trained = {OmegaConf.select(cfg, "hydra.run.dir") + "/adapter" for name, _, cfg in composed
               if name.startswith("msu_fig5_lora_qwen")}
    read = {OmegaConf.select(cfg, "model.adapter") for name, _, cfg in composed
            if name in ("msu_fig5_lora_eval", "msu_table6_mmlu_lora")}
    assert read and read <= trained


def test_the_command_line_composes_an_experiment():
    for entry, experiment in (("evaluate", "msu_table2_text"), ("train", "msu_fig5_lora_qwen3")):
        result = subprocess.run([sys.executable, f"{entry}.py", f"experiment={experiment}", "--cfg", "job"],
                                cwd=REPO, capture_output=True, text=True, check=True)
        cfg = OmegaConf.create(result.stdout)
        assert cfg.modality.name == "abc" and cfg.model.name == "qwen3-4b"


def test_readme_lists_every_experiment_with_its_paper_result():
    readme = (REPO / "README.md").read_text()
    for path in EXPERIMENTS:
        line = next((l for l in readme.splitlines() if f"`{path.stem}`" in l), None)
        assert line is not None, f"README does not list experiment {path.stem}"
        assert re.search(r"Table \d|Figure \d|Fig\. \d", line), f"README line for {path.stem} names no table/figure"


def test_experiments_run_without_wandb(compose):
    """logger=none must still build: an experiment may not put W&B-only settings into the logger node."""
    from hydra.utils import instantiate

    for path in EXPERIMENTS:
        cfg = compose(entry_point(path), [f"experiment={path.stem}", "logger=none"])
        assert type(instantiate(cfg.logger)).__name__ == "NullLogger"
        assert "WANDB_RUN_GROUP" in path.read_text()  # grouping goes through hydra.job.env_set instead


def _grid(composed, name: str) -> list:
    return [job(cfg) for experiment, _, cfg in composed if experiment == name]


def test_msu_tables_2_and_5_ask_12_questions_per_request_of_the_papers_models(composed):
    """Tables 2 and 5: "We evaluate 12 questions per score in a single run"; their rows, per modality."""
    models = {}
    for name in ("msu_table2_text", "msu_table2_text_api", "msu_table2_visual", "msu_table2_visual_api"):
        cells = _grid(composed, name)
        assert {c["prompt"]["mode"] for c in cells} == {"batched"} and {c["data"]["split"] for c in cells} == {"all"}
        models[name] = {c["model"]["name"] for c in cells}
    assert models["msu_table2_text"] | models["msu_table2_text_api"] == {
        "qwen3-vl-235b-a22b", "claude-opus-4", "claude-sonnet-4", "grok-4", "gpt-5-mini", "gpt-5", "gemini-2.5-pro",
        "qwen3-4b", "qwen2.5-vl-7b", "qwen2.5-vl-72b", "llama-4-scout", "qwen2.5-vl-32b", "gemini-2.5-flash",
        "qwen3-next-80b-a3b", "deepseek-v3", "llama-4-maverick", "qwen3-max"}
    assert models["msu_table2_visual"] | models["msu_table2_visual_api"] == {
        "gpt-5-mini", "grok-4", "qwen3-vl-235b-a22b", "gemini-2.5-flash", "qwen2.5-vl-72b", "claude-sonnet-4",
        "gemini-2.5-pro", "claude-opus-4", "qwen2.5-vl-32b"}


def test_msu_table4_runs_its_four_models_on_the_test_split(composed):
    cells = _grid(composed, "msu_table4_title")
    assert {c["model"]["name"] for c in cells} == {"qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen2.5-vl-3b"}
    assert {c["data"]["split"] for c in cells + _grid(composed, "msu_table4_title_api")} == {"test"}


def test_msu_table6_has_qwen3_4b_and_the_three_qwen25vl_rows(composed):
    rows = {(c["model"]["name"], c["modality"]["name"]) for name in ("msu_table6_mmlu_lora", "msu_table6_mmlu_lora_qwen25vl")
            for c in _grid(composed, name)}
    assert rows == {("qwen3-4b", "abc"), ("qwen2.5-vl-3b", "pdf"), ("qwen2.5-vl-3b", "abc"), ("qwen2.5-vl-3b", "pdf_abc")}
    assert {c["model"]["name"] for c in _grid(composed, "msu_table6_mmlu")} == {"qwen3-4b", "qwen2.5-vl-3b"}


def test_msu_fig12_compares_single_and_batched_for_the_vlms_the_paper_names(composed):
    cells = _grid(composed, "msu_fig12_single_vs_batched") + _grid(composed, "msu_fig12_single_vs_batched_api")
    assert {(c["model"]["name"], c["prompt"]["mode"]) for c in cells} == {
        (m, p) for m in ("claude-sonnet-4", "claude-opus-4", "qwen2.5-vl-72b") for p in ("single", "batched")}
    assert all(c["model"]["kind"] == "vision_language" and c["modality"]["name"] == "pdf" for c in cells)


def test_abc_eval_runs_the_papers_seven_models_at_temperature_0_top_p_1(composed):
    cells = _grid(composed, "abc_eval_table3")
    assert {c["model"]["name"] for c in cells} == {"deepseek-v3", "deepseek-reasoner", "gemini-2.5-pro",
                                                  "gemini-2.5-flash", "gpt-5-mini", "gpt-5-nano", "gpt-5"}
    for c in cells:
        assert (c["sampling"]["temperature"], c["sampling"]["top_p"]) == (0.0, 1.0)
        api = c["model"]["api"]
        # every field of the paper's decoding is either sent or listed as not sent, with its reason
        for field in ("temperature", "top_p"):
            assert (field in api["params"]) != (field in api.get("not_sent", {})), (c["model"]["name"], field)


def test_backend_sends_temperature_0_and_top_p_1_where_accepted(compose):
    from scoreqa.backends.openai_api import OpenAIBackend

    for model, expected in (("deepseek-v3", {"temperature": 0.0, "top_p": 1.0}), ("gemini-2.5-pro", {"temperature": 0.0, "top_p": 1.0}),
                            ("gpt-5", {}), ("deepseek-reasoner", {})):
        cfg = compose("evaluate", ["experiment=abc_eval_table3", f"model={model}"])
        fields = OpenAIBackend(cfg.model, cfg.sampling).request_fields()
        assert {k: v for k, v in fields.items() if k in ("temperature", "top_p")} == expected, model


def test_qwen25vl_pdf_abc_training_leaves_out_appendix_i_scores(composed):
    cells = {c["modality"]["name"]: c["data"]["exclude_scores"] for c in _grid(composed, "msu_fig5_lora_qwen25vl")}
    assert cells == {"pdf": None, "abc": None, "pdf_abc": "appendix_i"}


def test_the_papers_training_experiments_train_with_the_papers_settings(composed):
    """MSU-Bench's LoRA settings (schedule=paper): AdamW 5e-5, 10% warm-up, batch 1 x accumulation 16, 20 epochs,
    one question per example; the embedded default's CPU schedule never leaks into them."""
    training = [(name, job(cfg)) for name, _, cfg in composed if name.startswith("msu_fig5_lora_q")]
    assert {name for name, _ in training} == {"msu_fig5_lora_qwen3", "msu_fig5_lora_qwen25vl"}
    for name, plain in training:
        settings = (plain["optim"]["lr"], plain["optim"]["warmup_ratio"], plain["trainer"]["max_epochs"],
                    plain["trainer"]["accumulate_grad_batches"], plain["training"]["batch_size"],
                    plain["training"]["pack_questions"], plain["lora"]["r"])
        assert settings == (5e-5, 0.1, 20, 16, 1, False, 8), name


def _schedule(plain: dict) -> tuple:
    return (plain["optim"]["lr"], plain["trainer"]["max_epochs"], plain["trainer"]["accumulate_grad_batches"],
            plain["training"]["pack_questions"], plain["training"]["max_tokens"])


def test_the_embedded_default_trains_on_abc_with_its_own_cpu_schedule_and_other_models_with_the_papers(compose):
    plain = OmegaConf.to_container(compose("train", []), resolve=True)
    assert plain["model"]["name"] == "smollm2-135m" and plain["modality"]["name"] == "abc"
    assert _schedule(plain) == (1e-3, 2, 1, "auto", 3072)
    paper = (5e-5, 20, 16, False, 8192)
    for overrides in (["model=qwen3-4b", "data=msu"], ["model=tiny-qwen3"], ["schedule=paper"]):
        assert _schedule(OmegaConf.to_container(compose("train", overrides), resolve=True)) == paper, overrides
