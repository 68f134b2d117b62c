"""What a ``conf/model/*.yaml`` says about a model, as a typed record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from scoreqa.fingerprint import fingerprint_file


@dataclass(frozen=True)
class ModelSpec:
    """``name_or_path`` is a hub id (``Qwen/Qwen3-4B``) or a local folder; ``build`` names a tiny
    architecture the repo builds into ``name_or_path`` when that folder does not exist yet; ``gguf`` names a GGUF
    (inside an installed package) that is dequantized into ``name_or_path`` on first use."""

    name: str
    name_or_path: str
    kind: str = "causal_lm"          # causal_lm | vision_language
    adapter: str | None = None
    dtype: str = "auto"
    enable_thinking: bool | None = False
    trust_remote_code: bool = False
    build: str | None = None
    max_pixels: int | None = None
    gguf: Mapping[str, Any] | None = None  # {package, file}: a GGUF exported once into name_or_path
    context_window: int | None = None      # tokens; null: read from the model's config / the server

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "ModelSpec":
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in dict(config).items() if k in known})

    def chat_kwargs(self) -> dict[str, Any]:
        """Extra variables for ``apply_chat_template`` (Qwen3 reads ``enable_thinking``)."""
        return {} if self.enable_thinking is None else {"enable_thinking": bool(self.enable_thinking)}

    def identity(self) -> dict[str, Any]:
        identity = {"model": self.name_or_path, "adapter": self.adapter,
                    "adapter_sha": fingerprint_file(self.adapter), "dtype": self.dtype,
                    "enable_thinking": self.enable_thinking, "build": self.build}
        if self.gguf:
            from scoreqa.models.gguf_export import GGUFSource

            identity["gguf_sha"] = GGUFSource.from_config(self.gguf).sha()
        return identity
