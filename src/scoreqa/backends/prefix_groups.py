"""Batches for HF text generation, grouping prompts that share a long token prefix.

In MSU-style evaluation the 8-12 questions about one score have prompts that are identical up to the
question: chat template, system prompt and the score's ABC (1-5k tokens), then a few dozen question tokens.
Prefilling that prefix once per batch instead of once per question removes most of the prompt work on a
CPU. Sorting the token ids puts prompts with a common prefix next to each other, and in a sorted list the
common prefix of a run is the smallest common prefix of its neighbours; runs whose neighbours share at
least ``min_shared`` tokens become shared-prefix batches, and everything else keeps the length-sorted
batching (longest first, little padding). Both are filled up to ``batch_size`` rows and
``max_batch_tokens`` (rows x (longest prompt + max_new_tokens), which bounds the KV cache).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence


@dataclass(frozen=True)
class Batch:
    """Indices of the prompts in one batch, and how many leading tokens they all share and prefill once
    (0: none). ``shared`` leaves every row at least one token of its own, whose logits start the answer."""

    rows: tuple[int, ...]
    shared: int


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _filled(rows: Sequence[int], prompts: Sequence[Sequence[int]], batch_size: int, max_batch_tokens: int,
            max_new_tokens: int) -> Iterator[list[int]]:
    """``rows`` cut, in order, into batches within both budgets (a row over budget alone still gets one)."""
    batch: list[int] = []
    longest = 0
    for row in rows:
        widest = max(longest, len(prompts[row]))
        if batch and (len(batch) + 1 > batch_size or (len(batch) + 1) * (widest + max_new_tokens) > max_batch_tokens):
            yield batch
            batch, widest = [], len(prompts[row])
        batch.append(row)
        longest = widest
    if batch:
        yield batch


def plan_batches(prompts: Sequence[Sequence[int]], *, batch_size: int, max_batch_tokens: int, max_new_tokens: int,
                 min_shared: int) -> list[Batch]:
    """Every prompt in exactly one batch, longest batches first (an out-of-memory shows at once).
    ``min_shared`` 0 turns sharing off."""
    order = sorted(range(len(prompts)), key=lambda i: prompts[i])
    runs: list[list[int]] = []
    for previous, row in zip([None, *order], order):
        if min_shared and previous is not None and common_prefix(prompts[previous], prompts[row]) >= min_shared:
            runs[-1].append(row)
        else:
            runs.append([row])
    batches: list[Batch] = []
    alone: list[int] = []
    for run in runs:
        for chunk in _filled(run, prompts, batch_size, max_batch_tokens, max_new_tokens):
            if len(chunk) == 1:  # nothing to share with: it joins the length-sorted batches
                alone.extend(chunk)
                continue
            shared = min(common_prefix(prompts[a], prompts[b]) for a, b in zip(chunk, chunk[1:]))
            batches.append(Batch(tuple(chunk), min(shared, *(len(prompts[i]) - 1 for i in chunk))))
    alone.sort(key=lambda i: -len(prompts[i]))
    batches += [Batch(tuple(chunk), 0) for chunk in _filled(alone, prompts, batch_size, max_batch_tokens,
                                                             max_new_tokens)]
    return sorted(batches, key=lambda b: -max(len(prompts[i]) for i in b.rows))
