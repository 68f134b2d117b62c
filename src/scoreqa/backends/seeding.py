"""Per-batch seeds derived from the run seed and the batch's request keys.

A resumed run regenerates a batch with the same seed it would have had in one go, whatever
else was cached before it.
"""

from __future__ import annotations

import hashlib
from typing import Sequence


def batch_seed(seed: int, keys: Sequence[str]) -> int:
    digest = hashlib.sha256(("\x1f".join([str(seed), *keys])).encode()).digest()
    return int.from_bytes(digest[:4], "little")
