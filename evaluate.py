"""Evaluate a model on a benchmark: ``python evaluate.py [model=… data=… modality=… prompt=… …]``.

Exit codes: 0 complete run; 1 Hydra could not compose the config (its own message: unknown option or key, no
traceback); 2 a configuration or input error (one line on stderr; ``HYDRA_FULL_ERROR=1``
shows the traceback); 3 the run finished but is incomplete (a request failed for good or was too long, or
nothing was evaluated), or the endpoint refused the key / failed too often: its rows are cached and a rerun asks
only the rest. ``allow_incomplete=true`` exits 0.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("SCOREQA_ROOT", str(Path(__file__).resolve().parent))

import hydra  # noqa: E402
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from hydra.types import RunMode  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from scoreqa.config import register_resolvers, scrub  # noqa: E402

register_resolvers()
EXIT_USER_ERROR = 2


def one_line(error: Exception, cfg: DictConfig) -> str:
    """The cause in one line (secrets scrubbed); a model the hub cannot give names ``model.name_or_path`` and the fix."""
    lines = scrub(str(error)).strip().splitlines()
    text = lines[0] if lines else type(error).__name__
    name = cfg.model.get("name_or_path")
    if isinstance(error, OSError) and name and "huggingface" in str(error).lower():
        return (f"model.name_or_path={name} cannot be loaded: not a local folder, and not in the Hugging Face cache "
                f"(offline: HF_HUB_OFFLINE={os.environ.get('HF_HUB_OFFLINE', '0')}). Download it once "
                f"(huggingface-cli download {name}) or point model.name_or_path at a local folder. [{text}]")
    return text


@hydra.main(version_base="1.3", config_path="conf", config_name="evaluate")
def main(cfg: DictConfig) -> float:
    from scoreqa.evaluation.entry import EXIT_INCOMPLETE, evaluate
    from scoreqa.backends.openai_api import BackendStopped
    from scoreqa.evaluation.run_lock import RunFolderBusy

    hydra_cfg = HydraConfig.get()
    try:
        metrics = evaluate(cfg, Path(hydra_cfg.runtime.output_dir))
    except (ValueError, TypeError, KeyError, OSError, RunFolderBusy) as error:
        if os.environ.get("HYDRA_FULL_ERROR") == "1":
            raise
        print(f"error: {one_line(error, cfg)}", file=sys.stderr)
        sys.exit(EXIT_USER_ERROR)
    except BackendStopped as error:  # answers so far are cached; the run is incomplete
        if os.environ.get("HYDRA_FULL_ERROR") == "1":
            raise
        print(f"incomplete run (exit {EXIT_INCOMPLETE}): {scrub(str(error))}", file=sys.stderr)
        sys.exit(EXIT_INCOMPLETE)
    if not metrics.complete and not cfg.get("allow_incomplete", False):
        print(f"incomplete run (exit {EXIT_INCOMPLETE}): {'; '.join(metrics.incomplete_reasons())}; "
              "pass allow_incomplete=true to accept it", file=sys.stderr)
        if hydra_cfg.mode == RunMode.RUN:  # a sweep goes on with its other cells
            sys.exit(EXIT_INCOMPLETE)
    # the value a Hydra sweeper optimises: the benchmark's headline
    headline = metrics.scores.headline
    return float("nan") if headline is None else headline


if __name__ == "__main__":
    main()
