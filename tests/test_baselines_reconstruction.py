"""data=reconstruction end to end on a corpus folder in the corpus builder's layout: the oracle's
validated ABC reconstructs every source bar; a multi-page score is skipped and counted."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import music21
import pytest
from PIL import Image

from scoreqa.corpus.build import BUILD_VERSION
from scoreqa.data.reconstruction import ReconstructionBench
from scoreqa.evaluation.entry import evaluate
from scoreqa.scores.mxl import normalise, parse
from scoreqa.scores.to_abc import convert_tree

PIECES = {"bach-bwv269": ("bach/bwv269.mxl", 1), "bach-bwv153.1": ("bach/bwv153.1.mxl", 2)}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """What ``python -m scoreqa.corpus`` writes, minus rendering (the page PNGs are placeholders)."""
    root = tmp_path_factory.mktemp("corpus")
    records = []
    for score_id, (relative, pages) in PIECES.items():
        source = Path(music21.__file__).parent / "corpus" / relative
        tree = normalise(parse(source))
        folder = root / "scores" / score_id
        folder.mkdir(parents=True)
        (folder / "score.musicxml").write_text(ET.tostring(tree, encoding="unicode"), encoding="utf-8")
        (folder / "score.abc").write_text(convert_tree(tree, source=str(source)).text, encoding="utf-8")
        for page in range(1, pages + 1):
            Image.new("RGB", (20, 28), "white").save(folder / f"page-{page}.png")
        records.append({"id": score_id, "title": score_id, "composer": "J. S. Bach"})
    (root / "scores.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    (root / "questions.jsonl").write_text("")
    (root / "manifest.json").write_text(json.dumps({"version": BUILD_VERSION, "seed": 0, "limit": 2}))
    return root


def test_only_single_page_scores_are_asked(corpus):
    bench = ReconstructionBench(root=str(corpus), build_limit=2, auto_build=False,
                                templates={"single": "reconstruction/single.v1"})
    split = bench.load(["pages"])
    assert [q.id for q in split.questions] == ["bach-bwv269:reconstruct"]
    assert split.skipped == [{"score_id": "bach-bwv153.1", "title": "bach-bwv153.1", "missing": "2 pages"}]


def test_oracle_reconstructs_every_bar(compose, corpus, tmp_path):
    cfg = compose("evaluate", ["data=reconstruction", f"data.root={corpus}", "data.build_limit=2",
                               "data.auto_build=false", "data.max_pages=2", "model=oracle", "logger=none"])
    metrics = evaluate(cfg, tmp_path)
    assert metrics["valid"] == metrics["bar_count_match"] == metrics["pitch_f1"] == 100.0
    assert metrics["n_invalid"] == 0 and len(metrics["per_score"]) == 2
    assert tuple(metrics["per_score"]["bach-bwv269"]["bars"]) == (24, 24)
