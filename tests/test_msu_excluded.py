"""Appendix I's 8 excluded training scores: each paper title is one release score; exclusion touches train/val only."""

from __future__ import annotations

import re

import pytest

from scoreqa.data.msu import MSUBench
from scoreqa.data.msu_excluded import APPENDIX_I, resolve


def _norm(title: str) -> str:
    return re.sub(r"[^a-z0-9]", "", title.lower())


@pytest.fixture(scope="module")
def release(data_root):
    return MSUBench(tables_dir=str(data_root / "msu")).read_all()[0]


def test_appendix_i_titles_name_exactly_these_release_scores(release):
    assert len(APPENDIX_I) == 8
    for score_id, paper_title in APPENDIX_I.items():
        matches = [s.id for s in release.values() if _norm(s.title) == _norm(paper_title)]
        assert matches == [score_id], paper_title


def test_exclusion_drops_the_scores_from_train_and_val_never_test(data_root, release):
    def load(split: str, exclude):
        return MSUBench(tables_dir=str(data_root / "msu"), split=split, exclude_scores=exclude).load(["title"])

    for split in ("train", "val"):
        full, reduced = load(split, None), load(split, "appendix_i")
        gone = set(full.scores) & set(APPENDIX_I)
        assert set(reduced.scores) == set(full.scores) - gone
        assert {s["score_id"] for s in reduced.skipped} == gone
        assert all(q.score_id not in gone for q in reduced.questions)
    assert set(load("train", "appendix_i").scores) | set(load("val", "appendix_i").scores) | \
        set(load("test", None).scores) >= set(release) - set(APPENDIX_I)
    assert load("test", "appendix_i").scores.keys() == load("test", None).scores.keys()
    assert not set(load("test", None).scores) & set(APPENDIX_I)  # our split, like the paper's, trains on all 8


def test_unknown_names_and_ids_fail(release):
    with pytest.raises(KeyError, match="not a named list"):
        resolve("appendix_j", release)
    with pytest.raises(KeyError, match=r"\['999'\]"):
        resolve(["999"], release)
