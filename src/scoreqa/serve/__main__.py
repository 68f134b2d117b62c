"""``python -m scoreqa.serve model=smollm2-135m [port=8000] [max_model_len=…] [adapter]``: starts vLLM's
OpenAI-compatible server for a model config (in the foreground; Ctrl-C stops it) and prints how to use it."""

from __future__ import annotations

import os
import subprocess
import sys

from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from scoreqa.config import REPO_ROOT, register_resolvers
from scoreqa.serve.command import server_command


def main(argv: list[str]) -> int:
    register_resolvers()
    with initialize_config_dir(config_dir=str(REPO_ROOT / "conf"), version_base="1.3"):
        cfg = compose(config_name="serve", overrides=argv)
    model = OmegaConf.to_container(cfg.model, resolve=True)
    command = server_command(model, cfg.host, cfg.port, cfg.seed, cfg.max_model_len, list(cfg.extra_args))
    url = f"http://{cfg.host}:{cfg.port}/v1"
    print(f"serving {model['name']} at {url}\n  evaluate: python evaluate.py model={model['name']} "
          f"backend=local_server backend.base_url={url}\n  {' '.join(command)}", flush=True)
    env = {**os.environ, "VLLM_WORKER_MULTIPROC_METHOD": os.environ.get("VLLM_WORKER_MULTIPROC_METHOD", "spawn")}
    return subprocess.call(command, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
