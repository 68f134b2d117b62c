# shellcheck shell=bash
# The training step shared by train_lora_1node.sbatch and train_lora_multinode.sbatch (sourced after common.sh).

run_training() {
  local tasks_per_node="${SLURM_NTASKS_PER_NODE:-${SLURM_GPUS_ON_NODE:-1}}"
  tasks_per_node="${tasks_per_node%%(*}"  # SLURM writes e.g. "6(x2)" for heterogeneous layouts
  local nodes="${SLURM_NNODES:-1}"
  local run_dir="${RUN_DIR:-logs/train/slurm-${SLURM_JOB_ID:?run inside a SLURM job}}"
  local dir_args=()
  if [[ "$run_dir" != hydra ]]; then dir_args=("hydra.run.dir=${run_dir}"); fi
  echo "scoreqa: LoRA on ${nodes} node(s) x ${tasks_per_node} GPU(s), run dir ${run_dir}: $*"
  # Lightning's SLURM environment maps SLURM_PROCID / SLURM_LOCALID to global / local ranks: devices and num_nodes
  # must equal the tasks srun starts. Later arguments win, so "$@" may still choose trainer=deepspeed_zero3.
  srun --kill-on-bad-exit=1 "$PYTHON" train.py trainer=deepspeed_zero2 "trainer.devices=${tasks_per_node}" \
    "++trainer.num_nodes=${nodes}" "${dir_args[@]}" "$@"
  if [[ "$run_dir" == hydra ]]; then
    echo "scoreqa: W&B sync and EVALUATE_AFTER need RUN_DIR=<dir>; run slurm/wandb_sync.sh <the run dir> later"
    return 0
  fi
  sync_wandb "$run_dir"
  if [[ "${EVALUATE_AFTER:-0}" == 1 && -f "${run_dir}/train_summary.json" ]]; then
    "$PYTHON" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["evaluate_commands"]))' \
      "${run_dir}/train_summary.json" | while IFS= read -r command; do
      echo "scoreqa: $command"
      bash -c "$command"
    done
    sync_wandb "$run_dir"
  fi
}
