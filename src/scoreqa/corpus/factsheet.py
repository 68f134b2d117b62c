"""The ``analysis`` prompt's fact sheet: one line of music21 facts per bar of a MusicXML score.

The paper's error analysis finds models lose their place in the score; this gives them an index
by bar number (the same numbers as the ABC ``%N`` comments and the printed pages).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from scoreqa.corpus.facts import BarFacts, read_facts
from scoreqa.corpus.formats import spn

HEADER = ("Bar facts (bar | time | key signature | lowest–highest written pitch | accidentals printed in the bar | "
          "dynamics):")


def _signature(fifths: int | None) -> str:
    if fifths is None:
        return "-"
    return "0" if fifths == 0 else f"{abs(fifths)}{'♯' if fifths > 0 else '♭'}"


def bar_line(bar: BarFacts) -> str:
    low, high = bar.lowest(), bar.highest()
    span = f"{spn(*low.pitch)}–{spn(*high.pitch)}" if low and high else "rest"
    return " | ".join([bar.label, bar.time or "-", _signature(bar.fifths), span,
                       ", ".join(bar.accidentals()) or "-", ", ".join(bar.dynamics) or "-"])


@lru_cache(maxsize=64)
def _cached(path: str, mtime: float) -> str:
    facts = read_facts(Path(path))
    return "\n".join([HEADER, *(bar_line(bar) for bar in facts.bars)])


def fact_sheet(musicxml: Path) -> str:
    """The fact sheet of ``musicxml`` (cached per file version: single mode asks it once per question)."""
    path = Path(musicxml)
    if not path.exists():
        raise FileNotFoundError(f"fact sheet: MusicXML file {path} does not exist")
    return _cached(str(path.resolve()), path.stat().st_mtime)
