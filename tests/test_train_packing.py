"""Packed training (a score's questions in one sequence): the layout, the mask, and loss and gradients equal to
training the questions one by one, on the tiny Qwen3 and on the real SmolLM2 (a Llama)."""

from __future__ import annotations

import pytest
import torch
from peft import get_peft_model

from scoreqa.models.spec import ModelSpec
from scoreqa.training.encoding import IGNORE_INDEX
from scoreqa.training.entry import use_packing
from scoreqa.training.lora import lora_config
from scoreqa.training.loss import answer_loss
from scoreqa.training.packing import pack, packed_answer_loss, packed_attention_mask

I = IGNORE_INDEX


def _example(ids: list[int], n_answer: int) -> dict[str, torch.Tensor]:
    tensor = torch.tensor(ids)
    labels = torch.full_like(tensor, I)
    labels[-n_answer:] = tensor[-n_answer:]
    return {"input_ids": tensor, "labels": labels, "attention_mask": torch.ones_like(tensor)}


def test_pack_shares_the_prefix_and_continues_each_question_from_it():
    first = _example([1, 2, 3, 4, 50, 51, 90, 91], n_answer=2)   # prefix 1..4, question 50 51, answer 90 91
    second = _example([1, 2, 3, 4, 60, 92], n_answer=1)
    packed = pack([first, second])
    assert packed["input_ids"].tolist() == [[1, 2, 3, 4, 50, 51, 90, 91, 60, 92]]
    assert packed["position_ids"].tolist() == [[0, 1, 2, 3, 4, 5, 6, 7, 4, 5]]
    assert packed["segment_ids"].tolist() == [[0, 0, 0, 0, 1, 1, 1, 1, 2, 2]]
    assert packed["labels"].tolist() == [[I, I, I, I, I, I, 90, 91, I, 92]]


def test_the_prefix_stops_before_the_last_prompt_token_of_the_shortest_prompt():
    # identical prompts: the prefix keeps one prompt token back, which predicts the first answer token
    packed = pack([_example([1, 2, 3, 7], n_answer=1), _example([1, 2, 3, 8], n_answer=1)])
    assert packed["segment_ids"].tolist() == [[0, 0, 1, 1, 2, 2]]
    assert packed["labels"].tolist() == [[I, I, I, 7, I, 8]]


def test_mask_lets_a_question_see_the_prefix_and_itself_only():
    allowed = packed_attention_mask(torch.tensor([[0, 0, 1, 1, 2]]), torch.float32)[0, 0] == 0
    assert allowed.int().tolist() == [[1, 0, 0, 0, 0],
                                      [1, 1, 0, 0, 0],
                                      [1, 1, 1, 0, 0],
                                      [1, 1, 1, 1, 0],
                                      [1, 1, 0, 0, 1]]


def _lora(base: torch.nn.Module) -> torch.nn.Module:
    lora = {"r": 4, "alpha": 8, "dropout": 0.0, "language_modules": ["q_proj", "v_proj", "down_proj"]}
    model = get_peft_model(base, lora_config(lora, adapt_vision=False))
    torch.manual_seed(0)
    for name, parameter in model.named_parameters():  # lora_B starts at zero: give the adapter an effect
        if "lora_B" in name:
            torch.nn.init.normal_(parameter, std=0.05)
    return model.train()


def _score_examples(vocab: int, prefix_length: int) -> list[dict[str, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    prefix = torch.randint(3, vocab, (prefix_length,), generator=generator).tolist()
    return [_example(prefix + torch.randint(3, vocab, (q + a,), generator=generator).tolist(), n_answer=a)
            for q, a in ((5, 3), (9, 4), (2, 6))]


def _loss_and_gradients(model: torch.nn.Module, loss: torch.Tensor) -> tuple[float, dict[str, torch.Tensor]]:
    loss.backward()
    gradients = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
    model.zero_grad()
    return float(loss), gradients


def _assert_packed_equals_one_by_one(model: torch.nn.Module, examples: list[dict[str, torch.Tensor]]) -> None:
    model.zero_grad()
    separate = sum(answer_loss(model, {k: v[None] for k, v in e.items()}) for e in examples) / len(examples)
    reference, reference_gradients = _loss_and_gradients(model, separate)
    packed, packed_gradients = _loss_and_gradients(model, packed_answer_loss(model, pack(examples)))
    assert packed == pytest.approx(reference, rel=1e-5)
    for name, gradient in reference_gradients.items():  # float32 sums in another order: relative to the norm
        assert float((packed_gradients[name] - gradient).norm()) <= 1e-4 * float(gradient.norm()), name


def test_packed_loss_and_gradients_equal_the_questions_one_by_one_tiny(tiny_qwen3):
    from transformers import AutoModelForCausalLM

    model = _lora(AutoModelForCausalLM.from_pretrained(tiny_qwen3, dtype=torch.float32))
    _assert_packed_equals_one_by_one(model, _score_examples(model.config.vocab_size, prefix_length=40))


def test_packed_loss_and_gradients_equal_the_questions_one_by_one_smollm2(smollm2):
    from transformers import AutoModelForCausalLM

    model = _lora(AutoModelForCausalLM.from_pretrained(smollm2, dtype=torch.float32))
    _assert_packed_equals_one_by_one(model, _score_examples(model.config.vocab_size, prefix_length=200))


@pytest.mark.parametrize(("setting", "kind", "mode", "expected"), [
    ("auto", "causal_lm", "single", True), ("auto", "causal_lm", "batched", False),
    ("auto", "vision_language", "single", False), (False, "causal_lm", "single", False)])
def test_packing_auto_is_on_for_text_models_asking_one_question(setting, kind, mode, expected):
    assert use_packing(setting, ModelSpec(name="m", name_or_path="m", kind=kind), mode) is expected


def test_forcing_packing_where_it_cannot_apply_is_refused():
    with pytest.raises(ValueError, match="training.pack_questions=true needs a text model and prompt=single"):
        use_packing(True, ModelSpec(name="vl", name_or_path="vl", kind="vision_language"), "single")
