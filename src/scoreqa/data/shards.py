"""Shard a split across the tasks of an array job, so their caches merge into the unsharded run.

A shard keeps whole scores (a batched prompt never straddles two tasks), dealt round-robin so shards
are balanced even when the split is ordered by composer or length. The shard reports the *full*
split's data version, so its run key is the unsharded run's: rows written by the shards are keyed
exactly as the full run would key them (run key + request key), and ``python evaluate.py`` over
the union of the shards' caches finds every answer and makes no model call.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoreqa.data.records import BenchmarkSplit


@dataclass
class ShardOfSplit(BenchmarkSplit):
    """The scores of one shard; ``version()`` is the whole split's, so the run key does not change."""

    full_version: str = ""
    index: int = 0
    count: int = 1

    def version(self) -> str:
        return self.full_version


def shard_split(split: BenchmarkSplit, index: int | None = None, count: int = 1) -> BenchmarkSplit:
    """Shard ``index`` of ``count`` (scores ``index``, ``index + count``, … in split order).

    ``index=None`` or ``count=1`` returns the split unchanged. A shard may be empty when there are
    more tasks than scores; it then evaluates nothing and its merge contributes nothing.
    """
    if index is None or int(count) == 1:
        return split
    index, count = int(index), int(count)
    if count < 1 or not 0 <= index < count:
        raise ValueError(f"shard.index must be in [0, shard.count) and shard.count >= 1; got index={index}, "
                         f"count={count} (an array job passes shard.index=$SLURM_ARRAY_TASK_ID "
                         f"shard.count=$SLURM_ARRAY_TASK_COUNT)")
    order = list(dict.fromkeys(q.score_id for q in split.questions))
    kept = set(order[index::count])
    return ShardOfSplit(name=split.name, split=split.split,
                        scores={s: score for s, score in split.scores.items() if s in kept},
                        questions=[q for q in split.questions if q.score_id in kept],
                        skipped=split.skipped, full_version=split.version(), index=index, count=count)
