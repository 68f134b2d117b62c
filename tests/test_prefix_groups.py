"""Shared-prefix batch planning: which prompts share a batch, how much they share, and the budgets."""

from __future__ import annotations

from scoreqa.backends.prefix_groups import Batch, common_prefix, plan_batches

SCORE_A = list(range(100, 400))  # 300 tokens
SCORE_B = list(range(500, 900))  # 400 tokens


def _plan(prompts, batch_size=8, max_batch_tokens=100_000, max_new_tokens=10, min_shared=256):
    return plan_batches(prompts, batch_size=batch_size, max_batch_tokens=max_batch_tokens,
                        max_new_tokens=max_new_tokens, min_shared=min_shared)


def test_questions_about_one_score_share_a_batch_and_its_prefix():
    prompts = [SCORE_A + [1, 2], SCORE_B + [7], [5] * 40, SCORE_A + [1, 3, 3], SCORE_B + [8, 8], SCORE_A + [4],
               [6] * 30]
    batches = _plan(prompts)
    # the longest batch first; score A's prompts share its 300 tokens, score B's its 400, the rest share nothing
    assert batches == [Batch((1, 4), 400), Batch((0, 3, 5), 300), Batch((2, 6), 0)]
    assert _plan(prompts, min_shared=0) == [Batch((4, 1, 3, 0, 5, 2, 6), 0)]  # 0: length-sorted, no sharing


def test_the_shared_prefix_leaves_every_row_a_token_of_its_own():
    prompts = [SCORE_A, SCORE_A + [1, 2], SCORE_A]  # a prompt that is the prefix, and a repeated prompt
    assert _plan(prompts) == [Batch((0, 2, 1), 299)]


def test_short_common_prefixes_and_lone_prompts_keep_length_sorted_batches():
    system = list(range(50))  # a system prompt shared by everything, below the threshold
    prompts = [system + SCORE_A[:100] + [1], system + SCORE_B[:100] + [1], SCORE_A + [1], SCORE_B + [2]]
    assert _plan(prompts) == [Batch((3, 2, 0, 1), 0)]


def test_groups_are_cut_to_the_budgets():
    prompts = [SCORE_A + [i] for i in range(5)]
    assert _plan(prompts, batch_size=2) == [Batch((0, 1), 300), Batch((2, 3), 300), Batch((4,), 0)]
    # rows x (301 + 10) <= 700 allows 2 rows
    assert [b.rows for b in _plan(prompts, max_batch_tokens=700)] == [(0, 1), (2, 3), (4,)]


def test_common_prefix():
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2
    assert common_prefix([], [1]) == 0
