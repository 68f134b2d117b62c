"""Read back what an offline W&B run stored, so tests check what a user would sync.

wandb 0.31 has no Python reader for ``run-*.wandb`` (its core is Go); summary items are protobuf records
holding the key and then the JSON value (field 16), which is enough to read a scalar back.
"""

from __future__ import annotations

import re
import time
from pathlib import Path


def offline_run_files(run_dir: Path) -> list[Path]:
    return sorted(Path(run_dir).glob("wandb/offline-run-*/run-*.wandb"))


def summary_value(run_file: Path, key: str, wait_seconds: float = 30.0) -> str | None:
    """The last JSON text logged for summary ``key`` (e.g. ``headline/value``), None when absent.

    W&B's core process may still be writing the file when ``finish()`` returns: wait for the key a while."""
    deadline = time.monotonic() + wait_seconds
    while (found := _last_value(Path(run_file).read_bytes(), key)) is None and time.monotonic() < deadline:
        time.sleep(0.5)
    return found


def _last_value(data: bytes, key: str) -> str | None:
    found = None
    raw = key.encode()  # field 1 (the key, tag 0x0a) with its length, so "complete" never matches "allow_incomplete"
    for match in re.finditer(rb"\x0a" + re.escape(bytes([len(raw)]) + raw) + rb"\x82\x01", data):
        start, length, shift = match.end(), 0, 0
        while True:  # the value's length, a protobuf varint
            byte = data[start]
            length, shift, start = length | (byte & 0x7F) << shift, shift + 7, start + 1
            if byte < 0x80:
                break
        found = data[start:start + length].decode("utf-8", errors="replace")
    return found
