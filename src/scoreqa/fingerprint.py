"""Content fingerprints of files and folders, for cache keys that notice retrained weights."""

from __future__ import annotations

import hashlib
from pathlib import Path


def fingerprint_file(path: str | Path | None) -> str | None:
    """sha256 of a file, or of every file in a folder (an adapter), so retrained weights get a new key."""
    if not path:
        return None
    path = Path(path)
    if not path.exists():
        return f"missing:{path}"
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]
