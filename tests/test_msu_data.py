"""MSU-Bench loading from both public releases, the split, limits and missing-file handling."""

from __future__ import annotations

import io
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from scoreqa.data.msu import MSUBench, score_id_from_link
from scoreqa.data.selection import MissingScoreInput
from scoreqa.data.split import split_scores


@pytest.fixture(scope="module")
def release(data_root: Path):
    return MSUBench(tables_dir=str(data_root / "msu"), split="all").read_all()


def test_all_1800_questions_load_with_450_per_level_and_12_per_score(release):
    scores, questions = release
    assert len(scores) == 150 and len(questions) == 1800
    assert Counter(q.level for q in questions) == {1: 450, 2: 450, 3: 450, 4: 450}
    per_score = Counter(q.score_id for q in questions)
    assert set(per_score.values()) == {12}
    assert all(Counter(q.level for q in questions if q.score_id == s) == {1: 3, 2: 3, 3: 3, 4: 3} for s in per_score)
    assert len({q.id for q in questions}) == 1800


def test_blank_reference_answers_are_none(release):
    _, questions = release
    blank = [q for q in questions if q.reference is None]
    assert Counter(q.level for q in blank) == {1: 11, 2: 7, 3: 21}


def test_score_metadata_joins_on_the_link(release):
    scores, _ = release
    assert scores["10894498"].composer and scores["10894498"].title


@pytest.mark.parametrize("link", ["https://musescore.com/user/101036/scores/10894498",
                                  "https://musescore.com/user/101036/scores/10894498/",
                                  "musescore.com/classicman/scores/10894498?share=copy"])
def test_score_id_is_the_musescore_number(link):
    assert score_id_from_link(link) == "10894498"


def test_score_id_rejects_links_without_a_score_number():
    with pytest.raises(ValueError, match="scores/<number>"):
        score_id_from_link("https://musescore.com/user/101036")


def test_split_is_90_30_30_disjoint_and_order_independent(release):
    _, questions = release
    ids = list(dict.fromkeys(q.score_id for q in questions))
    split = split_scores(ids, seed=0)
    assert [len(split[k]) for k in ("train", "val", "test")] == [90, 30, 30]
    assert set(split["train"]) | set(split["val"]) | set(split["test"]) == set(ids)
    assert not set(split["train"]) & set(split["test"]) and not set(split["val"]) & set(split["test"])
    assert split_scores(list(reversed(ids)), seed=0) == split
    assert split_scores(ids, seed=1) != split


def test_split_is_identical_in_another_process_with_another_hash_seed(release):
    _, questions = release
    ids = list(dict.fromkeys(q.score_id for q in questions))
    code = ("import sys, json; from scoreqa.data.split import split_scores; "
            "print(json.dumps(split_scores(sys.stdin.read().split(), seed=0)['test']))")
    out = subprocess.run([sys.executable, "-c", code], input=" ".join(ids), capture_output=True, text=True,
                         check=True, env={"PYTHONHASHSEED": "123", "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == str(split_scores(ids, seed=0)["test"]).replace("'", '"')


def test_limit_keeps_whole_scores_of_the_split(data_root):
    bench = MSUBench(tables_dir=str(data_root / "msu"), split="test", limit=2)
    split = bench.load(needs=["title"])
    assert len(split.scores) == 2 and len(split.questions) == 24
    test_ids = split_scores(bench.all_score_ids(), seed=0)["test"]
    assert set(split.scores) <= set(test_ids)


def test_missing_abc_fails_naming_score_and_file_unless_skipped(data_root, tmp_path):
    bench = MSUBench(tables_dir=str(data_root / "msu"), score_dir=str(tmp_path), split="test", limit=3)
    first = bench.load(needs=["title"]).questions[0].score_id
    (tmp_path / f"{first}.abc").write_text("X:1\nT:t\nK:C\nCDEF|\n")
    second = list(bench.load(needs=["title"]).scores)[1]
    with pytest.raises(MissingScoreInput, match=rf"score '{second}'.*{second}\.abc.*data.skip_missing=true"):
        bench.load(needs=["abc"])
    bench.skip_missing = True
    split = bench.load(needs=["abc"])
    assert list(split.scores) == [first]
    assert [s["score_id"] for s in split.skipped] == list(bench.load(needs=["title"]).scores)[1:]
    assert split.scores[first].abc.startswith("X:1")


def _png_bytes(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def _write_hf_release(root: Path, flat: bool = True, drop: str | None = None) -> None:
    abc = "X:1\nT:Gnomus\nC:Modest Mussorgsky\nK:Gb\nCDEF|\n"
    rows = [("song_a", 1, "What is the title of the piece?", "Gnomus"), ("song_a", 2, "In bar 1?", ""),
            ("song_b", 1, "What is the initial key?", "Eb minor")]
    if flat:
        columns = {"song_id": [r[0] for r in rows], "abc_notation": [abc] * 3,
                   "level": pa.array([r[1] for r in rows], pa.int32()), "question": [r[2] for r in rows],
                   "answer": [r[3] for r in rows]}
        if drop:
            columns.pop(drop)
        (root / "flat").mkdir(parents=True)
        pq.write_table(pa.table(columns), root / "flat" / "test-00000-of-00001.parquet")
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    nested = pa.table({
        "song_id": ["song_a", "song_b"], "abc_notation": [abc, abc], "pdf": pa.array([b"%PDF-1.4 a", None], pa.binary()),
        "images": pa.array([[{"bytes": _png_bytes("white"), "path": None}, {"bytes": _png_bytes("black"), "path": None}],
                            []], pa.list_(image)),
        "questions": pa.array([{"level": [1, 2], "question": [rows[0][2], rows[1][2]], "answer": ["Gnomus", ""]},
                               {"level": [1], "question": [rows[2][2]], "answer": ["Eb minor"]}]),
    })
    (root / "nested").mkdir(parents=True)
    pq.write_table(nested, root / "nested" / "test-00000-of-00001.parquet")


@pytest.mark.parametrize("with_flat", [True, False])
def test_hugging_face_release_layout_loads_with_pages(tmp_path, with_flat):
    _write_hf_release(tmp_path / "MSU-Bench", flat=with_flat)
    bench = MSUBench(root=str(tmp_path / "MSU-Bench"), cache_dir=str(tmp_path / "cache"), split="all",
                     skip_missing=True)
    split = bench.load(needs=["pages"])
    assert list(split.scores) == ["song_a"] and [s["score_id"] for s in split.skipped] == ["song_b"]
    score = split.scores["song_a"]
    assert score.title == "Gnomus" and score.composer == "Modest Mussorgsky"
    assert [p.name for p in score.page_images] == ["page-1.png", "page-2.png"]
    assert Image.open(score.page_images[1]).getpixel((0, 0)) == (0, 0, 0)
    assert score.pdf_path.read_bytes() == b"%PDF-1.4 a"
    assert [(q.id, q.reference) for q in split.questions] == [("song_a:L1.1", "Gnomus"), ("song_a:L2.1", None)]


def test_hugging_face_release_missing_column_is_named(tmp_path):
    _write_hf_release(tmp_path / "MSU-Bench", drop="question")
    with pytest.raises(KeyError, match="no column 'question'"):
        MSUBench(root=str(tmp_path / "MSU-Bench"), cache_dir=str(tmp_path / "c"), split="all").load(needs=["abc"])


def test_missing_release_folder_says_what_to_do(tmp_path):
    with pytest.raises(FileNotFoundError, match="data.root"):
        MSUBench(root=str(tmp_path), split="all").load(needs=["abc"])
