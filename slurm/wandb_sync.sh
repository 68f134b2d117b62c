#!/bin/bash
# Upload every offline W&B run under the given run dirs: slurm/wandb_sync.sh logs/train/123456 [more dirs…]
# Safe to repeat (wandb sync skips runs already synced, --mark-synced records them).
set -euo pipefail
if [[ $# -eq 0 ]]; then
  echo "usage: $0 RUN_DIR [RUN_DIR…]" >&2
  exit 2
fi
found=0
while IFS= read -r -d '' run; do
  found=$((found + 1))
  wandb sync --mark-synced "$run"
done < <(find "$@" -type d -name 'offline-run-*' -print0)
echo "scoreqa: synced $found offline W&B run(s) under $*"
