"""Reference-overlap metrics for free-text answers (BoYaEval Task 2): BLEU-4, chrF, BERTScore-F1.

BLEU and chrF are sacrebleu's corpus-level scores (0-100). BERTScore-F1 is the mean of
bert-score's per-answer F1 (x100) computed with a configurable model: a hub id on a cluster
(e.g. ``bert-base-chinese``) or a local folder; a local folder needs ``num_layers`` because
bert-score only knows the best layer of the hub models it lists. ``rescale_with_baseline`` maps F1
linearly by bert-score's baseline b, (F1 - b) / (1 - b), so scores can go below zero (BoYaEval's
Table 6 has one); it needs ``lang`` and, for a model bert-score has no baseline for, ``baseline_path``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence


@dataclass(frozen=True)
class BertScoreSpec:
    model: str | None = None  # a hub id or local folder; None: bert-score's default model for ``lang``
    num_layers: int | None = None
    batch_size: int = 16
    device: str | None = None  # None: cuda when available, else cpu
    lang: str | None = None  # e.g. "zh": picks bert-score's default model (and layer) when ``model`` is None
    rescale_with_baseline: bool = False
    baseline_path: str | None = None  # a bert-score baseline file (LAYER,P,R,F); None: bert-score's own for the model


def bleu4(hypotheses: Sequence[str], references: Sequence[str], tokenize: str = "13a") -> float:
    """Corpus BLEU-4 (sacrebleu, one reference per hypothesis)."""
    import sacrebleu

    return float(sacrebleu.corpus_bleu(list(hypotheses), [list(references)], tokenize=tokenize).score)


def chrf(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Corpus chrF (sacrebleu defaults: character 6-grams, beta 2)."""
    import sacrebleu

    return float(sacrebleu.corpus_chrf(list(hypotheses), [list(references)]).score)


def bertscore_f1(hypotheses: Sequence[str], references: Sequence[str], spec: BertScoreSpec) -> float:
    """Mean BERTScore F1 x100, rescaled with the baseline when ``spec.rescale_with_baseline``."""
    if not hypotheses:
        return float("nan")
    from bert_score import score

    kwargs: dict[str, Any] = {"batch_size": spec.batch_size, "verbose": False}
    if spec.model:
        kwargs["model_type"] = spec.model
    if spec.num_layers is not None:
        kwargs["num_layers"] = int(spec.num_layers)
    if spec.device:
        kwargs["device"] = spec.device
    if spec.lang:
        kwargs["lang"] = spec.lang
    if spec.rescale_with_baseline:
        if not spec.lang:
            raise ValueError("BERTScore rescale_with_baseline needs bertscore.lang (bert-score's baselines are per "
                             "language); set it, or rescale_with_baseline=false")
        kwargs["rescale_with_baseline"] = True
        if spec.baseline_path:
            kwargs["baseline_path"] = spec.baseline_path
    _, _, f1 = score(list(hypotheses), list(references), **kwargs)
    return float(f1.mean()) * 100.0


def text_overlap(hypotheses: Sequence[str], references: Sequence[str], *, bleu_tokenize: str = "13a",
                 bertscore: BertScoreSpec | None = None) -> dict[str, float]:
    """BLEU-4, chrF and (when a model is configured) BERTScore-F1 of answers against references."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} answers for {len(references)} references")
    result = {"bleu4": bleu4(hypotheses, references, bleu_tokenize), "chrf": chrf(hypotheses, references)}
    if bertscore is not None and (bertscore.model or bertscore.lang):
        result["bertscore_f1"] = bertscore_f1(hypotheses, references, bertscore)
    return result
