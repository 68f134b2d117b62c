"""Tiny models with real architectures, random weights and a locally trained tokenizer.

They let every model code path (tokenizer chat template, left-padded batched generation, LoRA,
saving and reloading) run on a CPU with no download. Built once into a folder, then loaded with
``from_pretrained`` exactly like a hub checkpoint.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Callable, Iterator

import torch

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>",
                  "<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"]
VOCAB_SIZE = 2048
# Bumped whenever a builder changes, so a stale cached build is rebuilt rather than silently reused.
TINY_VERSION = 3
MARKER = "scoreqa_tiny.json"
# Larger than transformers' 0.02 so random models' outputs depend on their input (padding bugs show).
INIT_RANGE = 0.1
TOKENIZER_CORPUS_BYTES = 1_500_000


def _corpus() -> Iterator[str]:
    """Prompt templates and music21's bundled public-domain ABC tunes: the text these models see."""
    templates = resources.files("scoreqa.prompts") / "templates"
    for folder in templates.iterdir():
        for item in folder.iterdir():
            yield item.read_text(encoding="utf-8")
    import music21

    seen = 0
    for path in sorted((Path(music21.__file__).parent / "corpus").rglob("*.abc")):
        text = path.read_text(encoding="utf-8", errors="replace")
        seen += len(text)
        yield text
        if seen > TOKENIZER_CORPUS_BYTES:
            break


def build_tokenizer(out_dir: Path, vocab_size: int = VOCAB_SIZE):
    """A byte-level BPE tokenizer (every string encodes) with Qwen's special tokens and chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(_corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   additional_special_tokens=SPECIAL_TOKENS[1:], padding_side="left")
    fast.chat_template = (resources.files("scoreqa.models") / "chat_template.jinja").read_text(encoding="utf-8")
    fast.save_pretrained(out_dir)
    return fast


def _qwen3(tokenizer, seed: int) -> torch.nn.Module:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=32, max_position_embeddings=32768,
                         tie_word_embeddings=True, bos_token_id=None, initializer_range=INIT_RANGE,
                         eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
                         pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(seed)
    return Qwen3ForCausalLM(config)


def _qwen2_5_vl(tokenizer, seed: int) -> torch.nn.Module:
    """Qwen2.5-VL with a 2-block vision tower and a 2-layer language model (head_dim 32 in both)."""
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration

    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    text = dict(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32768, bos_token_id=None,
                eos_token_id=ids["<|im_end|>"], pad_token_id=tokenizer.pad_token_id,
                rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [4, 6, 6]},
                initializer_range=INIT_RANGE)
    vision = dict(depth=2, hidden_size=64, intermediate_size=128, num_heads=2, out_hidden_size=64, patch_size=14,
                  spatial_merge_size=2, temporal_patch_size=2, window_size=112, fullatt_block_indexes=[1])
    config = Qwen2_5_VLConfig(text_config=text, vision_config=vision, image_token_id=ids["<|image_pad|>"],
                              video_token_id=ids["<|video_pad|>"], vision_start_token_id=ids["<|vision_start|>"],
                              vision_end_token_id=ids["<|vision_end|>"], tie_word_embeddings=True,
                              initializer_range=INIT_RANGE)
    torch.manual_seed(seed)
    return Qwen2_5_VLForConditionalGeneration(config)


def _qwen2_5_vl_processor(tokenizer, out_dir: Path) -> None:
    """The PIL image processor (small pages: at most 64 visual tokens each) and the video-less processor class."""
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    from scoreqa.models.tiny_vl_processor import TinyQwen2_5_VLProcessor

    TinyQwen2_5_VLProcessor.register_for_auto_class("AutoProcessor")
    image_processor = Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=64 * 28 * 28)
    TinyQwen2_5_VLProcessor(image_processor=image_processor, tokenizer=tokenizer,
                            chat_template=tokenizer.chat_template).save_pretrained(out_dir)


BUILDERS: dict[str, Callable] = {"qwen3": _qwen3, "qwen2.5-vl": _qwen2_5_vl}
# Architectures whose folder also needs a processor (AutoProcessor) beside the tokenizer.
PROCESSORS: dict[str, Callable] = {"qwen2.5-vl": _qwen2_5_vl_processor}


def cache_root() -> Path:
    """``paths.cache_dir``'s default: ``SCOREQA_CACHE_DIR``, else ``.cache`` in the checkout."""
    from scoreqa.config import REPO_ROOT

    return Path(os.environ.get("SCOREQA_CACHE_DIR") or Path(os.environ.get("SCOREQA_ROOT", REPO_ROOT)) / ".cache")


def check_inside_cache(out_dir: Path) -> None:
    """A new tiny model (random weights) is built only inside the cache, so a mistyped ``model.name_or_path``
    never silently becomes a random model; ``SCOREQA_TINY_ANYWHERE=1`` asks for another place."""
    root = cache_root().resolve()
    if os.environ.get("SCOREQA_TINY_ANYWHERE") != "1" and not out_dir.resolve().is_relative_to(root):
        raise ValueError(f"model.name_or_path={out_dir} is outside the cache {root}, and tiny models (random weights) "
                         "are built only there: check model.name_or_path, or set SCOREQA_TINY_ANYWHERE=1 to build "
                         "one at that path")


def build_tiny_model(architecture: str, out_dir: Path, seed: int = 0) -> Path:
    """Build once into ``out_dir`` (written to a temporary folder, then moved, so a crash leaves nothing half-built)."""
    out_dir = Path(out_dir)
    marker = {"architecture": architecture, "version": TINY_VERSION, "seed": seed}
    if (out_dir / MARKER).exists() and json.loads((out_dir / MARKER).read_text()) == marker:
        return out_dir
    if (out_dir / MARKER).exists():  # an older tiny build of ours: replace it
        shutil.rmtree(out_dir)
    elif out_dir.exists() and any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir} exists and is not a tiny model built by scoreqa; refusing to overwrite it. "
                              "Point model.name_or_path elsewhere or remove model.build.")
    if architecture not in BUILDERS:
        raise ValueError(f"unknown tiny architecture {architecture!r}; known: {sorted(BUILDERS)}")
    check_inside_cache(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}-", dir=out_dir.parent))
    try:
        tokenizer = build_tokenizer(staging)
        model = BUILDERS[architecture](tokenizer, seed)
        model.generation_config.eos_token_id = [tokenizer.convert_tokens_to_ids(t)
                                                for t in ("<|im_end|>", "<|endoftext|>")]
        model.generation_config.pad_token_id = tokenizer.pad_token_id
        model.save_pretrained(staging)
        if architecture in PROCESSORS:
            PROCESSORS[architecture](tokenizer, staging)
        (staging / MARKER).write_text(json.dumps(marker))
        try:
            staging.rename(out_dir)
        except OSError:  # another process finished first
            if not (out_dir / MARKER).exists():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out_dir
