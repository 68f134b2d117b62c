"""TEST ONLY: Lightning's DeepSpeed strategy on a CPU, one process, gloo backend.

Lightning refuses DeepSpeed without CUDA (``setup_environment``), although DeepSpeed's engine runs
on its CPU accelerator. This stand-in lifts exactly that refusal, so CI can run real ZeRO-2/3 steps
(partitioned optimizer state, ZeRO-3 parameter gathering, DeepSpeed checkpoints) with the configs
of ``conf/trainer/deepspeed_*.yaml``. It is never selected by a shipped config: GPU runs use
``lightning.pytorch.strategies.DeepSpeedStrategy`` itself.
"""

from __future__ import annotations

import torch
from lightning.fabric.utilities.seed import reset_seed
from lightning.pytorch.strategies import DeepSpeedStrategy


class CPUDeepSpeedStrategyForTests(DeepSpeedStrategy):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("process_group_backend", "gloo")
        super().__init__(*args, **kwargs)

    @property
    def root_device(self) -> torch.device:
        # DeepSpeed's engine takes the device index as its rank; "cpu" alone has none
        return torch.device("cpu", self.local_rank)

    def setup_environment(self) -> None:
        super(DeepSpeedStrategy, self).setup_environment()  # skip the CUDA-only check, keep the rest

    def setup_distributed(self) -> None:
        import deepspeed

        # One process has nothing to all-reduce through shared memory: skip the kernel DeepSpeed would
        # otherwise JIT-compile for its CPU accelerator (about a minute of C++ on a fresh machine).
        deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False
        reset_seed()
        self.set_world_ranks()
        self._init_deepspeed_distributed()
