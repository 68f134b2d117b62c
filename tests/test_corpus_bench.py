"""``data=corpus``: MSU's schema from the built corpus, the ``analysis`` prompt mode, an end-to-end run."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

from scoreqa.corpus.bench import CorpusBench
from scoreqa.corpus.formats import spn
from scoreqa.data.records import Question, Score
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder

ABC = ModalitySpec("abc", "ABC notation", ("abc",))
REPO = Path(__file__).resolve().parents[1]


def test_corpus_has_msu_schema_and_every_modality(small_corpus: Path):
    bench = CorpusBench(root=str(small_corpus), build_limit=5, split="all")
    split = bench.load(needs=["abc", "pages", "title"])
    assert len(split.scores) == 5 and not split.skipped
    lines = (small_corpus / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(split.questions) == len(lines)
    for score in split.scores.values():
        assert score.abc.startswith("X:1\nT:") and score.pdf_path.exists() and score.musicxml_path.exists()
        assert [p.name for p in score.page_images] == [f"page-{i}.png" for i in range(1, len(score.page_images) + 1)]
    assert {q.level for q in split.questions} >= {1, 2, 4}
    assert all(q.id.startswith(f"{q.score_id}:L{q.level}.") and q.reference for q in split.questions)
    assert bench.all_score_ids() == json.loads((small_corpus / "manifest.json").read_text())["score_ids"]
    test = CorpusBench(root=str(small_corpus), build_limit=5, split="test").load(needs=["abc"])
    train = CorpusBench(root=str(small_corpus), build_limit=5, split="train").load(needs=["abc"])
    assert len(test.scores) == 1 and len(train.scores) == 3 and not set(test.scores) & set(train.scores)


def test_never_builds_into_a_folder_that_is_not_a_corpus(tmp_path: Path):
    (tmp_path / "flat").mkdir()                       # e.g. data.root left pointing at MSU-Bench
    with pytest.raises(FileExistsError, match="refusing to build.*data=msu"):
        CorpusBench(root=str(tmp_path), build_limit=1).load(needs=["abc"])
    assert [p.name for p in tmp_path.iterdir()] == ["flat"]


def test_missing_build_names_the_command(tmp_path: Path):
    bench = CorpusBench(root=str(tmp_path / "none"), build_limit=7, auto_build=False)
    with pytest.raises(FileNotFoundError, match=r"python -m scoreqa.corpus --out .*none --limit 7"):
        bench.load(needs=["abc"])


def test_config_builds_the_benchmark_in_the_cache(compose, small_corpus: Path):
    cfg = compose("evaluate", ["data=corpus", "data.build_limit=5", "data.max_abc_chars=null", "prompt=analysis",
                               "modality=abc"])
    bench = instantiate(cfg.data, _convert_="all")
    assert Path(bench.root) == small_corpus and cfg.prompt.mode == "analysis"
    assert bench.load(needs=ModalitySpec.from_config(cfg.modality).inputs).questions


def test_analysis_prompt_holds_abc_and_a_fact_sheet_from_the_musicxml(small_corpus: Path):
    split = CorpusBench(root=str(small_corpus), build_limit=5, split="all").load(needs=["abc"])
    question = split.questions[0]
    score = split.scores[question.score_id]
    templates = dict(OmegaConf.load(REPO / "conf" / "data" / "corpus.yaml").templates)
    content = PromptBuilder(templates, ABC, "analysis").request_for(score, [question]).messages[-1]["content"]
    assert content.startswith("Here is a piece of music in ABC notation:\n" + score.abc)
    assert content.endswith(f"Question:\n{question.text}")
    sheet = content[content.index("Bar facts"): content.index("\nQuestion:")].splitlines()
    root = ET.parse(score.musicxml_path).getroot()
    measures = root.find("part").findall("measure")
    assert len(sheet) == 1 + len(measures)
    # one bar recomputed from the MusicXML elements: label, time signature, lowest/highest written pitch
    index = len(measures) // 2
    label = measures[index].get("number")
    pitches = [(n.findtext("pitch/step"), float(n.findtext("pitch/alter") or 0), int(n.findtext("pitch/octave")))
               for part in root.findall("part") for n in part.findall("measure")[index].iter("note")
               if n.find("pitch") is not None]
    midi = lambda p: 12 * p[2] + "C D EF G A B".index(p[0]) + p[1]  # noqa: E731
    time = root.find("part/measure/attributes/time")
    fields = sheet[1 + index].split(" | ")
    assert fields[0] == label and fields[1] == f"{time.findtext('beats')}/{time.findtext('beat-type')}"
    assert fields[3] == f"{spn(*min(pitches, key=midi))}–{spn(*max(pitches, key=midi))}"
    single = PromptBuilder(templates, ABC, "single").request_for(score, [question]).messages[-1]["content"]
    batched = PromptBuilder(templates, ABC, "batched").request_for(score, [question]).messages[-1]["content"]
    assert "Bar facts" not in single and "Bar facts" not in batched and single in content.replace(
        content[content.index("\nBar facts"): content.index("\nQuestion:")], "")


def test_analysis_mode_without_musicxml_says_what_to_do():
    templates = {"single": "msu/user.v1", "analysis": "msu/analysis.v1"}
    score = Score(id="123", title="Some MSU score", abc="X:1\nK:C\nC|")
    question = Question(id="123:L1.1", score_id="123", level=1, text="Who is the composer?", reference="x")
    with pytest.raises(ValueError, match=r"analysis needs the MusicXML of score '123'.*data=corpus"):
        PromptBuilder(templates, ABC, "analysis").request_for(score, [question])


@pytest.mark.slow
def test_evaluate_runs_on_the_corpus_with_the_tiny_model(compose, small_corpus: Path, tiny_qwen3, tmp_path: Path):
    from scoreqa.evaluation.entry import evaluate

    cfg = compose("evaluate", ["data=corpus", "data.build_limit=5", "data.max_abc_chars=null", "data.split=all",
                               "data.limit=2",
                               "modality=abc", "prompt=analysis", "sampling.max_new_tokens=4", "logger=none",
                               "bootstrap_resamples=100"])
    metrics = evaluate(cfg, tmp_path)
    expected = [json.loads(line) for line in (small_corpus / "questions.jsonl").read_text().splitlines()]
    first_two = json.loads((small_corpus / "manifest.json").read_text())["score_ids"][:2]
    assert metrics["n_questions"] == sum(q["score_id"] in first_two for q in expected)
    assert metrics["n_new_generations"] == metrics["n_questions"]


@pytest.mark.slow
def test_default_build_fits_the_window_and_is_read_back(compose, tmp_path: Path):
    """data=corpus keeps pieces of <= max_abc_chars ABC characters; build_limit=null reads the manifest's limit."""
    root = tmp_path / "corpus"
    built = instantiate(compose("train", ["data=corpus", f"data.root={root}", "data.build_limit=4",
                                         "data.split=train"]).data)
    train_split = built.load(needs=["abc"])
    manifest = json.loads((root / "manifest.json").read_text())
    assert (manifest["limit"], manifest["max_abc_chars"], manifest["scores"]) == (4, 8000, 4)
    # catalog order: bwv1.6, bwv269, beach (7,984 characters), beethoven op. 132 (163,388), ciconia
    assert manifest["score_ids"] == ["bach-bwv1.6", "bach-bwv269", "beach-prayer_of_a_tired_child",
                                     "ciconia-quod_jactatur"]
    assert manifest["too_long"] == ["beethoven-opus132"]
    for score_id in manifest["score_ids"]:
        assert len((root / "scores" / score_id / "score.abc").read_text(encoding="utf-8")) <= 8000
    again = instantiate(compose("evaluate", ["data=corpus", f"data.root={root}", "data.split=train"]).data)
    assert again.build_limit is None and again.load(needs=["abc"]).questions == train_split.questions
    assert json.loads((root / "manifest.json").read_text()) == manifest          # read, not rebuilt
    smaller = CorpusBench(root=str(root), build_limit=2, max_abc_chars=8000, split="all").load(needs=["abc"])
    assert sorted(smaller.scores) == ["bach-bwv1.6", "bach-bwv269"]              # an explicit limit rebuilds


def test_large_corpus_has_its_own_folder(compose, cache_dir: Path):
    from scoreqa.corpus import DEFAULT_MAX_ABC_CHARS

    cfg = compose("train", ["data=corpus_large"])
    assert (cfg.data.build_limit, cfg.data.max_abc_chars) == (400, 8000) == (400, DEFAULT_MAX_ABC_CHARS)
    assert Path(cfg.data.root) == cache_dir / "corpus_large" and cfg.data.templates.single == "msu/user.v1"
