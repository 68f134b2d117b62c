"""Append-only JSON-lines files that survive ``kill -9``: rows are flushed and fsynced per batch.

A row cut off by a crash is skipped with a warning (the rest of the file is kept); the next append
starts on a fresh line, so one torn row never corrupts the next.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

log = logging.getLogger(__name__)


class JsonlStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def rows(self) -> Iterator[dict[str, Any]]:
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    log.warning("%s:%d is not a complete JSON row (a run was killed mid-write?); skipped, "
                                "the question will be asked again", self.path, number)

    def append(self, rows: Iterable[dict[str, Any]]) -> None:
        lines = [json.dumps(row, ensure_ascii=False) + "\n" for row in rows]
        if not lines:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        needs_newline = self.path.exists() and self.path.stat().st_size > 0 and not self._ends_with_newline()
        with self.path.open("a", encoding="utf-8") as handle:
            if needs_newline:
                handle.write("\n")
            handle.writelines(lines)
            handle.flush()
            os.fsync(handle.fileno())

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"
