"""The 6:2:2 split by score: seeded, identical on every machine, never leaks a score across splits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

SPLITS = ("train", "val", "test", "all")


def split_scores(score_ids: Sequence[str], seed: int = 0, ratios: tuple[float, float, float] = (0.6, 0.2, 0.2)
                 ) -> dict[str, list[str]]:
    """Assign whole scores to train/val/test.

    Ids are sorted before the seeded permutation (numpy's PCG64 stream is stable across platforms
    and versions), so the split depends only on the set of ids and the seed.
    """
    if abs(sum(ratios) - 1.0) > 1e-9:
        raise ValueError(f"split ratios must sum to 1, got {ratios}")
    ordered = sorted(set(score_ids))
    order = np.random.default_rng(seed).permutation(len(ordered))
    shuffled = [ordered[i] for i in order]
    n_train = round(ratios[0] * len(shuffled))
    n_val = round(ratios[1] * len(shuffled))
    return {
        "train": sorted(shuffled[:n_train]),
        "val": sorted(shuffled[n_train:n_train + n_val]),
        "test": sorted(shuffled[n_train + n_val:]),
    }


def select_split(score_ids: Sequence[str], split: str, seed: int = 0) -> list[str]:
    """The score ids of one split (``all`` keeps every score), in the order they were given."""
    if split not in SPLITS:
        raise ValueError(f"data.split must be one of {', '.join(SPLITS)}; got {split!r}")
    if split == "all":
        return list(dict.fromkeys(score_ids))
    wanted = set(split_scores(score_ids, seed)[split])
    return [score_id for score_id in dict.fromkeys(score_ids) if score_id in wanted]


def write_split(path: Path, score_ids: Sequence[str], seed: int) -> None:
    """Record the full assignment beside a run so a reader can check which scores were seen."""
    assignment = split_scores(score_ids, seed)
    payload = {"seed": seed, "ratios": [0.6, 0.2, 0.2], **{k: v for k, v in assignment.items()}}
    Path(path).write_text(json.dumps(payload, indent=1))
