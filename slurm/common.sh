# shellcheck shell=bash
# Sourced by every sbatch script here: repo, site setup, environment of compute nodes.
#   SCOREQA_REPO         the checkout (default: the directory sbatch was called from, $SLURM_SUBMIT_DIR)
#   SCOREQA_SLURM_SETUP  a file sourced first for site specifics, e.g. `module load cuda/12.4`
#                        and `source ~/venvs/scoreqa/bin/activate`
set -euo pipefail
if [[ -n "${SCOREQA_SLURM_SETUP:-}" ]]; then
  # shellcheck source=/dev/null
  source "$SCOREQA_SLURM_SETUP"
fi
SCOREQA_REPO="${SCOREQA_REPO:-${SLURM_SUBMIT_DIR:-$PWD}}"
if [[ ! -f "$SCOREQA_REPO/evaluate.py" ]]; then
  echo "scoreqa: $SCOREQA_REPO has no evaluate.py; submit from the checkout or set SCOREQA_REPO" >&2
  exit 2
fi
cd "$SCOREQA_REPO"
# Compute nodes usually have no internet: W&B writes offline runs, slurm/wandb_sync.sh uploads them afterwards.
export WANDB_MODE="${WANDB_MODE:-offline}"
export TOKENIZERS_PARALLELISM=false
export OMP_NUM_THREADS="${SLURM_CPUS_PER_TASK:-1}"
PYTHON="${PYTHON:-python}"

# Upload the offline W&B runs under the given dirs; on a node without internet say how to do it later.
sync_wandb() {
  if [[ "${SCOREQA_WANDB_SYNC:-1}" != 1 ]]; then return 0; fi
  bash "$SCOREQA_REPO/slurm/wandb_sync.sh" "$@" ||
    echo "scoreqa: wandb sync failed (no internet here?); run on a login node: slurm/wandb_sync.sh $*" >&2
}
