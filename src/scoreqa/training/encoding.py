"""Token ids and answer-only labels for training examples, encoded exactly as evaluation encodes prompts.

The prompt is rendered by ``render_chat`` (the function ``HFBackend.prompt_text`` uses) and tokenized
as ``HFBackend._encode`` tokenizes it; the answer and the end-of-turn token follow.
Labels are -100 on every prompt position, so the loss covers the answer tokens only.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

import torch

from scoreqa.backends.base import ChatRequest
from scoreqa.prompts.chat import render_chat
from scoreqa.training.examples import TrainingExample

IGNORE_INDEX = -100  # the label transformers' causal-LM loss skips


@lru_cache(maxsize=4096)
def _image_size(path: str) -> tuple[int, int]:
    from PIL import Image

    with Image.open(path) as image:
        return image.height, image.width


class ExampleEncoder:
    """``processor`` is the tokenizer (text models) or the processor (vision-language models) evaluation loads."""

    def __init__(self, processor: Any, chat_kwargs: Mapping[str, Any], vision: bool,
                 end_of_turn: str = "<|im_end|>") -> None:
        self.processor, self.chat_kwargs, self.vision = processor, dict(chat_kwargs), vision
        self.tokenizer = getattr(processor, "tokenizer", processor)
        end_id = self.tokenizer.convert_tokens_to_ids(end_of_turn)
        if end_id is None or end_id == self.tokenizer.unk_token_id or end_of_turn not in self.tokenizer.get_vocab():
            raise ValueError(f"training.end_of_turn={end_of_turn!r} is not a token of this tokenizer: set it to the "
                             "token that closes an assistant turn in the model's chat template")
        self.end_of_turn_id = int(end_id)

    def prompt_text(self, request: ChatRequest) -> str:
        return render_chat(self.processor, request.messages, self.chat_kwargs)

    def encode_prompt(self, request: ChatRequest) -> dict[str, torch.Tensor]:
        """The processor output for one prompt, as ``HFBackend._encode`` produces it for a batch of one."""
        text = self.prompt_text(request)
        if self.vision:
            from PIL import Image

            images = [Image.open(p).convert("RGB") for p in request.images]
            return dict(self.processor(text=[text], images=images or None, return_tensors="pt"))
        return dict(self.processor([text], return_tensors="pt", add_special_tokens=False))

    def answer_ids(self, target: str) -> list[int]:
        return list(self.tokenizer(target, add_special_tokens=False)["input_ids"]) + [self.end_of_turn_id]

    def encode(self, example: TrainingExample) -> dict[str, torch.Tensor]:
        """``input_ids`` = prompt + answer + end of turn; ``labels`` = -100 over the prompt, the ids after it."""
        prompt = self.encode_prompt(example.request)
        prompt_ids = prompt.pop("input_ids")[0]
        prompt.pop("attention_mask", None)
        answer = torch.tensor(self.answer_ids(example.target), dtype=prompt_ids.dtype)
        features = {"input_ids": torch.cat([prompt_ids, answer]),
                    "labels": torch.cat([torch.full_like(prompt_ids, IGNORE_INDEX), answer]),
                    "attention_mask": torch.ones(len(prompt_ids) + len(answer), dtype=torch.long)}
        for key, value in prompt.items():
            if value.dim() == 2 and value.shape == (1, len(prompt_ids)):  # per-token (mm_token_type_ids): 0 = text
                value = torch.cat([value[0], torch.zeros(len(answer), dtype=value.dtype)])
            features[key] = value
        return features

    def count_tokens(self, example: TrainingExample) -> int:
        """Sequence length without running the image processor: each image pad expands to its visual tokens."""
        n_text = len(self.tokenizer(self.prompt_text(example.request), add_special_tokens=False)["input_ids"])
        n_images = sum(self.image_tokens(path) - 1 for path in example.request.images) if self.vision else 0
        return n_text + n_images + len(self.answer_ids(example.target))

    def image_tokens(self, path: Path) -> int:
        image_processor = self.processor.image_processor
        patches = image_processor.get_number_of_image_patches(*_image_size(str(path)), {})
        return patches // image_processor.merge_size ** 2


def collate(features: Sequence[dict[str, torch.Tensor]], pad_token_id: int) -> dict[str, torch.Tensor]:
    """Right-pad token tensors (labels with -100, masks with 0); concatenate image patches and grids."""
    length = max(len(f["input_ids"]) for f in features)
    pad_values = {"input_ids": pad_token_id, "labels": IGNORE_INDEX}
    batch: dict[str, torch.Tensor] = {}
    for key in features[0]:
        values = [f[key] for f in features]
        if key in ("pixel_values", "image_grid_thw"):
            batch[key] = torch.cat(values)
        else:
            batch[key] = torch.stack([torch.nn.functional.pad(v, (0, length - len(v)), value=pad_values.get(key, 0))
                                      for v in values])
    return batch
