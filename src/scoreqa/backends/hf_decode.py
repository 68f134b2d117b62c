"""A decode loop for text models in which finished sequences stop costing decode steps.

``model.generate`` keeps every row of a batch alive until the longest answer ends: with answers of 10 and
512 tokens in one batch, the short ones ride along for 500 steps. Here a row leaves the batch (and its KV
cache rows are dropped with ``DynamicCache.batch_select_indices``) as soon as it emits an end token. Greedy
decoding computes exactly what ``generate`` computes (same positions, masks and argmax), so answers do not
change; sampling applies transformers' own temperature / top-k / top-p warpers in ``generate``'s order.

Rows that share a prompt prefix (the questions about one score, see
:mod:`~scoreqa.backends.prefix_groups`) are laid out as ``[prefix][pads][suffix]``: the prefix is prefilled
once at batch size 1, its KV cache repeated to every row, then the suffixes are prefilled together. With
``position_ids = cumsum(mask) - 1`` every real token keeps the position it has without padding, and the pads
(mask 0) are never attended to, so greedy answers stay ``generate``'s. Left padding is the case of an empty prefix.
"""

from __future__ import annotations

import inspect
from typing import Any, Sequence

import torch


def _cache_argument(model: torch.nn.Module) -> str:
    """transformers 5.x renamed ``past_key_values`` to ``cache`` (the old name warns, then goes in 5.40)."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _cache_of(out: Any) -> Any:
    return out["cache"] if "cache" in out else out["past_key_values"]


def _sampler(do_sample: bool, temperature: float, top_k: int, top_p: float):
    if not do_sample:
        return lambda ids, logits: logits.argmax(dim=-1)
    from transformers import LogitsProcessorList, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

    warpers = LogitsProcessorList([TemperatureLogitsWarper(temperature), TopKLogitsWarper(top_k),
                                   TopPLogitsWarper(top_p)])

    def sample(ids: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(warpers(ids, logits), dim=-1)
        return torch.multinomial(probs, num_samples=1).squeeze(1)

    return sample


def pad_between(prompts: Sequence[Sequence[int]], shared: int, pad_token_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``input_ids`` and ``attention_mask`` laid out ``[first shared tokens][pads][rest of the prompt]``."""
    width = max(len(p) for p in prompts)
    rows = [[*p[:shared], *[pad_token_id] * (width - len(p)), *p[shared:]] for p in prompts]
    mask = [[1] * shared + [0] * (width - len(p)) + [1] * (len(p) - shared) for p in prompts]
    return torch.tensor(rows), torch.tensor(mask)


@torch.inference_mode()
def decode_pruned(model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor, *,
                  max_new_tokens: int, eos_token_ids: Sequence[int], shared_prefix: int = 0, do_sample: bool = False,
                  temperature: float = 1.0, top_k: int = 50, top_p: float = 1.0) -> list[list[int]]:
    """New token ids per row of a :func:`pad_between` batch (each ends with its end token, if it emitted one):
    the first ``shared_prefix`` tokens, the same in every row, are prefilled once; 0 = a left-padded batch."""
    pick = _sampler(do_sample, temperature, top_k, top_p)
    eos = torch.tensor(list(eos_token_ids), device=input_ids.device)
    position_ids = attention_mask.long().cumsum(-1) - 1
    position_ids.masked_fill_(attention_mask == 0, 1)
    cache_argument = _cache_argument(model)
    reuse: dict[str, Any] = {}
    if shared_prefix:
        out = model(input_ids=input_ids[:1, :shared_prefix], position_ids=position_ids[:1, :shared_prefix],
                    use_cache=True, logits_to_keep=1)
        _cache_of(out).batch_repeat_interleave(input_ids.shape[0])
        reuse = {cache_argument: _cache_of(out)}
    out = model(input_ids=input_ids[:, shared_prefix:], attention_mask=attention_mask,
                position_ids=position_ids[:, shared_prefix:], use_cache=True, logits_to_keep=1, **reuse)
    cache, logits = _cache_of(out), out.logits[:, -1, :].float()
    sequences = input_ids  # warpers that look at the ids (none of ours do) see each live row's history
    alive = torch.arange(input_ids.shape[0], device=input_ids.device)
    results: list[list[int]] = [[] for _ in range(input_ids.shape[0])]
    for step in range(max_new_tokens):
        tokens = pick(sequences, logits)
        for row, token in zip(alive.tolist(), tokens.tolist()):
            results[row].append(token)
        live = ~torch.isin(tokens, eos)
        if step == max_new_tokens - 1 or not bool(live.any()):
            break
        if not bool(live.all()):
            keep = live.nonzero().squeeze(1)
            cache.batch_select_indices(keep)
            attention_mask, tokens, alive, sequences = (attention_mask[keep], tokens[keep], alive[keep],
                                                        sequences[keep])
        attention_mask = torch.cat([attention_mask, attention_mask.new_ones((attention_mask.shape[0], 1))], dim=1)
        sequences = torch.cat([sequences, tokens[:, None]], dim=1)
        out = model(input_ids=tokens[:, None], attention_mask=attention_mask,
                    position_ids=attention_mask.long().sum(-1, keepdim=True) - 1, use_cache=True,
                    **{cache_argument: cache})
        cache, logits = _cache_of(out), out.logits[:, -1, :].float()
    return results
