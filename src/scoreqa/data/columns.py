"""Tolerant column discovery: releases rename columns; fail naming the one that is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pandas as pd


def _norm(name: object) -> str:
    return str(name).strip().lower().replace(" ", "_").replace("-", "_")


def find_column(frame: pd.DataFrame, aliases: Sequence[str], *, source: Path | str, required: bool = True
                ) -> str | None:
    """The frame's column matching one of ``aliases`` (case, space and dash insensitive)."""
    by_norm = {_norm(column): column for column in frame.columns}
    for alias in aliases:
        if _norm(alias) in by_norm:
            return by_norm[_norm(alias)]
    if required:
        raise KeyError(f"{source}: no column {aliases[0]!r} (also tried {list(aliases[1:])}); "
                       f"columns present: {list(frame.columns)}")
    return None


def blank_to_none(value: object) -> str | None:
    """Spreadsheet blanks arrive as NaN, None or whitespace: all mean 'no value'."""
    if value is None:
        return None
    if isinstance(value, float) and value != value:
        return None
    text = str(value).strip()
    return text or None
