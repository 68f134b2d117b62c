"""The pruned decode loop on the real SmolLM2: the same greedy tokens as ``model.generate``, seeded sampling."""

from __future__ import annotations

import pytest
import torch

from scoreqa.backends.hf_decode import decode_pruned

QUESTIONS = ["What is the capital of France?", "What is 2+3? Answer with a number.",
             "Name the clef used for the right hand of a piano score.", "How many beats are in a bar of 3/4?",
             "Write a long essay about Bach's chorales.", "What key has one sharp?"]


@pytest.fixture(scope="module")
def model_and_batch(smollm2):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(smollm2, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(smollm2, dtype=torch.float32).eval()
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
