"""Append-only JSON-lines files that survive ``kill -9``: each batch is one ``write`` + ``fsync``.

Reading never stops a rerun: bytes are decoded line by line (a row torn inside a multibyte character
becomes an invalid row, not a ``UnicodeDecodeError``), and a row that is not a JSON object holding the
expected keys is skipped with a warning naming ``file:line``; its question is asked again. The next
append starts on a fresh line, so a torn last row is never glued to the next one.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

log = logging.getLogger(__name__)


class JsonlStore:
    def __init__(self, path: Path, required: Sequence[str] = ()) -> None:
        self.path = Path(path)
        self.required = tuple(required)

    def rows(self) -> Iterator[dict[str, Any]]:
        if not self.path.exists():
            return
        for number, raw in enumerate(self.path.read_bytes().split(b"\n"), start=1):
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            problem = self._problem(line)
            if isinstance(problem, dict):
                yield problem
            else:
                log.warning("%s:%d %s; skipped, the question will be asked again", self.path, number, problem)

    def _problem(self, line: str) -> dict[str, Any] | str:
        """The row, or why it is not one."""
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            return "is not a complete JSON row (a run was killed mid-write?)"
        if not isinstance(row, dict):
            return f"is a JSON {type(row).__name__}, not an object"
        missing = [k for k in self.required if k not in row]
        return f"lacks the key(s) {missing}" if missing else row

    def append(self, rows: Iterable[dict[str, Any]]) -> None:
        data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")
        if not data:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size > 0 and not self._ends_with_newline():
            data = b"\n" + data
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = 0
            while written < len(data):  # one write in practice; a short write continues where it stopped
                written += os.write(descriptor, data[written:])
            os.fsync(descriptor)
        finally:
            os.close(descriptor)

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"
