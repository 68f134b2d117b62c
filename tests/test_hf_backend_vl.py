"""The transformers backend on the tiny Qwen2.5-VL: page images reach the model, padding does not change answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from scoreqa.backends.base import ChatRequest
from scoreqa.backends.hf import HFBackend
from scoreqa.models.tiny import build_tiny_model


@pytest.fixture(scope="module")
def tiny_vl(cache_dir: Path) -> Path:
    return build_tiny_model("qwen2.5-vl", cache_dir / "models" / "tiny-qwen2.5-vl")


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> list[Path]:
    """Two drawn 'pages' of different sizes (so their visual token counts differ)."""
    folder = tmp_path_factory.mktemp("pages")
    paths = []
    for number, (width, height) in enumerate([(140, 84), (84, 168)], start=1):
        page = Image.new("RGB", (width, height), "white")
        draw = ImageDraw.Draw(page)
        for line in range(5):
            draw.line([(4, 20 + 8 * line), (width - 4, 20 + 8 * line)], fill="black")
        draw.ellipse([(10 * number, 30), (10 * number + 8, 38)], fill="black")
        paths.append(folder / f"page-{number}.png")
        page.save(paths[-1])
    return paths


def _request(key: str, images: list[Path], question: str) -> ChatRequest:
    content = [{"type": "text", "text": "Here is a piece of music in PDF:\n"},
               *({"type": "image", "image": str(p)} for p in images),
               {"type": "text", "text": f"\nQuestion:\n{question}"}]
    return ChatRequest(key, ({"role": "user", "content": content},), (key,))


def _backend(tiny_vl: Path, batch_size: int) -> HFBackend:
    model = {"name": "tiny-vl", "name_or_path": str(tiny_vl), "kind": "vision_language", "dtype": "float32",
             "enable_thinking": None, "trust_remote_code": True, "max_pixels": 50176}
    return HFBackend(model, {"do_sample": False, "max_new_tokens": 10}, batch_size=batch_size, device="cpu")


def test_page_images_are_expanded_into_visual_tokens(tiny_vl, pages):
    backend = _backend(tiny_vl, 1)
    one, two = _request("a", pages[:1], "Key?"), _request("b", pages, "Key?")
    backend._ensure_loaded()
    encoded_one, encoded_two = backend._encode([one]), backend._encode([two])
    pad = backend.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    n_one = int((encoded_one["input_ids"] == pad).sum())
    n_two = int((encoded_two["input_ids"] == pad).sum())
    assert n_one > 0 and n_two > n_one  # each page adds its own visual tokens
    assert encoded_two["pixel_values"].shape[0] > encoded_one["pixel_values"].shape[0]


def test_batched_vision_requests_answer_like_single_ones(tiny_vl, pages):
    requests = [_request("a", pages[:1], "What is the initial key?"), _request("b", pages, "Tempo?"),
                _request("c", pages[1:], "Which clef does the left hand use in bar 1?")]
    batched = {c.key: c.text for batch in _backend(tiny_vl, 3).generate(requests) for c in batch}
    single = {c.key: c.text for batch in _backend(tiny_vl, 1).generate(requests) for c in batch}
    assert batched == single
    assert len(set(batched.values())) > 1  # answers depend on the pages and questions
