"""The vision-language path on a tiny Qwen2.5-VL: offline processor, page-image prompts, pdf / abc training."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from PIL import Image, ImageDraw
from safetensors.torch import load_file

from scoreqa.backends.hf import HFBackend
from scoreqa.data.msu import MSUBench
from scoreqa.models.loading import load_model, load_text_processor
from scoreqa.models.spec import ModelSpec
from scoreqa.models.tiny import build_tiny_model
from scoreqa.prompts.builder import ModalitySpec
from scoreqa.training.datamodule import prepare_training_data
from scoreqa.training.encoding import ExampleEncoder
from scoreqa.training.entry import adapt_vision_tower, train
from scoreqa.training.module import LoRAFineTuner

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tiny_vl(cache_dir: Path) -> Path:
    return build_tiny_model("qwen2.5-vl", cache_dir / "models" / "tiny-qwen2.5-vl")


@pytest.fixture(scope="module")
def score_dir(tmp_path_factory, data_root) -> Path:
    """A page image and an ABC file for every MSU score (drawn, not real scores: the code path is under test)."""
    root = tmp_path_factory.mktemp("scores")
    for i, score_id in enumerate(MSUBench(tables_dir=str(data_root / "msu")).all_score_ids()):
        page = Image.new("RGB", (112 + 28 * (i % 3), 84), "white")
        draw = ImageDraw.Draw(page)
        for line in range(5):
            draw.line([(4, 20 + 8 * line), (page.width - 4, 20 + 8 * line)], fill="black")
        draw.ellipse([(10 + i % 80, 30), (18 + i % 80, 38)], fill="black")
        (root / score_id).mkdir()
        page.save(root / score_id / "page-1.png")
        (root / f"{score_id}.abc").write_text(f"X:1\nT:Tune {score_id}\nM:4/4\nK:C\nC D E F | G A B c |]\n")
    return root


def _cfg(compose, data_root, score_dir, modality, *extra):
    return compose("train", [f"paths.data_root={data_root}", "data=msu", f"data.score_dir={score_dir}", "model=tiny-qwen2.5-vl",
                             f"modality={modality}", "data.limit=1", "logger=none", "schedule=paper", *extra])


def test_tiny_vl_processor_loads_offline_with_the_pil_image_processor(compose, data_root, score_dir, tiny_vl):
    from transformers import Qwen2_5_VLProcessor

    cfg = _cfg(compose, data_root, score_dir, "pdf")
    spec = ModelSpec.from_config(cfg.model)
    processor = load_text_processor(spec)
    assert isinstance(processor, Qwen2_5_VLProcessor)
    assert type(processor.image_processor).__name__ == "Qwen2VLImageProcessorPil"
    model = load_model(spec, torch.device("cpu"))
    assert model.config.vision_config.hidden_size // model.config.vision_config.num_heads >= 32
    assert model.config.text_config.hidden_size // model.config.text_config.num_attention_heads >= 32
    page = Image.open(next(score_dir.glob("*/page-1.png"))).convert("RGB")
    text = processor.apply_chat_template([{"role": "user", "content": [{"type": "image", "image": "p"}]}],
                                         tokenize=False, add_generation_prompt=True)
    encoded = processor(text=[text], images=[page], return_tensors="pt")
    n_visual = int(encoded["image_grid_thw"].prod()) // 4  # 2x2 patches merge into one token
    assert int((encoded["input_ids"] == processor.image_token_id).sum()) == n_visual > 1
    with torch.no_grad():
        assert model(**encoded).logits.shape[1] == encoded["input_ids"].shape[1]


def test_vl_training_prompt_and_pixels_equal_evaluation(compose, data_root, score_dir, tiny_vl):
    cfg = _cfg(compose, data_root, score_dir, "pdf_abc")
    spec = ModelSpec.from_config(cfg.model)
    encoder = ExampleEncoder(load_text_processor(spec), spec.chat_kwargs(), vision=True)
    data = prepare_training_data(cfg.data, ModalitySpec.from_config(cfg.modality), "single", encoder, None)
    backend = HFBackend(model=dict(cfg.model), sampling={"do_sample": False}, batch_size=1, device="cpu")
    for example in data.examples["train"][:2] + data.examples["val"][:1]:
        assert example.request.images and backend.prompt_text(example.request) == encoder.prompt_text(example.request)
        evaluation = backend._encode([example.request])
        features = encoder.encode(example)
        n_prompt = evaluation["input_ids"].shape[1]
        assert torch.equal(features["input_ids"][:n_prompt], evaluation["input_ids"][0])
        assert torch.equal(features["pixel_values"], evaluation["pixel_values"])
        assert torch.equal(features["image_grid_thw"], evaluation["image_grid_thw"])
        assert (features["labels"][:n_prompt] == -100).all() and (features["labels"][n_prompt:] >= 0).all()
        assert encoder.count_tokens(example) == len(features["input_ids"])


def test_pdf_training_adapts_vision_and_language_from_page_images(compose, data_root, score_dir, tiny_vl, tmp_path):
    cfg = _cfg(compose, data_root, score_dir, "pdf", "trainer.max_steps=3", "trainer.accumulate_grad_batches=1",
               "optim.lr=1e-3", "optim.warmup_ratio=0")
    summary = train(cfg, tmp_path)
    assert summary["global_step"] == 3
    weights = load_file(tmp_path / "adapter" / "adapter_model.safetensors")
    vision_b = [v for k, v in weights.items() if ".visual.blocks." in k and "lora_B" in k]
    language_b = [v for k, v in weights.items() if ".language_model." in k and "lora_B" in k]
    assert vision_b and language_b
    assert all(v.abs().sum() > 0 for v in vision_b)  # gradients reached the vision tower through the pages
    assert all(v.abs().sum() > 0 for v in language_b)
    adapted = load_model(ModelSpec.from_config({**cfg.model, "adapter": str(tmp_path / "adapter")}),
                         torch.device("cpu"))  # the adapter merged into the weights, vision tower included
    base = dict(load_model(ModelSpec.from_config(cfg.model), torch.device("cpu")).named_parameters())
    changed = [n for n, p in adapted.named_parameters() if not torch.equal(p, base[n])]
    assert any(".visual.blocks." in n for n in changed) and any(".language_model." in n for n in changed)


def test_abc_on_the_vl_model_keeps_the_vision_tower_frozen(compose, data_root, score_dir, tiny_vl, tmp_path):
    cfg = _cfg(compose, data_root, score_dir, "abc", "trainer.max_steps=2", "trainer.accumulate_grad_batches=1")
    spec, modality = ModelSpec.from_config(cfg.model), ModalitySpec.from_config(cfg.modality)
    assert not adapt_vision_tower("auto", modality, spec)
    assert adapt_vision_tower("auto", ModalitySpec("pdf_abc", "PDF and ABC", ("pages", "abc")), spec)
    module = LoRAFineTuner(model=dict(cfg.model), lora=dict(cfg.lora), optim=dict(cfg.optim), adapt_vision=False)
    module.build_model()
    trainable = [n for n, p in module.model.named_parameters() if p.requires_grad]
    assert trainable and not [n for n in trainable if ".visual." in n]
    summary = train(cfg, tmp_path)
    assert summary["global_step"] == 2
    keys = load_file(tmp_path / "adapter" / "adapter_model.safetensors").keys()
    assert keys and not [k for k in keys if ".visual." in k]
