"""The pruned decode loop on the real SmolLM2: the same greedy tokens as ``model.generate`` (left-padded and
shared-prefix batches), seeded sampling."""

from __future__ import annotations

import random

import pytest
import torch

from scoreqa.backends.hf_decode import decode_pruned, pad_between
from scoreqa.backends.prefix_groups import plan_batches

QUESTIONS = ["What is the capital of France?", "What is 2+3? Answer with a number.",
             "Name the clef used for the right hand of a piano score.", "How many beats are in a bar of 3/4?",
             "Write a long essay about Bach's chorales.", "What key has one sharp?"]


@pytest.fixture(scope="module")
def model_and_tokenizer(smollm2):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(smollm2, padding_side="left")
    return AutoModelForCausalLM.from_pretrained(smollm2, dtype=torch.float32).eval(), tokenizer


@pytest.fixture(scope="module")
def model_and_batch(model_and_tokenizer):
    model, tokenizer = model_and_tokenizer
    texts = [tokenizer.apply_chat_template([{"role": "user", "content": q}], tokenize=False,
                                           add_generation_prompt=True) for q in QUESTIONS]
    batch = tokenizer(texts, padding=True, return_tensors="pt", add_special_tokens=False)
    return model, tokenizer, batch


def test_greedy_tokens_equal_generate_while_finished_rows_leave(model_and_batch):
    model, tokenizer, batch = model_and_batch
    with torch.inference_mode():
        reference = model.generate(**batch, max_new_tokens=40, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    expected = [[t for t in row.tolist() if t != tokenizer.pad_token_id]
                for row in reference[:, batch["input_ids"].shape[1]:]]
    got = decode_pruned(model, batch["input_ids"], batch["attention_mask"], max_new_tokens=40,
                        eos_token_ids=[tokenizer.eos_token_id])
    # generate pads finished rows with the pad token, which for SmolLM2 is its end token <|im_end|> (id 2)
    assert [row[:len(e)] for row, e in zip(got, expected)] == expected
    lengths = sorted(len(row) for row in got)
    assert lengths[0] < 40 and lengths[-1] == 40  # short answers ended early, the essay ran to the budget
    assert "Paris" in tokenizer.decode(got[0])


def test_sampling_is_seeded_and_varies_with_the_seed(model_and_batch):
    model, _, batch = model_and_batch
    kwargs = dict(max_new_tokens=16, eos_token_ids=[2], do_sample=True, temperature=0.95, top_k=50, top_p=0.7)

    def sample(seed):
        torch.manual_seed(seed)
        return decode_pruned(model, batch["input_ids"], batch["attention_mask"], **kwargs)

    assert sample(1) == sample(1)
    assert sample(1) != sample(2)


SCORE_QUESTIONS = ["What is the initial key?", "What is the time signature? Answer with a fraction only.",
                   "How many bars does the piece have, which note does it end on, and what is its title? Answer "
                   "in one sentence."]


def _abc(seed: int, bars: int) -> str:
    """A made-up tune in ABC notation (a few hundred tokens), different for each seed."""
    rng = random.Random(seed)
    body = " |".join(" ".join(rng.choice("CDEFGABcdefg") + rng.choice(["", "2", "/2"]) for _ in range(4))
                     for _ in range(bars))
    return f"X:1\nT:Tune number {seed}\nM:3/4\nL:1/8\nK:{rng.choice('DGAF')}\n{body} |]"


def test_shared_prefix_batches_give_generates_greedy_tokens(model_and_tokenizer):
    model, tokenizer = model_and_tokenizer
    system = {"role": "system", "content": "You are an expert musicologist. Answer the question about the score."}
    prompts = []
    for seed, bars in ((1, 30), (2, 50)):
        for question in SCORE_QUESTIONS:
            user = {"role": "user", "content": f"Here is a piece of music in ABC notation:\n{_abc(seed, bars)}\n"
                                               f"Question:\n{question}"}
            text = tokenizer.apply_chat_template([system, user], tokenize=False, add_generation_prompt=True)
            prompts.append(tokenizer(text, add_special_tokens=False)["input_ids"])
    assert 300 <= min(map(len, prompts)) and max(map(len, prompts)) <= 700
    batches = plan_batches(prompts, batch_size=8, max_batch_tokens=100_000, max_new_tokens=24, min_shared=256)
    assert sorted(sorted(b.rows) for b in batches) == [[0, 1, 2], [3, 4, 5]]  # one batch per score
    for batch in batches:
        rows = [prompts[i] for i in batch.rows]
        assert batch.shared > 250 and len({tuple(p[:batch.shared]) for p in rows}) == 1
        assert len({len(p) for p in rows}) == 3  # suffixes of different lengths: pads between prefix and suffix
        input_ids, attention_mask = pad_between(rows, batch.shared, tokenizer.pad_token_id)
        assert input_ids.shape[1] == max(map(len, rows)) and attention_mask.sum().item() == sum(map(len, rows))
        got = decode_pruned(model, input_ids, attention_mask, max_new_tokens=24,
                            eos_token_ids=[tokenizer.eos_token_id], shared_prefix=batch.shared)
        with torch.inference_mode():  # each prompt alone: no padding at all
            expected = [model.generate(torch.tensor([p]), attention_mask=torch.ones(1, len(p), dtype=torch.long),
                                       max_new_tokens=24, do_sample=False,
                                       pad_token_id=tokenizer.pad_token_id)[0, len(p):].tolist() for p in rows]
        assert got == expected
