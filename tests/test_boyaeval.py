"""BoYaEval on a fixture in the release's layout: one folder per task, jsonl or parquet with image
paths or embedded image bytes, Task 3 options as images, zero- and few-shot prompts, task metrics."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from scoreqa.data.boyaeval import BoYaEvalBench
from scoreqa.evaluation.entry import evaluate
from scoreqa.evaluation.scoring import QuestionRecord

TEMPLATES = {"task1": "boyaeval/task1.v1", "task2": "boyaeval/task2.v1", "task3": "boyaeval/task3.v1"}
NOTATIONS = ["jianzipu", "gongchepu", "suzipu", "lülüpu", "banpu"]
N = 40


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
        lines = []
        for i in range(N):
            (root / f"task{task}" / "images" / f"{i}.png").write_bytes(_png(i))
            row = {"id": f"{task}-{i}", "image": f"images/{i}.png", "question": f"Explain technique {i}.",
                   "answer": f"左手 按 第{i}徽" if task == 2 else "ABCD"[i % 4], "notation": NOTATIONS[i % 5]}
            if task == 3:
                for k in range(4):
                    (root / "task3" / "images" / f"{i}_opt{k}.png").write_bytes(_png(k))
                row["options"] = [f"images/{i}_opt{k}.png" for k in range(4)]
            lines.append(json.dumps(row, ensure_ascii=False))
        (root / f"task{task}" / "test.jsonl").write_text("\n".join(lines), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return write_release(tmp_path_factory.mktemp("BoYaEval"))


def bench(release: Path, tmp: Path, **kwargs) -> BoYaEvalBench:
    return BoYaEvalBench(root=str(release), cache_dir=str(tmp / "cache"), templates=TEMPLATES, **kwargs)


def test_loads_three_tasks_with_embedded_and_referenced_images(release, tmp_path):
    split = bench(release, tmp_path).load(["pages"])
    assert [sum(q.level == t for q in split.questions) for t in (1, 2, 3)] == [N, N, N]
    t1 = next(q for q in split.questions if q.level == 1)
    image = split.scores[t1.score_id].page_images[0]
    assert image.parent == tmp_path / "cache" / "images" and image.read_bytes() == _png(0)
    t3 = next(q for q in split.questions if q.level == 3)
    assert t3.choices[2] == str(release / "task3" / "images" / "0_opt2.png") and t3.reference == "A"
    t2 = next(q for q in split.questions if q.level == 2)
    assert t2.reference == "左手 按 第0徽" and t2.meta["notation"] == "jianzipu"


def test_zero_shot_task3_prompt_shows_option_images(release, tmp_path):
    b = bench(release, tmp_path, tasks=[3], limit=1)
    split = b.load(["pages"])
    content = b.prompt_builder(None, "single").requests(split)[0].messages[0]["content"]
    kinds = [p["type"] for p in content]
    assert kinds == ["image", "text", "image", "text", "image", "text", "image", "text", "image", "text"]
    assert content[1]["text"].endswith("Question: Explain technique 0.\nOptions:\nA.")
    assert content[-1]["text"] == "\nAnswer with the letter of the correct option only."


def test_few_shot_uses_other_items_with_answers(release, tmp_path):
    b = bench(release, tmp_path, tasks=[2, 3], fewshot={"task2": 3, "task3": 2})
    split = b.load(["pages"])
    builder = b.prompt_builder(None, "single")
    question = next(q for q in split.questions if q.level == 2)
    examples = builder.exemplars(question)
    assert len(examples) == 3 and question not in examples
    assert {e.meta["notation"] for e in examples} == {question.meta["notation"]}
    content = builder.request_for(question, split).messages[0]["content"]
    texts = "".join(p["text"] for p in content if p["type"] == "text")
    assert texts.count("Answer: 左手") == 3 and "Now answer the following question." in texts
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
