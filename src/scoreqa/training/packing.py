"""A score's questions packed into one training sequence, so the score is read once per step, not once per question.

In single-question mode every example of a score is the same long prompt (system prompt + the score as ABC)
followed by its own question and answer. Packed, the sequence is ``[shared prefix][rest 1][rest 2]...``: each
rest attends to the prefix and to itself, never to another rest (a 4D attention mask), and its position ids
continue from the prefix. Every answer token therefore sees exactly the context it sees as a separate example,
and the loss is the mean over questions of each question's mean answer-token loss: the gradient of batch size 1
accumulated over the score's questions, for the cost of one pass over the score. On SmolLM2 with 1-5k-token
scores that is ~8x fewer tokens per epoch. Text models only: a vision-language model's image tokens and
multimodal positions live in the prompt and are not split here.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import torch

from scoreqa.backends.prefix_groups import common_prefix
from scoreqa.training.encoding import IGNORE_INDEX
from scoreqa.training.loss import positions_to_keep


def first_answer_position(labels: torch.Tensor) -> int:
    labelled = (labels != IGNORE_INDEX).nonzero()
    if len(labelled) == 0:
        raise ValueError("a training example has no answer tokens: every label is ignored")
    return int(labelled[0])


def pack(features: Sequence[Mapping[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """One packed sequence (batch of one) from encoded examples (``ExampleEncoder.encode``) of one score.

    The prefix stops before every example's last prompt token, so each rest starts with a prompt token (its
    label ignored) and the logit of its first answer token comes from its own rest.
    """
    if not features:
        raise ValueError("nothing to pack: a score with no examples")
    limit = min(first_answer_position(f["labels"]) for f in features) - 1
    first = features[0]["input_ids"].tolist()
    prefix = min([limit, *(common_prefix(first, f["input_ids"].tolist()) for f in features[1:])])
    ids, labels, positions, segments = [features[0]["input_ids"][:prefix]], [], [torch.arange(prefix)], []
    labels.append(torch.full((prefix,), IGNORE_INDEX, dtype=features[0]["labels"].dtype))
    segments.append(torch.zeros(prefix, dtype=torch.long))
    for number, feature in enumerate(features, start=1):
        rest = len(feature["input_ids"]) - prefix
        ids.append(feature["input_ids"][prefix:])
        labels.append(feature["labels"][prefix:])
        positions.append(torch.arange(prefix, prefix + rest))
        segments.append(torch.full((rest,), number, dtype=torch.long))
    return {"input_ids": torch.cat(ids)[None], "labels": torch.cat(labels)[None],
            "position_ids": torch.cat(positions)[None], "segment_ids": torch.cat(segments)[None]}


def packed_attention_mask(segment_ids: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Additive 4D mask (batch, 1, query, key): causal, and a rest sees the prefix (segment 0) and itself."""
    query, key = segment_ids[:, :, None], segment_ids[:, None, :]
    length = segment_ids.shape[1]
    causal = torch.ones(length, length, dtype=torch.bool, device=segment_ids.device).tril()
    allowed = causal & ((key == 0) | (key == query))
    mask = torch.zeros(allowed.shape, dtype=dtype, device=segment_ids.device)
    return mask.masked_fill_(~allowed, torch.finfo(dtype).min)[:, None]


def packed_answer_loss(model: torch.nn.Module, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """Mean over the packed questions of each one's mean answer-token cross-entropy."""
    labels, segments = batch["labels"], batch["segment_ids"]
    dtype = next(p.dtype for p in model.parameters() if p.is_floating_point())
    keep = positions_to_keep(labels)
    logits = model(input_ids=batch["input_ids"], position_ids=batch["position_ids"],
                   attention_mask=packed_attention_mask(segments, dtype), use_cache=False,
                   logits_to_keep=keep).logits
    start = labels.shape[1] - keep + 1
    targets, owners = labels[:, start:].reshape(-1), segments[:, start:].reshape(-1)
    losses = torch.nn.functional.cross_entropy(logits[:, :-1].float().reshape(-1, logits.shape[-1]), targets,
                                               ignore_index=IGNORE_INDEX, reduction="none")
    answered = targets != IGNORE_INDEX
    n_segments = int(segments.max()) + 1
    totals = losses.new_zeros(n_segments).index_add(0, owners[answered], losses[answered])
    counts = torch.bincount(owners[answered], minlength=n_segments).to(losses.dtype)
    present = counts > 0
    return (totals[present] / counts[present]).mean()


def n_packed_questions(batch: Mapping[str, Any]) -> int:
    return int(batch["segment_ids"].max())
