"""The cells of a sweep, one override line each: ``python -m scoreqa.cluster.cells experiment=X [k=a,b …]``.

Expands exactly what ``python evaluate.py -m <the same arguments>`` would run — the composed config's
``hydra.sweeper.params`` (an experiment's grid) followed by the command-line overrides, a later
override of the same key replacing the grid's — using Hydra's own basic sweeper. SLURM array jobs
(``slurm/submit_eval_sweep.sh``) read these lines so an array task ``t`` runs cell ``t // shards``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Sequence

from hydra import compose, initialize_config_dir
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf

from scoreqa.config import REPO_ROOT, register_resolvers


def sweep_cells(overrides: Sequence[str], config_name: str = "evaluate", config_dir: Path | None = None
                ) -> list[list[str]]:
    """Every cell's full override list, in the order Hydra's basic sweeper would launch them."""
    register_resolvers()
    parser = OverridesParser.create()
    parsed = parser.parse_overrides(list(overrides))
    fixed = [o.input_line for o in parsed if not o.is_sweep_override()]
    GlobalHydra.instance().clear()
    conf = config_dir or Path(os.environ.get("SCOREQA_ROOT", REPO_ROOT)) / "conf"
    with initialize_config_dir(config_dir=str(conf), version_base="1.3"):
        cfg = compose(config_name=config_name, overrides=fixed, return_hydra_config=True)
    grid = cfg.hydra.sweeper.get("params")
    params = OmegaConf.to_container(grid, resolve=False) if grid is not None else {}
    lines = [f"{k}={v}" for k, v in params.items()] + list(overrides)
    GlobalHydra.instance().clear()
    return [cell for batch in BasicSweeper.split_arguments(parser.parse_overrides(lines), None) for cell in batch]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoreqa.cluster.cells", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config-name", default="evaluate", help="evaluate (default) or train")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, sweeps (k=a,b) included")
    args = parser.parse_args(argv)
    for cell in sweep_cells(args.overrides, config_name=args.config_name):
        print(shlex.join(cell))
    return 0


if __name__ == "__main__":
    sys.exit(main())
