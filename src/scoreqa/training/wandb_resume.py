"""The Lightning W&B logger for a training run, resumable: the run id lives in ``<run dir>/wandb_run_id``.

Resuming from ``checkpoints/last.ckpt`` reuses the id, so the curves continue in the same W&B run
(offline runs with one id merge on ``wandb sync``). A fresh start gets a new id. ``logger=none``
(or any logger that is not W&B) trains without one.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, Mapping

from hydra.utils import instantiate

from scoreqa.loggers.wandb_logger import WandbLogger

RUN_ID_FILE = "wandb_run_id"


def persisted_run_id(run_dir: Path, resuming: bool) -> str:
    """The id to (re)open; only global rank 0 writes it (other ranks never open a W&B run)."""
    from lightning.fabric.utilities.rank_zero import rank_zero_only

    path = Path(run_dir) / RUN_ID_FILE
    if resuming and path.exists():
        return path.read_text().strip()
    run_id = secrets.token_hex(6)  # W&B ids: lowercase letters and digits
    if rank_zero_only.rank == 0:
        path.write_text(run_id)
    return run_id


def training_logger(logger_config: Mapping[str, Any], run_dir: Path, resuming: bool, config: dict[str, Any]):
    """A ``lightning.pytorch.loggers.WandbLogger`` built from ``conf/logger/wandb.yaml``, or ``None``."""
    settings = instantiate(logger_config, _convert_="all")
    if not isinstance(settings, WandbLogger):
        return None
    from lightning.pytorch.loggers import WandbLogger as LightningWandbLogger

    return LightningWandbLogger(project=settings.project, entity=settings.entity, group=settings.group,
                                tags=settings.tags, name=settings.name, id=persisted_run_id(run_dir, resuming),
                                save_dir=str(run_dir), mode=os.environ.get("WANDB_MODE", settings.mode),
                                job_type="train", config=config)
