"""Hydra/OmegaConf helpers: the repo-root resolver and secret redaction for config dumps."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterable

from omegaconf import OmegaConf

# An editable install finds the checkout from here; entry points also set SCOREQA_ROOT to their own folder.
REPO_ROOT = Path(__file__).resolve().parents[2]
_SECRET = re.compile(r"(api_?key|token|secret|password)$", re.IGNORECASE)


def register_resolvers() -> None:
    """``${repo_root:}`` is the checkout holding ``conf/`` (so ``../shared/data`` resolves beside it)."""
    if not OmegaConf.has_resolver("repo_root"):
        OmegaConf.register_new_resolver("repo_root", lambda: os.environ.get("SCOREQA_ROOT", str(REPO_ROOT)))


# what looks like a credential in free text (server error bodies, overrides): bearer tokens, sk-… keys, key=value
_KEYLIKE = re.compile(r"(?i)(bearer\s+)[^\s\"',]+|\b(sk|pk|rk|hf|ghp|xox[abp])[-_][A-Za-z0-9_\-]{6,}"
                      r"|((?:api[_-]?key|token|secret|password)[\"']?\s*[:=]\s*[\"']?)[^\s\"',&}]+")


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with key-like strings and the given secret values replaced by ``<redacted>``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "<redacted>")
    return _KEYLIKE.sub(lambda m: (m.group(1) or m.group(3) or "") + "<redacted>", text)


def redact(value: Any) -> Any:
    """A copy of a plain config tree with secret-looking values replaced (names of env variables stay)."""
    if isinstance(value, dict):
        return {k: ("<redacted>" if _SECRET.search(str(k)) and v not in (None, "") else redact(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return scrub(value) if isinstance(value, str) else value
