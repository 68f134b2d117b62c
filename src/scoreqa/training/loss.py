"""The answer-only causal-LM loss, with the LM head run on the answer positions alone.

The answer sits at the end of every example, so the logits of the prompt are never needed: asking the
model for the last ``k`` positions only (``logits_to_keep``) avoids a (sequence x vocabulary) logits
tensor, the memory peak of a long ABC prompt (8k tokens x 49k vocabulary x 4 bytes = 1.6 GB, again for
its gradient and its float32 upcast).
"""

from __future__ import annotations

from typing import Any, Mapping

import torch

from scoreqa.training.encoding import IGNORE_INDEX


def positions_to_keep(labels: torch.Tensor) -> int:
    """How many trailing positions carry the logits the loss needs: from the one before the first label on."""
    labelled = (labels != IGNORE_INDEX).any(dim=0).nonzero()
    if len(labelled) == 0:
        raise ValueError("a training batch has no answer tokens: every label is ignored")
    first = int(labelled[0])
    return labels.shape[1] - first + 1


def answer_loss(model: torch.nn.Module, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """Mean cross-entropy over the answer tokens, as transformers' causal-LM loss computes it on full logits."""
    inputs: dict[str, Any] = {k: v for k, v in batch.items() if k != "labels"}
    labels = batch["labels"]
    keep = positions_to_keep(labels)
    logits = model(**inputs, use_cache=False, logits_to_keep=keep).logits  # (batch, keep, vocabulary)
    targets = labels[:, labels.shape[1] - keep + 1:]
    return torch.nn.functional.cross_entropy(logits[:, :-1].float().reshape(-1, logits.shape[-1]),
                                             targets.reshape(-1), ignore_index=IGNORE_INDEX)
