"""sweeps/: Hydra multirun recipes expand and compose; W&B sweep definitions are well formed and every value
they can send is a valid override of the program they run."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf

from scoreqa.cluster.cells import sweep_cells
from scoreqa.evaluation.report import level_metrics
from scoreqa.evaluation.scoring import QuestionRecord
from scoreqa.loggers.wandb_logger import flatten

REPO = Path(__file__).resolve().parents[1]
RECIPES = sorted((REPO / "sweeps" / "recipe").glob("*.yaml"))
WANDB = sorted((REPO / "sweeps" / "wandb").glob("*.yaml"))
SEARCH = "hydra.searchpath=[file://sweeps]"


def program_of(path: Path) -> str:
    return re.search(r"python (evaluate|train)\.py", path.read_text()).group(1)


def covering(cells: list[list[str]]) -> list[list[str]]:
    """Cells that together use every value of every swept key (each value composed at least once)."""
    seen: set[str] = set()
    kept = []
    for cell in cells:
        if set(cell) - seen:
            kept.append(cell)
            seen |= set(cell)
    return kept


def assert_applied(cfg, overrides: list[str]) -> None:
    """Each group override selected its option; each value override set its value."""
    for key, value in (o.split("=", 1) for o in overrides if not o.startswith(("+", "hydra."))):
        if key in ("model", "data", "modality", "prompt", "sampling"):
            assert cfg[key].name == value, f"{key}={value} not applied"
        elif key == "trainer":
            assert cfg.trainer.strategy.config.zero_optimization.stage == int(value[-1])
        elif "." in key:
            assert str(OmegaConf.select(cfg, key)) == str(yaml.safe_load(value)), f"{key}={value} not applied"


@pytest.fixture()
def composer(compose, monkeypatch):
    monkeypatch.chdir(REPO)  # file://sweeps is relative to the working directory, as on the command line
    return compose


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.stem)
def test_recipe_expands_into_composable_cells(path, composer):
    assert path.read_text().startswith("# @package _global_\n")
    program = program_of(path)
    cells = sweep_cells([SEARCH, f"+recipe={path.stem}"], config_name=program)
    grid = yaml.safe_load(path.read_text())["hydra"]["sweeper"]["params"]
    assert len(cells) == len(list(itertools.product(*(str(v).split(",") for v in grid.values()))))
    for cell in covering(cells):
        assert_applied(composer(program, cell), cell)


def test_recipe_cells_can_be_narrowed_from_the_command_line():
    cells = sweep_cells([SEARCH, "+recipe=msu_text_grid", "model=qwen3-4b", "prompt=batched"])
    assert [[c for c in cell if c.startswith(("model=", "modality=", "prompt="))] for cell in cells] == [
        ["model=qwen3-4b", "modality=abc", "prompt=batched"], ["model=qwen3-4b", "modality=title", "prompt=batched"]]


def test_the_sweep_definitions_are_in_the_checkout():
    assert {p.stem for p in WANDB} >= {"msu_grid", "benchmarks_grid", "lora_lr_rank"}


@pytest.mark.parametrize("path", WANDB, ids=lambda p: p.stem)
def test_wandb_sweep_is_well_formed_and_every_value_composes(path, composer):
    sweep = yaml.safe_load(path.read_text())
    program = sweep["program"].removesuffix(".py")
    assert (REPO / sweep["program"]).exists() and sweep["method"] in {"grid", "random", "bayes"}
    assert sweep["command"][-1] == "${args_no_hyphens}"  # Hydra overrides are key=value, no dashes
    if sweep["method"] == "bayes":
        assert sweep["metric"]["goal"] in {"minimize", "maximize"}
    choices = {}
    for key, spec in sweep["parameters"].items():
        if "values" in spec:
            choices[key] = spec["values"]
        elif "value" in spec:
            choices[key] = [spec["value"]]
        else:
            assert spec["distribution"] == "log_uniform_values" and 0 < spec["min"] < spec["max"]
            choices[key] = [spec["min"], spec["max"]]
    combos = [dict(zip(choices, values)) for values in itertools.product(*choices.values())]
    if sweep["method"] == "grid":
        assert len(combos) > 1
    for combo in covering([[f"{k}={v}" for k, v in c.items()] for c in combos]):
        assert_applied(composer(program, combo), combo)


def test_evaluation_sweeps_optimise_a_metric_the_logger_writes():
    records = [QuestionRecord(f"s:L{l}.1", "s", l, "q", "r", "o", "p", correct=l < 3) for l in (1, 2, 3, 4)]
    logged = set(flatten(level_metrics(records, bootstrap_resamples=100)))  # MSU keeps accuracy/overall
    for path in WANDB:
        sweep = yaml.safe_load(path.read_text())
        if sweep["program"] == "evaluate.py" and "metric" in sweep:
            assert sweep["metric"]["name"] in logged, path.name


# What each recipe claims to evaluate (its header comment): the benchmark and, when fixed, the model.
CLAIMED = {"msu_text_grid": ("msu", None), "msu_vl_grid": ("msu", "qwen2.5-vl-3b"), "msu_api_grid": ("msu", None),
           "lora_lr_rank": ("msu", "qwen3-4b"), "benchmarks_grid": (None, None),
           "msu_grid": ("msu", None)}
TARGETS = {"msu": "scoreqa.data.msu.MSUBench", "abc_eval": "scoreqa.data.abc_eval.ABCEvalBench"}


def _cells_of(path: Path) -> list[list[str]]:
    if path.parent.name == "recipe":
        return sweep_cells([SEARCH, f"+recipe={path.stem}", "data.root=/srv/MSU-Bench"], config_name=program_of(path))
    sweep = yaml.safe_load(path.read_text())
    choices = {k: spec.get("values", [spec.get("value", spec.get("min"))]) for k, spec in sweep["parameters"].items()}
    return [[f"{k}={v}" for k, v in zip(choices, values)] + ["data.root=/srv/MSU-Bench"]
            for values in itertools.product(*choices.values())]


@pytest.mark.parametrize("path", RECIPES + WANDB, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_cell_uses_the_data_and_model_it_claims(path, composer):
    """The four MSU recipes once evaluated the corpus (no data=msu); lora_lr_rank pointed the corpus at MSU-Bench."""
    data, model = CLAIMED[path.stem]
    program = "train" if "train.py" in path.read_text() else "evaluate"
    for cell in _cells_of(path):
        cfg = composer(program, cell)
        wanted = data or dict(o.split("=", 1) for o in cell)["data"]
        assert cfg.data.name == wanted and cfg.data._target_ == TARGETS[wanted], (path.name, cell)
        if wanted == "msu":
            assert cfg.data.root == "/srv/MSU-Bench"
        cell_model = dict(o.split("=", 1) for o in cell).get("model")
        assert cfg.model.name == (cell_model or model or cfg.model.name) and cfg.model.name != "tiny-qwen3", cell
