"""Every combination of the evaluation config groups composes and builds its objects without loading weights."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

from scoreqa.backends.base import Backend, SamplingSpec
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.builder import ModalitySpec

CONF = Path(__file__).resolve().parents[1] / "conf"


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


def test_every_data_model_modality_prompt_combination_composes(compose):
    combos = list(itertools.product(options("data"), options("model"), options("modality"), options("prompt")))
    assert len(combos) >= 1 * 5 * 4 * 2
    for data, model, modality, prompt in combos:
        cfg = compose("evaluate", [f"data={data}", f"model={model}", f"modality={modality}", f"prompt={prompt}"])
        OmegaConf.resolve(cfg)
        assert cfg.model.name_or_path and cfg.data.name
        ModelSpec.from_config(cfg.model)
        ModalitySpec.from_config(cfg.modality)


@pytest.mark.parametrize("backend", options("backend"))
def test_backends_build_lazily(compose, backend):
    cfg = compose("evaluate", [f"backend={backend}", "model=qwen3-4b"])
    built = instantiate(cfg.backend, _convert_="all")
    assert isinstance(built, Backend)
    assert built.identity()["model"] == "Qwen/Qwen3-4B" or "Qwen/Qwen3-4B" in str(built.identity())


@pytest.mark.parametrize("judge", options("judge"))
def test_judges_build(compose, judge):
    cfg = compose("evaluate", [f"judge={judge}"])
    built = instantiate(cfg.judge, _convert_="all")
    assert built.identity()


@pytest.mark.parametrize("logger", options("logger"))
def test_loggers_build(compose, logger):
    cfg = compose("evaluate", [f"logger={logger}"])
    assert hasattr(instantiate(cfg.logger, _convert_="all"), "log_evaluation")


def test_paper_sampling_defaults(compose):
    cfg = compose("evaluate")
    assert SamplingSpec.from_config(cfg.sampling) == SamplingSpec(True, 0.95, 0.7, 50, 512, 0)
    greedy = SamplingSpec.from_config(compose("evaluate", ["sampling=greedy"]).sampling)
    assert greedy.do_sample is False


def test_data_root_defaults_beside_the_checkout(compose, data_root):
    cfg = compose("evaluate", ["data=msu"])
    assert Path(cfg.data.tables_dir).resolve() == (data_root / "msu").resolve()
