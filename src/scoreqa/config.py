"""Hydra/OmegaConf helpers: the repo-root resolver and secret redaction for config dumps."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterable

from omegaconf import OmegaConf

# An editable install finds the checkout from here; entry points also set SCOREQA_ROOT to their own folder.
REPO_ROOT = Path(__file__).resolve().parents[2]
_SECRET = re.compile(r"(api_?key|token|secret|password)$", re.IGNORECASE)


def register_resolvers() -> None:
    """``${repo_root:}`` is the checkout holding ``conf/`` (so ``../shared/data`` resolves beside it);
    ``${run_variant:…}`` names what a run folder's stem leaves out (see :func:`run_variant`)."""
    if not OmegaConf.has_resolver("repo_root"):
        OmegaConf.register_new_resolver("repo_root", lambda: os.environ.get("SCOREQA_ROOT", str(REPO_ROOT)))
    if not OmegaConf.has_resolver("run_variant"):
        OmegaConf.register_new_resolver("run_variant", run_variant)


def _plain(value: Any) -> Any:
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value


def _digest(value: Any, length: int = 8) -> str:
    return hashlib.sha256(json.dumps(_plain(value), sort_keys=True, default=str).encode()).hexdigest()[:length]


def run_variant(stem: str, adapter: Any, sampling: Any, judge: Any, data: Any, *more: Any) -> str:
    """A run folder's last name: ``stem`` (``<modality>-<prompt>``) and what tells its variants apart.

    Readable parts (adapter name and hash, sampling name, judge target, limit) and then a short hash of all
    of them and of the whole data config (split, root ...), e.g.
    ``abc-single-lora-adapter-1a2b3c4d-paper-exact-limit5-9f8e7d6c``. A config without sampling and judge
    (``train.py``) keeps the bare stem.
    """
    if sampling is None and judge is None:
        return stem
    parts = [stem]
    if adapter:
        path = Path(str(adapter))
        stamp = [(p.name, p.stat().st_size, int(p.stat().st_mtime)) for p in sorted(path.glob("*"))] if path.is_dir() else []
        parts.append(f"lora-{path.name}-{_digest([str(path), stamp])}")
    sampling, judge, data = _plain(sampling), _plain(judge), _plain(data)
    parts.append(str(sampling.get("name", "sampling")))
    parts.append(str(judge.get("_target_", "judge")).rsplit(".", 1)[-1].lower().removesuffix("judge") or "judge")
    if data.get("limit") is not None:
        parts.append(f"limit{data['limit']}")
    parts.append(_digest([adapter, sampling, judge, data, *map(_plain, more)]))
    return re.sub(r"[^A-Za-z0-9._-]+", "_", "-".join(parts))


# what looks like a credential in free text (server error bodies, overrides): bearer tokens, sk-… keys, key=value
_KEYLIKE = re.compile(r"(?i)(bearer\s+)[^\s\"',]+|\b(sk|pk|rk|hf|ghp|xox[abp])[-_][A-Za-z0-9_\-]{12,}"
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
