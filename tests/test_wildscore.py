"""WildScore on a fixture in the release's layout (data.csv + images/): prompts with and without the
image, option parsing, per-category/subcategory/difficulty accuracy and the image-text delta."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from PIL import Image

from scoreqa.data.selection import MissingScoreInput
from scoreqa.data.wildscore import WildScoreBench, split_options
from scoreqa.evaluation.entry import evaluate
from scoreqa.evaluation.scoring import QuestionRecord
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder

TEMPLATES = {"single": "wildscore/image.v1", "single.text": "wildscore/text.v1"}
CATEGORIES = {"Harmony & Tonality": ["Chord Progressions", "Modal Mixture", "Modulation"],
              "Rhythm & Meter": ["Metric Structure", "Rhythmic Patterns"],
              "Texture": ["Homophonic", "Polyphonic", "Orchestral"],
              "Expression & Performance": ["Dynamics & Articulation", "Technique"],
              "Form": ["Phrase Structure", "Sectional Form"]}
N_ITEMS = 120


def write_release(root: Path, n_items: int = N_ITEMS) -> Path:
    """data.csv and images/ as the Hugging Face release lays them out (csv + imagefolder configs)."""
    (root / "images").mkdir(parents=True)
    pairs = [(c, s) for c, subs in CATEGORIES.items() for s in subs]
    with (root / "data.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "image", "question", "options", "answer", "category", "subcategory", "difficulty"])
        for i in range(n_items):
            Image.new("RGB", (16, 8), (i % 255, 0, 0)).save(root / "images" / f"score_{i}.png")
            category, subcategory = pairs[i % len(pairs)]
            options = [f"option {k} of {i}" for k in range(4)]
            writer.writerow([f"ws{i}", f"score_{i}.png", f"What is in bar {i}?", str(options), "ABCD"[i % 4],
                             category, subcategory, ["easy", "medium", "hard"][i % 3]])
    return root


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return write_release(tmp_path_factory.mktemp("WildScore"))


def test_loads_every_item_with_and_without_image(release):
    bench = WildScoreBench(root=str(release), templates=TEMPLATES)
    split = bench.load(["pages"])
    assert len(split.questions) == 2 * N_ITEMS
    image_q = next(q for q in split.questions if q.id == "ws5:image")
    text_q = next(q for q in split.questions if q.id == "ws5:text")
    assert split.scores["ws5"].page_images == (release / "images" / "score_5.png",)
    assert split.scores["ws5:text"].page_images == ()
    assert image_q.reference == text_q.reference == "B" and image_q.choices[1] == "option 1 of 5"
    assert image_q.meta["subcategory"] == "Homophonic" and text_q.meta["template"] == "text"


def test_prompts_show_the_image_only_in_image_mode(release):
    split = WildScoreBench(root=str(release), templates=TEMPLATES, limit=1).load(["pages"])
    requests = PromptBuilder(TEMPLATES, ModalitySpec("pdf", "PDF", ("pages",)), "single").requests(split)
    image, text = (r.messages[-1]["content"] for r in requests)
    assert [p["type"] for p in image] == ["text", "image", "text"] and image[1]["image"].endswith("score_0.png")
    assert image[2]["text"] == ("\nQuestion: What is in bar 0?\nOptions:\nA. option 0 of 0\nB. option 1 of 0\n"
                                "C. option 2 of 0\nD. option 3 of 0\nAnswer with the letter of the correct option only.")
    assert all(p["type"] == "text" for p in text) and "not shown" in text[0]["text"]


def test_metrics_per_category_subcategory_difficulty_and_delta(release):
    bench = WildScoreBench(root=str(release), templates=TEMPLATES, limit=12)
    split = bench.load(["pages"])
    outputs = {}
    for q in split.questions:  # image mode always right; text mode right only on Harmony, unparseable elsewhere
        right = q.meta["mode"] == "image" or q.meta["category"] == "Harmony & Tonality"
        outputs[q.id] = f"Answer: {q.reference}" if right else "I cannot tell"
    records = [QuestionRecord(q.id, q.score_id, 0, q.text, q.reference, outputs[q.id], outputs[q.id])
               for q in split.questions]
    metrics = bench.metrics(records).details
    image, text = metrics["modes"]["image"], metrics["modes"]["text"]
    assert image["accuracy"] == 100.0 and text["accuracy"] == pytest.approx(100 * 3 / 12, abs=0.01)
    assert text["n_unparseable"] == 9 and len(image["subcategories"]) == 12 and len(image["categories"]) == 5
    assert text["categories"]["Harmony & Tonality"] == 100.0 and text["categories"]["Form"] == 0.0
    assert set(image["difficulty"]) == {"easy", "medium", "hard"}
    assert metrics["image_minus_text"]["overall"] == 75.0
    assert metrics["image_minus_text"]["categories"]["Texture"] == 100.0


def test_oracle_and_random_through_the_entry(compose, release, tmp_path):
    base = ["data=wildscore", f"data.root={release}", "logger=none"]
    oracle = evaluate(compose("evaluate", base + ["model=oracle"]), tmp_path / "oracle")
    assert oracle["modes"]["image"]["accuracy"] == oracle["modes"]["text"]["accuracy"] == 100.0
    chance = evaluate(compose("evaluate", base + ["model=random"]), tmp_path / "random")
    for mode in ("image", "text"):  # 120 answers each: four binomial sds around 1/4
        assert abs(chance["modes"][mode]["accuracy"] / 100 - 0.25) < 4 * math.sqrt(0.25 * 0.75 / N_ITEMS)


def test_missing_inputs_fail_naming_what_was_expected(tmp_path, release):
    with pytest.raises(FileNotFoundError, match="GM77/WildScore"):
        WildScoreBench(root=str(tmp_path / "none")).load(["pages"])
    (tmp_path / "data.csv").write_text("id,question,answer\nx,Q?,A\n")
    with pytest.raises(FileNotFoundError, match="image folder"):
        WildScoreBench(root=str(tmp_path)).load(["pages"])
    with pytest.raises(KeyError, match="no options column"):
        WildScoreBench(root=str(tmp_path), modes=["text"]).load(["pages"])
    broken = write_release(tmp_path / "broken", 3)
    (broken / "images" / "score_1.png").unlink()
    with pytest.raises(MissingScoreInput, match="score_1.png"):
        WildScoreBench(root=str(broken)).load(["pages"])
    assert len(WildScoreBench(root=str(broken), skip_missing=True).load(["pages"]).skipped) == 1


def test_option_formats():
    assert split_options("['a', 'b']") == ["a", "b"]
    assert split_options('["a", "b"]') == ["a", "b"]
    assert split_options("A. first\nB) second\n(C) third") == ["first", "second", "third"]


# WildScore, Appendix A, Prompts 1 and 2: system prompts verbatim; the user prompts' printed layout with slots.
PAPER_SYSTEM_IMAGE = ("You are an expert in symbolic music-score question answering. You will be provided with an image "
                      "of a musical excerpt, a question about it, and several labeled options. Analyze the image and "
                      "text, then choose the correct answer. Respond with **ONLY** the option letter.")
PAPER_SYSTEM_TEXT = ("You are an expert in symbolic music-score question answering. You will be provided with a question "
                     "about a musical excerpt and several labeled options. Choose the correct answer based solely on "
                     "the text. Respond with **ONLY** the option letter.")
# Appendix A's printed example ("<image>" / "Question: Which measure best represents the 6/8 time signature?" /
# "Options:" / "- A. Grouped in two dotted-quarter notes" / "- B. Grouped as three quarter notes"), after the image
PAPER_USER_AFTER_IMAGE = ("\n\nQuestion: Which measure best represents the 6/8 time signature?\n\nOptions:\n\n"
                          "- A. Grouped in two dotted-quarter notes\n- B. Grouped as three quarter notes")


def test_v2_prompts_are_appendix_a_prompts_1_and_2(tmp_path):
    from scoreqa.data.records import BenchmarkSplit, Question, Score

    templates = {"system": "wildscore/system_image.v2", "system.text": "wildscore/system_text.v2",
                 "single": "wildscore/user_image.v2", "single.text": "wildscore/user_text.v2"}
    options = ("Grouped in two dotted-quarter notes", "Grouped as three quarter notes")
    meta = {"option_labels": "AB"}
    text = "Which measure best represents the 6/8 time signature?"
    split = BenchmarkSplit("wildscore", "all", {"s": Score("s", "s", page_images=(tmp_path / "p.png",)),
                                                "s:text": Score("s:text", "s")},
                           [Question("s:image", "s", 0, text, "A", options, {**meta, "mode": "image"}),
                            Question("s:text", "s:text", 0, text, "A", options, {**meta, "template": "text"})])
    image, text_only = PromptBuilder(templates, ModalitySpec("pdf", "PDF", ("pages",)), "single").requests(split)
    assert image.messages[0] == {"role": "system", "content": PAPER_SYSTEM_IMAGE}
    assert image.messages[1]["content"] == [{"type": "image", "image": str(tmp_path / "p.png")},
                                            {"type": "text", "text": PAPER_USER_AFTER_IMAGE}]
    assert text_only.messages[0] == {"role": "system", "content": PAPER_SYSTEM_TEXT}
    assert text_only.messages[1]["content"] == [{"type": "text", "text": PAPER_USER_AFTER_IMAGE.lstrip("\n")}]


def test_v1_prompts_stay_selectable_in_one_override(compose, release):
    v1 = "data.templates={system:null,system.text:null,single:wildscore/image.v1,single.text:wildscore/text.v1}"
    templates = dict(compose("evaluate", ["data=wildscore", v1]).data.templates)
    split = WildScoreBench(root=str(release), templates=templates, limit=1).load(["pages"])
    image, text = PromptBuilder(templates, ModalitySpec("pdf", "PDF", ("pages",)), "single").requests(split)
    assert len(image.messages) == len(text.messages) == 1  # v1 sends no system prompt
    assert image.messages[0]["content"][-1]["text"].endswith("Answer with the letter of the correct option only.")
