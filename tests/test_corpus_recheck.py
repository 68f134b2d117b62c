"""benchmarks/corpus_recheck.py (music21 alone, from music21's own files) agrees with a stratified sample."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "corpus_recheck.py"


@pytest.mark.slow
def test_independent_recomputation_agrees_on_every_kind(small_corpus: Path, tmp_path: Path):
    spec = importlib.util.spec_from_file_location("corpus_recheck", SCRIPT)
    recheck = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recheck)
    assert recheck.main(["--corpus", str(small_corpus), "--per-kind", "2", "--out", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    kinds = {json.loads(line)["meta"]["kind"] for line in (small_corpus / "questions.jsonl").read_text().splitlines()}
    assert report["kinds"] == len(kinds) >= 20 and not report["not_recomputable"]
    assert report["checked"] == report["sampled"] > len(kinds)
    assert report["agree"] == report["checked"], report["disagreements"]
