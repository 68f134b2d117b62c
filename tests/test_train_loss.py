"""The lean answer-only loss: which positions are kept, equality with transformers' full-logits loss, and
that the LM head never sees the prompt positions."""

from __future__ import annotations

import pytest
import torch
from peft import get_peft_model

from scoreqa.training.encoding import IGNORE_INDEX
from scoreqa.training.entry import use_gradient_checkpointing
from scoreqa.training.lora import lora_config
from scoreqa.training.loss import answer_loss, positions_to_keep

I = IGNORE_INDEX


def test_positions_to_keep_start_one_before_the_earliest_answer_token_of_the_batch():
    labels = torch.tensor([[I, I, I, I, 7, 8, I],    # answer at 4..5, padded after
                           [I, I, I, I, I, I, 9]])   # answer at 6
    assert positions_to_keep(labels) == 7 - 4 + 1
    with pytest.raises(ValueError, match="no answer tokens"):
        positions_to_keep(torch.full((1, 5), I))


@pytest.mark.parametrize(("setting", "longest", "expected"), [("auto", 2047, False), ("auto", 2048, True),
                                                              (True, 10, True), (False, 10**5, False)])
def test_gradient_checkpointing_auto_switches_on_for_long_inputs(setting, longest, expected):
    assert use_gradient_checkpointing(setting, longest, 2048) is expected


@pytest.fixture(scope="module")
def model(tiny_qwen3):
    from transformers import AutoModelForCausalLM

    torch.manual_seed(0)
    base = AutoModelForCausalLM.from_pretrained(tiny_qwen3, dtype=torch.float32)
    lora = {"r": 4, "alpha": 8, "dropout": 0.0, "language_modules": ["q_proj", "v_proj", "down_proj"]}
    peft_model = get_peft_model(base, lora_config(lora, adapt_vision=False))
    for name, parameter in peft_model.named_parameters():  # lora_B starts at zero: give the adapter an effect
        if "lora_B" in name:
            torch.nn.init.normal_(parameter, std=0.05)
    return peft_model.train()


def _batch(vocab: int) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(3, vocab, (2, 40), generator=generator)
    labels = torch.full_like(ids, I)
    labels[0, 30:36] = ids[0, 30:36]   # prompt 0..29, answer 30..35, right padding 36..39
    labels[1, 33:40] = ids[1, 33:40]
    mask = torch.ones_like(ids)
    mask[0, 36:] = 0
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def test_lean_loss_and_gradients_equal_the_full_logits_reference(model):
    batch = _batch(model.config.vocab_size)
    model.zero_grad()
    reference = model(**batch, use_cache=False).loss
    reference.backward()
    expected = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
    model.zero_grad()
    lean = answer_loss(model, batch)
    lean.backward()
    torch.testing.assert_close(lean, reference, rtol=1e-6, atol=1e-6)
    for name, parameter in model.named_parameters():
        if parameter.requires_grad:
            torch.testing.assert_close(parameter.grad, expected[name], rtol=1e-4, atol=1e-7)


def test_lm_head_runs_on_the_answer_positions_only(model):
    batch = _batch(model.config.vocab_size)
    seen: list[tuple[int, ...]] = []
    handle = model.get_output_embeddings().register_forward_hook(lambda m, i, o: seen.append(tuple(o.shape)))
    try:
        answer_loss(model, batch)
    finally:
        handle.remove()
    assert seen == [(2, 40 - 30 + 1, model.config.vocab_size)]
