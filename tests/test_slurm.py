"""SLURM scripts: syntax, the submitit launcher's real sbatch text, and training / array jobs driven through
fake ``srun`` / ``sbatch`` / ``wandb`` executables (the scripts themselves run; only SLURM is simulated)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "slurm").glob("*.sbatch")) + sorted((REPO / "slurm").glob("*.sh"))


def fake_bin(tmp_path: Path, **scripts: str) -> dict[str, str]:
    """An environment whose PATH starts with executables named like the keys, running the given bash bodies."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text("#!/bin/bash\n" + body + "\n")
        path.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_passes_bash_n(script):
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("script", sorted((REPO / "slurm").glob("*.sbatch")), ids=lambda p: p.name)
def test_sbatch_directives_come_before_any_command(script):
    lines = script.read_text().splitlines()
    assert lines[0] == "#!/bin/bash"
    first_command = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith("#"))
    directives = [i for i, line in enumerate(lines) if line.startswith("#SBATCH")]
    assert directives and max(directives) < first_command  # sbatch ignores #SBATCH after the first command


def test_one_node_training_asks_for_six_gpus_with_one_task_each():
    text = (REPO / "slurm" / "train_lora_1node.sbatch").read_text()
    for directive in ("--nodes=1", "--ntasks-per-node=6", "--gpus-per-node=6"):
        assert f"#SBATCH {directive}" in text


def test_submitit_slurm_launcher_renders_its_sbatch_script(tmp_path, cache_dir):
    """The real Hydra -> hydra-submitit-launcher -> submitit path, stopped at sbatch (which fails on purpose)."""
    captured = tmp_path / "submission.sh"
    env = fake_bin(tmp_path, srun="exit 0", sbatch=f'cp "$1" {captured}; echo "fake sbatch: refused" >&2; exit 1')
    result = subprocess.run(
        [sys.executable, "evaluate.py", "-m", "hydra/launcher=submitit_slurm", "hydra.launcher.partition=gpu",
         "hydra.launcher.account=proj42", "prompt=single,batched", "data.limit=1", "logger=none",
         f"hydra.sweep.dir={tmp_path / 'sweep'}"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0 and "fake sbatch: refused" in result.stderr
    text = captured.read_text()
    for line in ("#SBATCH --partition=gpu", "#SBATCH --account=proj42", "#SBATCH --array=0-1%2",
                 "#SBATCH --gpus-per-node=1", "#SBATCH --cpus-per-task=8", "#SBATCH --mem=64GB",
                 "#SBATCH --time=720", "#SBATCH --signal=USR2@120", "export WANDB_MODE=offline"):
        assert line in text, line
    assert f"{tmp_path / 'sweep'}/.submitit/%A_%a/%A_%a_0_log.out" in text
    assert "srun --unbuffered" in text and "-m submitit.core._submit" in text


def test_training_job_passes_slurm_layout_run_dir_and_syncs_wandb(tmp_path, compose):
    """train_lora_multinode.sbatch under a simulated 2 x 6 allocation: what srun is asked to run composes into
    a Trainer with 6 devices x 2 nodes writing to the job's folder, and the offline W&B run gets synced."""
    calls = tmp_path / "calls.jsonl"
    run_dir = tmp_path / "run"
    record = f'python3 -c "import json,sys; print(json.dumps(sys.argv[1:]))" "$@" >> {calls}'
    env = fake_bin(tmp_path, srun=f'{record}; mkdir -p {run_dir}/wandb/offline-run-1', wandb=record)
    env.update(SLURM_JOB_ID="4242", SLURM_NNODES="2", SLURM_NTASKS_PER_NODE="6", SLURM_SUBMIT_DIR=str(REPO),
               RUN_DIR=str(run_dir), PYTHON="python3")
    subprocess.run(["bash", str(REPO / "slurm" / "train_lora_multinode.sbatch"), "model=qwen3-4b", "modality=abc",
                    "trainer=deepspeed_zero3"], env=env, check=True, capture_output=True, text=True)
    srun_call, wandb_call = [json.loads(line) for line in calls.read_text().splitlines()]
    assert srun_call[:3] == ["--kill-on-bad-exit=1", "python3", "train.py"]
    cfg = compose("train", srun_call[3:])
    assert cfg.trainer.devices == 6 and cfg.trainer.num_nodes == 2
    assert cfg.trainer.strategy.config.zero_optimization.stage == 3  # the user's trainer= wins over the default
    assert cfg.model.name == "qwen3-4b" and cfg.modality.name == "abc"
    assert f"hydra.run.dir={run_dir}" in srun_call
    assert wandb_call == ["sync", "--mark-synced", str(run_dir / "wandb" / "offline-run-1")]


def test_submit_script_sizes_the_array_and_chains_the_merge(tmp_path):
    calls = tmp_path / "sbatch.jsonl"
    env = fake_bin(tmp_path, sbatch=f'python3 -c "import json,sys; print(json.dumps(sys.argv[1:]))" "$@" >> {calls}; '
                                    'echo "$((1000 + $(wc -l < ' + str(calls) + ')));cluster"')
    env["SCOREQA_ARRAY_ROOT"] = str(tmp_path / "array")
    result = subprocess.run(["bash", str(REPO / "slurm" / "submit_eval_sweep.sh"), "--shards", "3",
                             "--partition=gpu", "model=qwen3-4b,qwen3-1.7b", "prompt=single,batched"],
                            env=env, capture_output=True, text=True, check=True)
    array_call, merge_call = [json.loads(line) for line in calls.read_text().splitlines()]
    assert "--partition=gpu" in array_call and "--array=0-11%64" in array_call  # 4 cells x 3 shards
    assert array_call[-1] == "slurm/eval_array.sbatch" and merge_call[-1] == "slurm/eval_merge.sbatch"
    assert "--dependency=afterok:1001" in merge_call
    exports = next(a for a in merge_call if a.startswith("--export="))
    assert "ARRAY_JOB_ID=1001" in exports and "NUM_SHARDS=3" in exports
    cells_file = Path(exports.split("CELLS_FILE=")[1].split(",")[0])
    assert cells_file.parent == tmp_path / "array"
    assert [shlex.split(line) for line in cells_file.read_text().splitlines()] == [
        ["model=qwen3-4b", "prompt=single"], ["model=qwen3-4b", "prompt=batched"],
        ["model=qwen3-1.7b", "prompt=single"], ["model=qwen3-1.7b", "prompt=batched"]]
    assert "array job 1001, merge job 1002" in result.stdout
