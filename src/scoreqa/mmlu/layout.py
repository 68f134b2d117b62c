"""Files in the layout of the Hugging Face dataset ``cais/mmlu``, and a small fixture written in that layout.

A local copy (``huggingface-cli download cais/mmlu --repo-type dataset --local-dir DIR``) holds one
folder per subject with ``test-00000-of-00001.parquet``, ``validation-…`` and ``dev-…`` (the five
few-shot examples); columns ``question``, ``subject``, ``choices`` (4 strings), ``answer`` (0-3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

SPLITS = ("test", "validation", "dev")


def split_files(root: Path, subject: str, split: str) -> list[Path]:
    """The parquet shards of one subject's split (sorted; usually one)."""
    return sorted((Path(root) / subject).glob(f"{split}-*.parquet"))


def require_files(root: Path, subjects: Iterable[str], splits: Iterable[str]) -> dict[str, dict[str, list[str]]]:
    """``{subject: {split: [files]}}``, or an error listing every missing file and how to get them."""
    found: dict[str, dict[str, list[str]]] = {}
    missing: list[str] = []
    for subject in subjects:
        for split in splits:
            files = split_files(root, subject, split)
            if not files:
                missing.append(str(Path(root) / subject / f"{split}-00000-of-00001.parquet"))
            found.setdefault(subject, {})[split] = [str(f) for f in files]
    if missing:
        raise FileNotFoundError(
            f"MMLU files missing under data.root={root} ({len(missing)}, e.g. {missing[0]}): download the dataset "
            "once with `huggingface-cli download cais/mmlu --repo-type dataset --local-dir <dir>` and pass "
            "data.root=<dir>, or restrict data.subjects")
    return found


def write_fixture(root: Path, subjects: Iterable[str], n_test: int = 4, n_dev: int = 5, seed: int = 0) -> Path:
    """Arithmetic questions per subject in the ``cais/mmlu`` layout: for tests and smoke runs, not a benchmark."""
    rng = np.random.default_rng(seed)
    root = Path(root)
    for subject in subjects:
        for split, n in (("test", n_test), ("validation", n_test), ("dev", n_dev)):
            rows = []
            for _ in range(n):
                a, b = (int(x) for x in rng.integers(2, 50, size=2))
                answer = int(rng.integers(0, 4))
                wrong = iter(int(x) for x in rng.permutation(np.arange(a + b + 1, a + b + 40))[:3])
                choices = [str(a + b) if i == answer else str(next(wrong)) for i in range(4)]
                rows.append({"question": f"What is {a} + {b}?", "subject": subject, "choices": choices,
                             "answer": answer})
            folder = root / subject
            folder.mkdir(parents=True, exist_ok=True)
            pd.DataFrame(rows).to_parquet(folder / f"{split}-00000-of-00001.parquet", index=False)
    return root
