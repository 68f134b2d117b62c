"""Give freed activation memory back to the OS during CPU training.

glibc raises its mmap threshold each time a large block is freed, so after the first steps the activations of
a long example (hundreds of MB per layer, allocated and freed again in every backward pass) come from the heap,
which keeps them resident. Peak RSS then measures the allocator, not the training: with gradient checkpointing,
a 2k-token SmolLM2 step peaked at 4.9 GB resident by default and at 1.2 GB with the threshold pinned at 64 KiB
(benchmarks/train_memory.py). Pinning it (``mallopt(M_MMAP_THRESHOLD)``, also what ``MALLOC_MMAP_THRESHOLD_``
does) serves large blocks from mmap, returned to the OS when freed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number


def pin_mmap_threshold(threshold_bytes: int = 64 * 1024) -> bool:
    """True when glibc accepted the threshold; False (and nothing changed) on other C libraries."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        accepted = bool(libc.mallopt(M_MMAP_THRESHOLD, int(threshold_bytes)))
    except (OSError, AttributeError):  # not glibc (musl, macOS): no mallopt
        return False
    if not accepted:
        log.warning("mallopt(M_MMAP_THRESHOLD, %d) refused: freed activations may stay resident", threshold_bytes)
    return accepted
