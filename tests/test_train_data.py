"""Training data: the backbone's split, the evaluation's exact prompt tokens, answer-only labels, length filter."""

from __future__ import annotations

import json

import pytest
import torch
from hydra.utils import instantiate

from scoreqa.backends.hf import HFBackend
from scoreqa.data.msu import MSUBench
from scoreqa.data.split import split_scores
from scoreqa.models.loading import load_text_processor
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.answers import parse_numbered_answers
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder
from scoreqa.training.datamodule import prepare_training_data
from scoreqa.training.encoding import IGNORE_INDEX, ExampleEncoder, collate

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def setup(compose, tiny_qwen3, data_root):
    cfg = compose("train", [f"paths.data_root={data_root}", "data=msu", "modality=title", "model=tiny-qwen3"])
    spec = ModelSpec.from_config(cfg.model)
    encoder = ExampleEncoder(load_text_processor(spec), spec.chat_kwargs(), vision=False)
    backend = HFBackend(model=dict(cfg.model), sampling={"do_sample": False}, batch_size=1, device="cpu")
    return cfg, encoder, backend


_PREPARED: dict = {}


def _data(cfg, encoder, mode="single", max_tokens=None):
    """Prepared once per (mode, limit) for the module: reading the tables dominates."""
    key = (mode, max_tokens)
    if key not in _PREPARED:
        _PREPARED[key] = prepare_training_data(cfg.data, ModalitySpec.from_config(cfg.modality), mode, encoder,
                                               max_tokens)
    return _PREPARED[key]


def test_msu_pool_is_the_backbone_train_val_split_without_unreferenced_questions(setup, data_root):
    cfg, encoder, _ = setup
    data = _data(cfg, encoder)
    bench = MSUBench(tables_dir=str(data_root / "msu"), split="all")
    scores, questions = bench.read_all()
    assignment = split_scores([q.score_id for q in questions], seed=0)
    for split, n_scores in (("train", 90), ("val", 30)):
        examples = data.examples[split]
        assert {e.score_id for e in examples} == set(assignment[split]) and len(assignment[split]) == n_scores
        in_split = [q for q in questions if q.score_id in set(assignment[split])]
        assert [e.request.question_ids[0] for e in examples] == [q.id for q in in_split if q.has_reference]
        assert data.dropped_unreferenced[split] == [q.id for q in in_split if not q.has_reference]
        assert [e.target for e in examples] == [q.reference for q in in_split if q.has_reference]
    assert len(data.examples["train"]) == 1056 and len(data.examples["val"]) == 351
    assert len(data.dropped_unreferenced["train"]) + len(data.dropped_unreferenced["val"]) == 33
    test_ids = set(assignment["test"])
    assert not test_ids & {e.score_id for s in ("train", "val") for e in data.examples[s]}


@pytest.mark.parametrize("mode", ["single", "batched"])
def test_training_prompt_tokens_equal_evaluation_prompt_tokens(setup, mode):
    cfg, encoder, backend = setup
    data = _data(cfg, encoder, mode)
    bench = instantiate(cfg.data, split="train", limit=3)
    split = bench.load(["title"])
    builder = PromptBuilder(bench.templates, ModalitySpec.from_config(cfg.modality), mode)
    evaluation = {r.key: r for r in builder.requests(split)}
    checked = 0
    for example in data.examples["train"]:
        if example.score_id not in split.scores:
            continue
        request = evaluation[example.key]
        if set(request.question_ids) != set(example.request.question_ids):
            continue  # a batched score with an unreferenced question: its training prompt lists fewer questions
        assert example.request == request
        prompt_text = backend.prompt_text(request)
        assert encoder.prompt_text(example.request) == prompt_text
        evaluation_ids = backend._encode([request])["input_ids"][0]
        features = encoder.encode(example)
        assert torch.equal(features["input_ids"][: len(evaluation_ids)], evaluation_ids)
        checked += 1
    assert checked >= (3 if mode == "single" else 2)


def test_labels_cover_exactly_the_answer_and_end_of_turn(setup):
    cfg, encoder, backend = setup
    example = _data(cfg, encoder).examples["train"][0]
    features = encoder.encode(example)
    n_prompt = len(backend._encode([example.request])["input_ids"][0])
    answer = encoder.tokenizer(example.target, add_special_tokens=False)["input_ids"]
    ids, labels = features["input_ids"], features["labels"]
    assert len(ids) == n_prompt + len(answer) + 1
    assert (labels[:n_prompt] == IGNORE_INDEX).all()
    assert labels[n_prompt:].tolist() == answer + [encoder.tokenizer.convert_tokens_to_ids("<|im_end|>")]
    assert torch.equal(labels[n_prompt:], ids[n_prompt:])
    assert encoder.tokenizer.decode(ids[n_prompt:]) == example.target + "<|im_end|>"
    assert encoder.count_tokens(example) == len(ids)


def test_batched_targets_number_only_referenced_questions_and_parse_back(setup):
    cfg, encoder, _ = setup
    data = _data(cfg, encoder, "batched")
    bench = instantiate(cfg.data, split="train")
    by_score = bench.load(["title"]).questions_by_score()
    examples = {e.score_id: e for e in data.examples["train"]}
    assert len(examples) == 90
    gappy = [s for s, qs in by_score.items() if any(not q.has_reference for q in qs)]
    assert gappy
    for score_id in gappy[:3] + [s for s in by_score if s not in gappy][:2]:
        referenced = [q for q in by_score[score_id] if q.has_reference]
        example = examples[score_id]
        assert example.request.question_ids == tuple(q.id for q in referenced)
        numbered = "\n".join(f"{i}. {q.text}" for i, q in enumerate(referenced, start=1))
        assert numbered in example.request.messages[-1]["content"]
        assert parse_numbered_answers(example.target, len(referenced)) == [q.reference for q in referenced]


def test_collate_pads_right_with_ignored_labels(setup):
    cfg, encoder, _ = setup
    examples = _data(cfg, encoder).examples["train"][:2]
    features = [encoder.encode(e) for e in examples]
    batch = collate(features, pad_token_id=encoder.tokenizer.pad_token_id)
    lengths = [len(f["input_ids"]) for f in features]
    assert batch["input_ids"].shape == (2, max(lengths))
    for row, n in enumerate(lengths):
        assert torch.equal(batch["input_ids"][row, :n], features[row]["input_ids"])
        assert (batch["labels"][row, n:] == IGNORE_INDEX).all() and (batch["attention_mask"][row, n:] == 0).all()
        assert (batch["attention_mask"][row, :n] == 1).all()


def test_max_tokens_drops_whole_long_scores_from_train_and_val_only(setup, tmp_path):
    cfg, encoder, _ = setup
    full = _data(cfg, encoder)
    longest = {}
    for split in ("train", "val"):
        for example in full.examples[split]:
            longest[example.score_id] = max(longest.get(example.score_id, 0), encoder.count_tokens(example))
    limit = sorted(longest.values())[len(longest) // 2]
    data = _data(cfg, encoder, max_tokens=limit)
    dropped = {d["score_id"]: d for d in data.dropped_too_long}
    assert set(dropped) == {s for s, n in longest.items() if n > limit} and dropped
    assert all(d["tokens"] == longest[s] for s, d in dropped.items())
    for split in ("train", "val"):
        kept = [e for e in full.examples[split] if e.score_id not in dropped]
        assert data.examples[split] == kept
        assert all(d["split"] == split for d in dropped.values() if d["score_id"] in {e.score_id for e in
                                                                                     full.examples[split]})
    json.dumps(data.summary())  # goes to train_summary.json as is
