"""Read ``score_id``/``level``/``correct`` from dicts or objects alike."""

from __future__ import annotations

from typing import Any


def field_of(record: Any, name: str) -> Any:
    return record[name] if isinstance(record, dict) else getattr(record, name)


def judged(records: Any) -> list[Any]:
    """Records whose ``correct`` is decided (True/False); ``None`` means not judged (no reference)."""
    return [r for r in records if field_of(r, "correct") is not None]
