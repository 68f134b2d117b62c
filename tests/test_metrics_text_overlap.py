"""Task 2 text metrics: BLEU-4/chrF are sacrebleu's; BERTScore-F1 runs bert-score on a tiny local BERT
(random weights, tokenizer trained here) and equals a direct computation of greedy cosine matching."""

from __future__ import annotations

from pathlib import Path

import pytest
import sacrebleu
import torch

from scoreqa.metrics.text_overlap import BertScoreSpec, bleu4, chrf, text_overlap

HYPS = ["先勾宫弦 再抹商弦", "right hand plucks the third string outward", "散音 七徽"]
REFS = ["先勾宫弦 后抹商弦", "the right hand plucks the third string inward", "散音 七徽"]


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import BertConfig, BertModel, BertTokenizerFast

    out = tmp_path_factory.mktemp("tiny-bert")
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(handle_chinese_chars=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.train_from_iterator(HYPS + REFS, trainers.WordPieceTrainer(
        vocab_size=200, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    fast = BertTokenizerFast(tokenizer_object=tokenizer, model_max_length=64)
    fast.save_pretrained(out)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(fast), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    BertModel(config).save_pretrained(out)
    return out


def test_bleu_and_chrf_are_sacrebleus():
    assert bleu4(HYPS, REFS, "zh") == pytest.approx(sacrebleu.corpus_bleu(HYPS, [REFS], tokenize="zh").score)
    assert chrf(HYPS, REFS) == pytest.approx(sacrebleu.corpus_chrf(HYPS, [REFS]).score)
    assert bleu4(REFS, REFS, "zh") == pytest.approx(100.0)


def _direct_f1(model_dir: Path, hyp: str, ref: str) -> float:
    from transformers import AutoModel, AutoTokenizer

    tokenizer, model = AutoTokenizer.from_pretrained(model_dir), AutoModel.from_pretrained(model_dir).eval()

    def embed(text: str) -> torch.Tensor:
        ids = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            hidden = model(**ids, output_hidden_states=True).hidden_states[2][0]  # output of layer 2
        return torch.nn.functional.normalize(hidden, dim=-1)

    # bert-score matches every token against all tokens of the other side ([CLS]/[SEP] included)
    # and averages over the tokens between [CLS] and [SEP]
    similarity = embed(hyp) @ embed(ref).T
    precision = similarity[1:-1].max(dim=1).values.mean()
    recall = similarity[:, 1:-1].max(dim=0).values.mean()
    return float(2 * precision * recall / (precision + recall))


def test_bertscore_on_a_tiny_local_model_equals_direct_matching(tiny_bert):
    spec = BertScoreSpec(model=str(tiny_bert), num_layers=2, device="cpu")
    scores = text_overlap(HYPS, REFS, bleu_tokenize="zh", bertscore=spec)
    expected = sum(_direct_f1(tiny_bert, h, r) for h, r in zip(HYPS, REFS)) / len(HYPS) * 100
    assert scores["bertscore_f1"] == pytest.approx(expected, abs=1e-3)
    assert text_overlap(REFS, REFS, bertscore=spec)["bertscore_f1"] == pytest.approx(100.0, abs=1e-3)
    assert set(scores) == {"bleu4", "chrf", "bertscore_f1"}


def test_rescaling_with_a_baseline_maps_f1_linearly_and_can_go_negative(tiny_bert, tmp_path):
    """(F1 - b) / (1 - b) with the baseline row of the model's layer: BoYaEval's Table 6 shows negative BERTScores."""
    baseline = tmp_path / "baseline.tsv"
    baseline.write_text("LAYER,P,R,F\n0,0.1,0.1,0.1\n1,0.2,0.2,0.2\n2,0.5,0.5,0.98\n", encoding="utf-8")
    raw = BertScoreSpec(model=str(tiny_bert), num_layers=2, device="cpu")
    rescaled = BertScoreSpec(model=str(tiny_bert), num_layers=2, device="cpu", lang="zh", rescale_with_baseline=True,
                             baseline_path=str(baseline))
    f1 = text_overlap(HYPS, REFS, bertscore=raw)["bertscore_f1"] / 100
    assert text_overlap(HYPS, REFS, bertscore=rescaled)["bertscore_f1"] == pytest.approx(
        100 * (f1 - 0.98) / (1 - 0.98), abs=1e-2)
    assert f1 < 0.98  # so the rescaled score is negative here
