"""Train and validation data from any benchmark config (``.load(needs)``, ``.templates``, a ``split`` argument).

The benchmark's own seeded 6:2:2 split decides which scores are train and val; the test split is
never loaded. Scores whose longest example exceeds ``max_tokens`` are dropped from the training pool
(train and val) before either is final, and listed in the run output.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Mapping, Sequence

import torch
from hydra.utils import instantiate
from lightning.pytorch import LightningDataModule
from torch.utils.data import DataLoader, Dataset

from scoreqa.data.records import BenchmarkSplit
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder
from scoreqa.training.encoding import ExampleEncoder, collate
from scoreqa.training.examples import TrainingExample, build_examples
from scoreqa.training.packing import pack

log = logging.getLogger(__name__)
SPLITS = ("train", "val")


@dataclass
class TrainingData:
    """The examples of each split and what was left out of them, for ``train_summary.json``."""

    examples: dict[str, list[TrainingExample]]
    dropped_unreferenced: dict[str, list[str]] = field(default_factory=dict)
    dropped_too_long: list[dict[str, Any]] = field(default_factory=list)
    skipped_missing_input: list[dict[str, str]] = field(default_factory=list)
    all_score_ids: list[str] | None = None
    longest_example_tokens: int = 0  # over train and val, as evaluation counts them (``ExampleEncoder.count_tokens``)

    def summary(self) -> dict[str, Any]:
        return {
            "longest_example_tokens": self.longest_example_tokens,
            **{f"n_{s}_examples": len(self.examples[s]) for s in SPLITS},
            **{f"n_{s}_scores": len({e.score_id for e in self.examples[s]}) for s in SPLITS},
            "dropped_unreferenced_questions": self.dropped_unreferenced,
            "dropped_too_long_scores": self.dropped_too_long,
            "skipped_missing_input_scores": self.skipped_missing_input,
        }


def load_split(data_config: Mapping[str, Any], split: str, needs: tuple[str, ...]) -> tuple[Any, BenchmarkSplit]:
    """The benchmark configured by ``data_config`` with its ``split`` set to ``split``."""
    benchmark = instantiate(data_config, split=split, _convert_="all")
    return benchmark, benchmark.load(needs=needs)


def prepare_training_data(data_config: Mapping[str, Any], modality: ModalitySpec, mode: str,
                          encoder: ExampleEncoder, max_tokens: int | None) -> TrainingData:
    """Train/val examples with prompts from the benchmark's templates, over-long scores dropped."""
    data = TrainingData(examples={})
    for split_name in SPLITS:
        benchmark, split = load_split(data_config, split_name, modality.inputs)
        builder = PromptBuilder(benchmark.templates, modality, mode)
        examples, unreferenced = build_examples(split, builder)
        data.dropped_unreferenced[split_name] = unreferenced
        data.skipped_missing_input.extend({**s, "split": split_name} for s in split.skipped)
        too_long: dict[str, int] = {}
        for example in examples:
            n_tokens = encoder.count_tokens(example)
            if max_tokens is not None and n_tokens > max_tokens:
                too_long[example.score_id] = max(n_tokens, too_long.get(example.score_id, 0))
            else:
                data.longest_example_tokens = max(data.longest_example_tokens, n_tokens)
        data.dropped_too_long.extend({"score_id": s, "title": split.scores[s].title, "split": split_name,
                                      "tokens": n} for s, n in too_long.items())
        data.examples[split_name] = [e for e in examples if e.score_id not in too_long]
        if hasattr(benchmark, "all_score_ids"):
            data.all_score_ids = benchmark.all_score_ids()
    if data.dropped_too_long:
        log.warning("dropped %d score(s) longer than training.max_tokens=%s: %s", len(data.dropped_too_long),
                    max_tokens, ", ".join(f"{d['score_id']} ({d['tokens']} tokens, {d['split']})"
                                          for d in data.dropped_too_long))
    if not data.examples["train"]:
        raise ValueError(f"no training examples left from data={data_config.get('name')} (modality "
                         f"{modality.name}): check data.limit, data.skip_missing and training.max_tokens")
    return data


class EncodedExamples(Dataset):
    """Encodes on access, so page images are read per step and never all held in memory."""

    def __init__(self, examples: list[TrainingExample], encoder: ExampleEncoder) -> None:
        self.examples, self.encoder = examples, encoder

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return self.encoder.encode(self.examples[index])


class PackedScores(Dataset):
    """One item per score: its examples encoded and packed into one sequence (``training/packing.py``)."""

    def __init__(self, examples: list[TrainingExample], encoder: ExampleEncoder) -> None:
        self.groups: list[list[TrainingExample]] = []
        for example in examples:  # build_examples keeps a score's examples together
            if self.groups and self.groups[-1][0].score_id == example.score_id:
                self.groups[-1].append(example)
            else:
                self.groups.append([example])
        self.encoder = encoder

    def __len__(self) -> int:
        return len(self.groups)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return pack([self.encoder.encode(e) for e in self.groups[index]])


def _only(items: Sequence[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    return items[0]


class ScoreQADataModule(LightningDataModule):
    """``pack``: one batch = one score's questions packed (batch_size must then be 1); else ``batch_size``
    examples, right-padded."""

    def __init__(self, data: TrainingData, encoder: ExampleEncoder, batch_size: int = 1, num_workers: int = 0,
                 shuffle: bool = True, seed: int = 0, pack: bool = False) -> None:
        super().__init__()
        if pack and int(batch_size) != 1:
            raise ValueError(f"training.pack_questions packs one score per batch: set training.batch_size=1 "
                             f"(got {batch_size}) or training.pack_questions=false")
        self.data, self.encoder, self.pack = data, encoder, pack
        self.batch_size, self.num_workers, self.shuffle, self.seed = int(batch_size), int(num_workers), shuffle, seed

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        examples = self.data.examples[split]
        dataset: Dataset = (PackedScores(examples, self.encoder) if self.pack
                            else EncodedExamples(examples, self.encoder))
        collate_fn = _only if self.pack else partial(collate, pad_token_id=self.encoder.tokenizer.pad_token_id)
        # the shuffle has its own seeded generator: the order must not depend on randomness drawn elsewhere
        return DataLoader(dataset, batch_size=self.batch_size, shuffle=shuffle, num_workers=self.num_workers,
                          generator=torch.Generator().manual_seed(self.seed) if shuffle else None,
                          collate_fn=collate_fn)

    def train_dataloader(self) -> DataLoader:
        return self._loader("train", self.shuffle)

    def val_dataloader(self) -> DataLoader:
        return self._loader("val", False)
