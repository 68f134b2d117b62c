"""The transformers backend on the tiny Qwen3: left padding, seeding, token counts."""

from __future__ import annotations

import pytest

from scoreqa.backends.base import ChatRequest
from scoreqa.backends.hf import HFBackend

PROMPTS = ["What is the initial key?", "Which clef does the left hand use in the first bar of the piece?",
           "Tempo?", "X:1\nT:Air\nM:6/8\nK:D\n|:A|dfe dcB|AFA d2:|"]


def _requests():
    return [ChatRequest(f"q{i}", ({"role": "user", "content": text},), (f"q{i}",)) for i, text in enumerate(PROMPTS)]


def _backend(tiny_qwen3, batch_size, **sampling):
    model = {"name": "tiny", "name_or_path": str(tiny_qwen3), "dtype": "float32", "enable_thinking": False}
    return HFBackend(model, {"max_new_tokens": 12, **sampling}, batch_size=batch_size, device="cpu")


def _texts(backend):
    return {c.key: c.text for batch in backend.generate(_requests()) for c in batch}


def test_left_padded_batches_give_the_same_greedy_output_as_one_by_one(tiny_qwen3):
    batched = _texts(_backend(tiny_qwen3, 4, do_sample=False))
    single = _texts(_backend(tiny_qwen3, 1, do_sample=False))
    assert batched == single
    assert len(set(batched.values())) > 1  # different prompts, different outputs


def test_sampling_is_seeded(tiny_qwen3):
    first = _texts(_backend(tiny_qwen3, 2, do_sample=True, seed=3))
    assert first == _texts(_backend(tiny_qwen3, 2, do_sample=True, seed=3))
    assert first != _texts(_backend(tiny_qwen3, 2, do_sample=True, seed=4))


def test_token_counts_and_usage(tiny_qwen3):
    backend = _backend(tiny_qwen3, 2, do_sample=False)
    completions = [c for batch in backend.generate(_requests()) for c in batch]
    by_key = {c.key: c for c in completions}
    tokenizer = backend.tokenizer
    for request in _requests():
        completion = by_key[request.key]
        assert completion.input_tokens == len(tokenizer(backend.prompt_text(request), add_special_tokens=False).input_ids)
        assert 1 <= completion.output_tokens <= 12
    usage = backend.usage()
    assert usage["requests"] == 4 and usage["output_tokens"] == sum(c.output_tokens for c in completions)


def test_model_is_not_loaded_until_a_request_arrives(tiny_qwen3):
    backend = _backend(tiny_qwen3, 2)
    assert list(backend.generate([])) == []
    assert backend._model is None


def test_missing_adapter_config_is_reported(tiny_qwen3, tmp_path):
    from scoreqa.models.loading import load_model
    from scoreqa.models.spec import ModelSpec
    import torch

    spec = ModelSpec(name="tiny", name_or_path=str(tiny_qwen3), adapter=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="adapter_config.json"):
        load_model(spec, torch.device("cpu"))


def test_tiny_builder_never_overwrites_a_foreign_folder(tmp_path):
    from scoreqa.models.tiny import build_tiny_model

    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(FileExistsError, match="not a tiny model built by scoreqa"):
        build_tiny_model("qwen3", tmp_path)
    assert (tmp_path / "config.json").read_text() == "{}"


def _score_requests():
    """Two "scores" of a few hundred tokens with three questions each, and one unrelated request."""
    requests = []
    for s, tune in enumerate(["|:A|dfe dcB|AFA d2:|" * 25, "|G2 B d2 g|f2 e d2 c|" * 25]):
        for q, question in enumerate(PROMPTS[:3]):
            text = f"Here is a piece of music in ABC notation:\nX:{s}\nK:D\n{tune}\nQuestion:\n{question}"
            requests.append(ChatRequest(f"s{s}q{q}", ({"role": "user", "content": text},), (f"s{s}q{q}",)))
    return [*requests, _requests()[0]]


def test_shared_prefix_batches_give_the_same_greedy_output_and_token_counts(tiny_qwen3, monkeypatch):
    import scoreqa.backends.hf as hf

    shared, original = [], hf.decode_pruned

    def recording(*args, **kwargs):
        shared.append(kwargs["shared_prefix"])
        return original(*args, **kwargs)

    monkeypatch.setattr(hf, "decode_pruned", recording)
    model = {"name": "tiny", "name_or_path": str(tiny_qwen3), "dtype": "float32", "enable_thinking": False}
    runs = {}
    for min_shared in (256, 0):
        backend = HFBackend(model, {"max_new_tokens": 12, "do_sample": False}, batch_size=4,
                            min_shared_prefix_tokens=min_shared, device="cpu")
        runs[min_shared] = {c.key: c for batch in backend.generate(_score_requests()) for c in batch}
        tokens = {r.key: len(backend.tokenizer(backend.prompt_text(r), add_special_tokens=False).input_ids)
                  for r in _score_requests()}
        assert {k: c.input_tokens for k, c in runs[min_shared].items()} == tokens  # the whole prompt, pads not
        usage = backend.usage()
        assert usage["requests"] == 7 and usage["input_tokens"] == sum(tokens.values())
        assert usage["output_tokens"] == sum(c.output_tokens for c in runs[min_shared].values())
    assert min(tokens.values()) < 256 < min(tokens[r.key] for r in _score_requests()[:6])
    assert sorted(s > 256 for s in shared[:3]) == [False, True, True]  # one batch per score, the lone request alone
    assert shared[3:] == [0, 0]  # min_shared_prefix_tokens=0: length-sorted batches of 4 and 3
    assert {k: c.text for k, c in runs[256].items()} == {k: c.text for k, c in runs[0].items()}
