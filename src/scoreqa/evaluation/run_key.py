"""The run key: a hash of everything that changes what a model is asked and how it answers."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def run_key(parts: dict[str, Any]) -> str:
    canonical = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
