"""A decode loop for text models in which finished sequences stop costing decode steps.

``model.generate`` keeps every row of a batch alive until the longest answer ends: with answers of 10 and
512 tokens in one batch, the short ones ride along for 500 steps. Here a row leaves the batch (and its KV
cache rows are dropped with ``DynamicCache.batch_select_indices``) as soon as it emits an end token. Greedy
decoding computes exactly what ``generate`` computes (same positions, masks and argmax), so answers do not
change; sampling applies transformers' own temperature / top-k / top-p warpers in ``generate``'s order.
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


@torch.inference_mode()
def decode_pruned(model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor, *,
                  max_new_tokens: int, eos_token_ids: Sequence[int], do_sample: bool = False,
                  temperature: float = 1.0, top_k: int = 50, top_p: float = 1.0) -> list[list[int]]:
    """New token ids per row of a left-padded batch (each ends with its end token, if it emitted one)."""
    pick = _sampler(do_sample, temperature, top_k, top_p)
    eos = torch.tensor(list(eos_token_ids), device=input_ids.device)
    position_ids = attention_mask.long().cumsum(-1) - 1
    position_ids.masked_fill_(attention_mask == 0, 1)
    out = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=True,
                logits_to_keep=1)
    cache_argument = _cache_argument(model)
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
