"""LoRA fine-tuning: ``python train.py [model=… data=… modality=… prompt=… trainer=… lora=… …]``."""

import os
from pathlib import Path

os.environ.setdefault("SCOREQA_ROOT", str(Path(__file__).resolve().parent))

import hydra  # noqa: E402
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from scoreqa.config import register_resolvers  # noqa: E402

register_resolvers()


@hydra.main(version_base="1.3", config_path="conf", config_name="train")
def main(cfg: DictConfig) -> float:
    from scoreqa.training.entry import evaluation_overrides, train

    hydra_cfg = HydraConfig.get()
    overrides = evaluation_overrides(dict(hydra_cfg.runtime.choices), list(hydra_cfg.overrides.task))
    summary = train(cfg, Path(hydra_cfg.runtime.output_dir), overrides)
    best = summary["best_val_loss"]
    return float("nan") if best is None else best  # the value a Hydra sweeper minimises


if __name__ == "__main__":
    main()
