"""Evaluate a model on a benchmark: ``python evaluate.py [model=… data=… modality=… prompt=… …]``."""

import os
from pathlib import Path

os.environ.setdefault("SCOREQA_ROOT", str(Path(__file__).resolve().parent))

import hydra  # noqa: E402
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from scoreqa.config import register_resolvers  # noqa: E402

register_resolvers()


@hydra.main(version_base="1.3", config_path="conf", config_name="evaluate")
def main(cfg: DictConfig) -> float:
    from scoreqa.evaluation.entry import evaluate

    metrics = evaluate(cfg, Path(HydraConfig.get().runtime.output_dir))
    # the value a Hydra sweeper optimises: MSU's overall accuracy, or a benchmark's own "overall"
    return metrics["accuracy"]["overall"] if "accuracy" in metrics else metrics.get("overall", float("nan"))


if __name__ == "__main__":
    main()
