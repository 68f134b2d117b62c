"""BoYaEval on a fixture in the release's layout: one folder per task, jsonl or parquet with image
paths or embedded image bytes, Task 3 options as images, zero- and few-shot prompts, task metrics."""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from scoreqa.data.boyaeval import BoYaEvalBench
from scoreqa.evaluation.entry import evaluate
from scoreqa.evaluation.scoring import QuestionRecord

TEMPLATES = {"task1": "boyaeval/task1.v1", "task2": "boyaeval/task2.v1", "task3": "boyaeval/task3.v1"}
NOTATIONS = ["jianzipu", "gongchepu", "suzipu", "lülüpu", "banpu"]
TASK2_NOTATIONS = ["Jianzipu", "Gongchepu", "Lülüpu"]  # the paper's three Task 2 tracks, as the release may spell them
N = 40
V2 = {"task1": "boyaeval/task1.v2", "task2.jianzipu": "boyaeval/task2_jianzipu.v2",
      "task2.gongchepu": "boyaeval/task2_recognition.v2", "task2.lulupu": "boyaeval/task2_recognition.v2",
      "task3": "boyaeval/task3.v2"}


def _png(color: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (color, 0, 0)).save(buffer, format="PNG")
    return buffer.getvalue()


def write_release(root: Path) -> Path:
    for task in (1, 2, 3):
        (root / f"task{task}" / "images").mkdir(parents=True)
    rows1 = [{"id": i, "image": {"bytes": _png(i), "path": f"t1_{i}.png"}, "question": f"Which pitch is symbol {i}?",
              "options": [f"pitch {k}" for k in range(4)], "answer": "ABCD"[i % 4], "notation": NOTATIONS[i % 5]}
             for i in range(N)]
    pd.DataFrame(rows1).to_parquet(root / "task1" / "test-00000-of-00001.parquet")
    for task in (2, 3):
        for name, first in (("test", 0), ("fewshot", 1000)):  # the exemplar pool is a separate file
            lines = []
            for i in range(first, first + (N if name == "test" else 9)):
                (root / f"task{task}" / "images" / f"{i}.png").write_bytes(_png(i % 255))
                row = {"id": f"{task}-{i}", "image": f"images/{i}.png", "question": f"Explain technique {i}.",
                       "answer": f"左手 按 第{i}徽" if task == 2 else "ABCD"[i % 4],
                       "notation": TASK2_NOTATIONS[i % 3] if task == 2 else NOTATIONS[i % 5]}
                if task == 3:
                    for k in range(4):
                        (root / "task3" / "images" / f"{i}_opt{k}.png").write_bytes(_png(k))
                    row["options"] = [f"images/{i}_opt{k}.png" for k in range(4)]
                    row["target_notation"] = "numbered notation"
                if name == "fewshot":
                    row["reason"] = f"Worked reasoning {i}: string 7 is the tonic, so the melody rises a fifth."
                lines.append(json.dumps(row, ensure_ascii=False))
            (root / f"task{task}" / f"{name}.jsonl").write_text("\n".join(lines), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return write_release(tmp_path_factory.mktemp("BoYaEval"))


def bench(release: Path, tmp: Path, **kwargs) -> BoYaEvalBench:
    return BoYaEvalBench(root=str(release), cache_dir=str(tmp / "cache"), **{"templates": TEMPLATES, **kwargs})


def test_loads_three_tasks_with_embedded_and_referenced_images(release, tmp_path):
    split = bench(release, tmp_path).load(["pages"])
    assert [sum(q.level == t for q in split.questions) for t in (1, 2, 3)] == [N, N, N]
    t1 = next(q for q in split.questions if q.level == 1)
    image = split.scores[t1.score_id].page_images[0]
    assert image.parent == tmp_path / "cache" / "images" and image.read_bytes() == _png(0)
    t3 = next(q for q in split.questions if q.level == 3)
    assert t3.choices[2] == str(release / "task3" / "images" / "0_opt2.png") and t3.reference == "A"
    t2 = next(q for q in split.questions if q.level == 2)
    assert t2.reference == "左手 按 第0徽" and t2.meta["notation"] == "Jianzipu"


def test_zero_shot_task3_prompt_shows_option_images(release, tmp_path):
    b = bench(release, tmp_path, tasks=[3], limit=1)
    split = b.load(["pages"])
    content = b.prompt_builder(None, "single").requests(split)[0].messages[0]["content"]
    kinds = [p["type"] for p in content]
    assert kinds == ["image", "text", "image", "text", "image", "text", "image", "text", "image", "text"]
    assert content[1]["text"].endswith("Question: Explain technique 0.\nOptions:\nA.")
    assert content[-1]["text"] == "\nAnswer with the letter of the correct option only."


def test_few_shot_draws_worked_exemplars_from_the_pool_never_the_test_items(release, tmp_path):
    b = bench(release, tmp_path, tasks=[2, 3], fewshot={"task2": 3, "task3": 2})
    split = b.load(["pages"])
    builder = b.prompt_builder(None, "single")
    question = next(q for q in split.questions if q.level == 2)
    examples = builder.exemplars(question)
    assert len(examples) == 3 and all(":fewshot:" in e.id for e in examples)
    assert {e.meta["notation_key"] for e in examples} == {question.meta["notation_key"]} == {"jianzipu"}
    content = builder.request_for(question, split).messages[0]["content"]
    texts = "".join(p["text"] for p in content if p["type"] == "text")
    assert texts.count("Answer: 左手") == 3 and "Now answer the following question." in texts
    # with the paper's templates, exemplars answer in the template's format, Task 3's with worked reasoning
    v2 = bench(release, tmp_path, tasks=[2, 3], fewshot={"task2": 3, "task3": 2}, templates=V2)
    v2_split = v2.load(["pages"])
    v2_builder = v2.prompt_builder(None, "single")
    texts = "".join(p["text"] for p in v2_builder.request_for(v2_split.questions[0], v2_split).messages[0]["content"]
                    if p["type"] == "text")
    assert texts.count("Interpretation: 左手") == 3
    t3 = next(q for q in v2_split.questions if q.level == 3)
    texts = "".join(p["text"] for p in v2_builder.request_for(t3, v2_split).messages[0]["content"] if p["type"] == "text")
    assert texts.count("\nReason: Worked reasoning 10") == 2 and len(re.findall(r"\nAnswer: [ABCD]\n", texts)) == 2
    assert sum(p["type"] == "image" for p in content) == 4
    assert builder.exemplars(question) == examples  # seeded per question
    t3 = next(q for q in split.questions if q.level == 3)
    assert sum(p["type"] == "image" for p in builder.request_for(t3, split).messages[0]["content"]) == 3 * 5


def test_metrics_per_task(release, tmp_path):
    b = bench(release, tmp_path, limit=10, bertscore={})
    split = b.load(["pages"])
    records = []
    for q in split.questions:
        output = {1: q.reference, 2: q.reference, 3: "I am not sure"}[q.level]
        records.append(QuestionRecord(q.id, q.score_id, q.level, q.text, q.reference, output, output))
    metrics = b.metrics(records).details["tasks"]
    assert metrics["task1"]["accuracy"] == 100.0 and metrics["task1"]["notations"]["banpu"] == 100.0
    assert metrics["task3"]["accuracy"] == 0.0 and metrics["task3"]["n_unparseable"] == 10
    assert metrics["task2"]["bleu4"] == pytest.approx(100.0) and metrics["task2"]["chrf"] == pytest.approx(100.0)


def test_oracle_and_random_through_the_entry(compose, release, tmp_path):
    base = ["data=boyaeval", f"data.root={release}", "logger=none", "data.bertscore.lang=null"]
    oracle = evaluate(compose("evaluate", base + ["model=oracle"]), tmp_path / "oracle")["tasks"]
    assert oracle["task1"]["accuracy"] == oracle["task3"]["accuracy"] == 100.0
    assert oracle["task2"]["bleu4"] == pytest.approx(100.0)
    chance = evaluate(compose("evaluate", base + ["model=random", "data.tasks=[1,3]"]), tmp_path / "random")["tasks"]
    pooled = (chance["task1"]["accuracy"] + chance["task3"]["accuracy"]) / 200
    assert abs(pooled - 0.25) < 4 * math.sqrt(0.25 * 0.75 / (2 * N))


def test_missing_folder_task_and_field_fail_clearly(tmp_path, release):
    with pytest.raises(FileNotFoundError, match="MYTH-Lab/BoYaEval"):
        bench(tmp_path / "none", tmp_path).load(["pages"])
    (tmp_path / "rel" / "task1").mkdir(parents=True)
    (tmp_path / "rel" / "task1" / "test.jsonl").write_text(json.dumps({"image": "x.png", "question": "?"}))
    with pytest.raises(FileNotFoundError, match=r"task\(s\) \[2, 3\]"):
        bench(tmp_path / "rel", tmp_path).load(["pages"])
    with pytest.raises(FileNotFoundError, match="image 'x.png' not found"):
        bench(tmp_path / "rel", tmp_path, tasks=[1]).load(["pages"])
    (tmp_path / "rel" / "task1" / "x.png").write_bytes(_png(1))
    with pytest.raises(KeyError, match="no field 'answer'"):
        bench(tmp_path / "rel", tmp_path, tasks=[1]).load(["pages"])


def test_few_shot_without_a_pool_or_without_reasoning_fails(release, tmp_path):
    import shutil

    bare = shutil.copytree(release, tmp_path / "bare")
    (bare / "task3" / "fewshot.jsonl").unlink()
    with pytest.raises(FileNotFoundError, match="outside the test items"):
        bench(bare, tmp_path, tasks=[3], fewshot={"task3": 2}).load(["pages"])
    (bare / "task3" / "fewshot.jsonl").write_text(
        (release / "task3" / "fewshot.jsonl").read_text(encoding="utf-8").replace('"reason"', '"note"'), encoding="utf-8")
    b = bench(bare, tmp_path, tasks=[3], fewshot={"task3": 2}, templates=V2)
    split = b.load(["pages"])
    with pytest.raises(ValueError, match="no worked reasoning"):
        b.prompt_builder(None, "single").request_for(split.questions[0], split)


# BoYaEval Appendix E, the templates' text (E.1; E.2 Jianzipu and Gongchepu/Lülüpu; E.3), with the slots filled
PAPER_E1 = ("Please select one answer from options A/B/C/D based on the provided image. Output one sentence explanation "
            "and the final answer in the following format:\nReason: <your explanation>\nAnswer: <option letter>")
PAPER_E2_JIANZIPU = ("Please interpret the Jianzipu (reduced-character notation) shown in the image and translate it "
                     "into concrete performance fingering instructions.\n\nOutput format: Interpretation: "
                     "<translation result>")
PAPER_E2_LULUPU = ("Please recognize the Lülüpu column in the image and output the notation symbols in sequential "
                   "order.\n\nOutput format: Notation: <recognized symbols>")
PAPER_E3 = ("The image shows suzipu. Please select the most likely corresponding numbered notation from the following "
            "options.")
PAPER_E3_FORMAT = "Output format:\n\nReason: <your explanation>\n\nAnswer: <option letter>"


def test_v2_prompts_are_appendix_e(release, tmp_path):
    b = bench(release, tmp_path, templates=V2, limit=6)
    split = b.load(["pages"])
    builder = b.prompt_builder(None, "single")

    def content(task: int, notation: str) -> list[dict]:
        question = next(q for q in split.questions if q.level == task and q.meta["notation_key"] == notation)
        return builder.request_for(question, split).messages[0]["content"]

    t1 = content(1, "jianzipu")
    assert t1[0]["type"] == "image" and t1[1]["text"] == (
        "Which pitch is symbol 0?\nA. pitch 0\nB. pitch 1\nC. pitch 2\nD. pitch 3\n" + PAPER_E1)
    assert content(2, "jianzipu")[1] == {"type": "text", "text": PAPER_E2_JIANZIPU}
    assert content(2, "lulupu")[1] == {"type": "text", "text": PAPER_E2_LULUPU}
    t3 = content(3, "suzipu")
    assert t3[1]["text"] == PAPER_E3 + "\nA." and t3[-1]["text"] == "\n" + PAPER_E3_FORMAT
    assert [p["type"] for p in t3] == ["image", "text"] + ["image", "text"] * 4


def test_task2_reported_per_track_and_notation_as_the_paper_does(release, tmp_path):
    b = bench(release, tmp_path, tasks=[2], limit=9, bertscore={})
    split = b.load(["pages"])
    records = []
    for q in split.questions:  # recognition answered right (with the E.2 label), translation answered wrong
        output = f"Notation: {q.reference}" if q.meta["notation_key"] != "jianzipu" else "不知道"
        records.append(QuestionRecord(q.id, q.score_id, q.level, q.text, q.reference, output, output))
    scores = b.metrics(records)
    task2 = scores.details["tasks"]["task2"]
    assert scores.groups["text_overlap_by_track_and_notation"]["task2/tracks/recognition/bleu4"].value == \
        pytest.approx(100.0)
    assert task2["tracks"]["recognition"]["bleu4"] == pytest.approx(100.0) and task2["tracks"]["recognition"]["n"] == 6
    assert task2["tracks"]["translation"]["bleu4"] == pytest.approx(0.0) and task2["tracks"]["translation"]["n"] == 3
    assert set(task2["notations"]) == {"gongchepu", "jianzipu", "lulupu"}
    assert task2["notations"]["lulupu"]["chrf"] == pytest.approx(100.0) and task2["n"] == 9


def test_v1_prompts_stay_selectable_in_one_override(compose, release, tmp_path):
    v1 = ("data.templates={task1:boyaeval/task1.v1,task2:boyaeval/task2.v1,task3:boyaeval/task3.v1,"
          "task2.jianzipu:null,task2.gongchepu:null,task2.lulupu:null}")
    templates = compose("evaluate", ["data=boyaeval", v1]).data.templates
    b = bench(release, tmp_path, tasks=[2], limit=3, templates=dict(templates))
    split = b.load(["pages"])
    texts = [b.prompt_builder(None, "single").request_for(q, split).messages[0]["content"][1]["text"]
             for q in split.questions]
    assert all(t.endswith("Answer concisely with the translation only.") for t in texts)
