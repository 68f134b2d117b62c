#!/bin/bash
# Evaluate a sweep on SLURM as one array job (cells x shards) plus a merge job that runs when all succeeded.
#   slurm/submit_eval_sweep.sh [--shards N] [--max-parallel P] [--sbatch-option=value …] OVERRIDES…
# e.g. slurm/submit_eval_sweep.sh --shards 4 --partition=gpu experiment=msu_table2_text data.root=/data/MSU-Bench
#      slurm/submit_eval_sweep.sh model=qwen3-4b,qwen3-1.7b modality=abc prompt=single,batched
# The cells are what `python evaluate.py -m OVERRIDES…` would run (python -m scoreqa.cluster.cells).
# A failed task can be re-submitted alone (its cache resumes): CELLS_FILE=… NUM_SHARDS=… sbatch --array=<t>
# slurm/eval_array.sbatch; then run slurm/eval_merge.sbatch with ARRAY_JOB_ID=<the original array job id>.
set -euo pipefail
cd "$(dirname "$0")/.."
shards=1
parallel=64
sbatch_opts=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shards) shards="$2"; shift 2 ;;
    --max-parallel) parallel="$2"; shift 2 ;;
    --*=*) sbatch_opts+=("$1"); shift ;;  # e.g. --partition=gpu --account=proj (for the array job)
    *) break ;;
  esac
done
root="${SCOREQA_ARRAY_ROOT:-logs/evaluate/array}"  # where the tasks write (eval_array.sbatch reads it too)
mkdir -p logs/slurm "$root"
cells="$(mktemp "$root/cells-XXXXXX.txt")"
cells="$(cd "$(dirname "$cells")" && pwd)/$(basename "$cells")"
"${PYTHON:-python}" -m scoreqa.cluster.cells "$@" > "$cells"
n_cells="$(wc -l < "$cells")"
n_tasks=$((n_cells * shards))
echo "scoreqa: $n_cells cell(s) x $shards shard(s) = $n_tasks task(s); cells in $cells"
array_id="$(sbatch --parsable "${sbatch_opts[@]}" --array="0-$((n_tasks - 1))%${parallel}" \
  --export="ALL,CELLS_FILE=$cells,NUM_SHARDS=$shards,SCOREQA_REPO=$PWD" slurm/eval_array.sbatch)"
array_id="${array_id%%;*}"
merge_id="$(sbatch --parsable --dependency="afterok:${array_id}" \
  --export="ALL,ARRAY_JOB_ID=$array_id,CELLS_FILE=$cells,NUM_SHARDS=$shards,SCOREQA_REPO=$PWD" \
  slurm/eval_merge.sbatch)"
echo "scoreqa: array job $array_id, merge job $merge_id -> $root/$array_id/cell-*/merged (cells: $cells)"
