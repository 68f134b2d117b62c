"""Callbacks: the best adapter in PEFT format, and the loss history with its PNG curve.

Both keep their state in Lightning checkpoints, so a resumed run continues the same curve and
only replaces the adapter when validation loss beats the best seen before the interruption.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lightning.pytorch import Callback, LightningModule, Trainer


class AdapterExport(Callback):
    """``<run dir>/adapter``: the adapter with the lowest ``monitor`` so far (the last one if never validated)."""

    def __init__(self, out_dir: Path, monitor: str = "val/loss") -> None:
        self.out_dir, self.monitor = Path(out_dir), monitor
        self.best: float | None = None
        self.best_step: int | None = None

    def _save(self, trainer: Trainer, module: LightningModule, selected_by: str) -> None:
        module.save_adapter(self.out_dir, {"selected_by": selected_by, "epoch": trainer.current_epoch,
                                           "global_step": trainer.global_step, self.monitor: self.best})

    def on_validation_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        value = trainer.callback_metrics.get(self.monitor)
        if trainer.sanity_checking or value is None:
            return
        if self.best is None or float(value) < self.best:
            self.best, self.best_step = float(value), trainer.global_step
            self._save(trainer, pl_module, f"lowest {self.monitor}")

    def on_train_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if self.best is None:
            self._save(trainer, pl_module, "last step (no validation ran)")

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "best_step": self.best_step}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.best, self.best_step = state_dict["best"], state_dict["best_step"]


class LossCurve(Callback):
    """Per optimizer step: train loss (mean over its accumulated micro-batches; on several GPUs, rank 0's) and
    the learning rate it used; val loss (all ranks) per validation. Rank 0 writes ``loss_history.json`` and
    ``loss_curve.png`` after every validation and at the end."""

    def __init__(self, run_dir: Path, monitor: str = "val/loss") -> None:
        self.run_dir, self.monitor = Path(run_dir), monitor
        self.train: list[tuple[int, float]] = []
        self.lr: list[tuple[int, float]] = []
        self.val: list[tuple[int, float]] = []
        self._window: list[float] = []
        self._lr = float("nan")

    def on_train_batch_start(self, trainer: Trainer, pl_module: LightningModule, batch: Any, batch_idx: int) -> None:
        self._lr = float(trainer.optimizers[0].param_groups[0]["lr"])  # the scheduler steps after the batch

    def on_train_batch_end(self, trainer: Trainer, pl_module: LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        self._window.append(float(outputs["raw_loss"]))
        if trainer.global_step > (self.train[-1][0] if self.train else 0):  # an optimizer step just happened
            self.train.append((trainer.global_step, sum(self._window) / len(self._window)))
            self.lr.append((trainer.global_step, self._lr))
            self._window = []

    def on_validation_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        value = trainer.callback_metrics.get(self.monitor)
        if not trainer.sanity_checking and value is not None:
            self.val.append((trainer.global_step, float(value)))
            if trainer.is_global_zero:
                self.write()

    def on_train_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if trainer.is_global_zero:
            self.write()

    def write(self) -> None:
        (self.run_dir / "loss_history.json").write_text(json.dumps(self.state_dict()))
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, (axis, lr_axis) = plt.subplots(2, 1, figsize=(7, 5.5), sharex=True, height_ratios=(3, 1))
        if self.train:
            axis.plot(*zip(*self.train), label="train (per optimizer step)", linewidth=1)
            lr_axis.plot(*zip(*self.lr), color="tab:gray", linewidth=1)
        if self.val:
            axis.plot(*zip(*self.val), "o-", label="validation")
        axis.set_ylabel("loss (answer tokens)")
        axis.legend()
        axis.grid(alpha=0.3)
        from matplotlib.ticker import MaxNLocator

        lr_axis.xaxis.set_major_locator(MaxNLocator(integer=True))  # optimizer steps are whole numbers
        lr_axis.set_xlabel("optimizer step")
        lr_axis.set_ylabel("learning rate")
        lr_axis.grid(alpha=0.3)
        figure.tight_layout()
        figure.savefig(self.run_dir / "loss_curve.png", dpi=120)
        plt.close(figure)

    def state_dict(self) -> dict[str, Any]:
        return {"train": self.train, "lr": self.lr, "val": self.val}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.train, self.lr, self.val = ([tuple(x) for x in state_dict[k]] for k in ("train", "lr", "val"))
