"""The paper's learning-rate schedule: linear warm-up over the first ``warmup_ratio`` of the optimizer
steps, then cosine decay to zero (transformers' implementation, stepped once per optimizer step)."""

from __future__ import annotations

import math

import torch


def warmup_steps(total_steps: int, warmup_ratio: float) -> int:
    """Warm-up length as the Hugging Face Trainer counts it: ``ceil(ratio * total)``."""
    if not 0 <= warmup_ratio < 1:
        raise ValueError(f"optim.warmup_ratio must be in [0, 1); got {warmup_ratio}")
    return math.ceil(total_steps * warmup_ratio)


def cosine_with_warmup(optimizer: torch.optim.Optimizer, total_steps: int, warmup_ratio: float
                       ) -> torch.optim.lr_scheduler.LambdaLR:
    from transformers import get_cosine_schedule_with_warmup

    if total_steps < 1:
        raise ValueError(f"the run has {total_steps} optimizer steps: check trainer.max_epochs / trainer.max_steps")
    return get_cosine_schedule_with_warmup(optimizer, warmup_steps(total_steps, warmup_ratio), total_steps)
