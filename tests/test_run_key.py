"""The run key changes with everything that changes outputs, including retrained adapter weights."""

from __future__ import annotations

from scoreqa.evaluation.run_key import run_key
from scoreqa.models.spec import ModelSpec


def test_retrained_adapter_weights_change_the_key(tmp_path):
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_model.safetensors").write_bytes(b"weights-1")
    spec = ModelSpec(name="m", name_or_path="Qwen/Qwen3-4B", adapter=str(adapter))
    first = run_key(spec.identity())
    assert run_key(spec.identity()) == first
    (adapter / "adapter_model.safetensors").write_bytes(b"weights-2")
    assert run_key(spec.identity()) != first


def test_key_is_order_independent_and_sensitive_to_values():
    assert run_key({"a": 1, "b": {"c": 2}}) == run_key({"b": {"c": 2}, "a": 1})
    assert run_key({"a": 1}) != run_key({"a": 2})
