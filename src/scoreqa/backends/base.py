"""The backend interface every generation engine implements, and the requests it answers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

if TYPE_CHECKING:
    from scoreqa.backends.context import Fit

# A chat message: {"role": ..., "content": str | [{"type": "text", "text": ...} | {"type": "image", "image": path}]}
Message = dict[str, Any]


@dataclass(frozen=True)
class ChatRequest:
    """One model call: the chat messages and the questions its answer covers (1, or all of a score)."""

    key: str
    messages: tuple[Message, ...]
    question_ids: tuple[str, ...]

    @property
    def images(self) -> list[Path]:
        return [Path(part["image"]) for message in self.messages if isinstance(message["content"], list)
                for part in message["content"] if part.get("type") == "image"]


@dataclass(frozen=True)
class Completion:
    """A model's answer to one request; ``error`` is set (and ``text`` empty) when the call failed for good.

    ``too_long``: the prompt plus ``max_new_tokens`` does not fit the context window, so it was never sent.
    """

    key: str
    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    seconds: float | None = None
    error: str | None = None
    too_long: bool = False


@dataclass(frozen=True)
class SamplingSpec:
    """Decoding settings; the defaults are the MSU-Bench paper's (temperature 0.95, top-p 0.7, top-k 50)."""

    do_sample: bool = True
    temperature: float = 0.95
    top_p: float = 0.7
    top_k: int = 50
    max_new_tokens: int = 512
    seed: int = 0

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "SamplingSpec":
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in dict(config).items() if k in known})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Backend(ABC):
    """Turns chat requests into completions, a batch at a time, so callers can cache as results arrive."""

    name: str = "backend"

    @abstractmethod
    def generate(self, requests: Sequence[ChatRequest]) -> Iterator[list[Completion]]:
        """Yield completions batch by batch, in request order within a batch."""

    def fits(self, requests: Sequence[ChatRequest]) -> "list[Fit] | None":
        """Each request measured against the model's context window, or None when this backend cannot count
        tokens (a hosted API: a too-long request then comes back as a failed completion, from the server)."""
        return None

    @abstractmethod
    def identity(self) -> dict[str, Any]:
        """Everything about this backend that changes its outputs (goes into the run key)."""

    def usage(self) -> dict[str, Any]:
        """Counts for the inference-time report; backends add what they know."""
        return {}

    def bind_split(self, split: Any) -> None:
        """Baselines that answer from the data itself keep the split here; model backends ignore it."""

    def endpoint(self) -> str | None:
        """Where requests go (named in the failure summary); None for local engines."""
        return None
