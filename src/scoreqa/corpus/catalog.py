"""Which pieces of music21's bundled corpus the built corpus uses, under which ids, in which order.

The order is deterministic and interleaves collections (round robin), so ``--limit 20`` gives a
mix of composers rather than twenty Bach chorales. The 19 chorales with a human Roman-numeral analysis
(Riemenschneider numbering; the 20th analysis, BWV 41.6s, is of a version the corpus lacks) take
a turn of their own, so every round has one: they are the only source of level-3 questions.
Test/demo encodings (``demos``, ``theoryExercises``) are not music and are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from scoreqa.scores.mxl import MUSICXML_SUFFIXES

EXCLUDED_DIRS = ("demos", "theoryExercises")


@dataclass(frozen=True)
class CorpusPiece:
    id: str                 # e.g. "bach-bwv269", "mozart-k545-movement1_exposition"
    path: Path              # the MusicXML/MXL file inside music21's corpus
    collection: str         # top-level corpus folder (composer or repertory)
    analysis: Path | None   # a human Roman-numeral analysis (.rntxt) of this very piece, if any


def corpus_root() -> Path:
    import music21

    return Path(music21.__file__).parent / "corpus"


def piece_id(relative: Path) -> str:
    """A filesystem- and URL-safe id from a path relative to the corpus root."""
    stem = str(relative.with_suffix("")).replace("/", "-").replace("\\", "-")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem).lower()


def musicxml_files(root: Path | None = None) -> list[Path]:
    """Every MusicXML/MXL file of the corpus (sorted), demos included: what the ABC sweep measures."""
    root = root or corpus_root()
    return sorted(p for p in root.rglob("*") if p.suffix.lower() in MUSICXML_SUFFIXES and p.is_file())


@lru_cache(maxsize=1)
def riemenschneider_analyses() -> dict[str, Path]:
    """BWV number (as in the chorale's file name) -> its ``riemenschneider<NNN>.rntxt`` analysis."""
    found = {}
    for path in sorted((corpus_root() / "bach" / "choraleAnalyses").glob("riemenschneider*.rntxt")):
        match = re.search(r"^BWV:\s*(\S+)", path.read_text(encoding="utf-8", errors="replace"), re.MULTILINE)
        if match:  # "248(2).12" (Christmas Oratorio part 2, no. 12) is the file bwv248.12-2.mxl
            found[re.sub(r"^(\d+)\((\d+)\)\.(\d+)$", r"\1.\3-\2", match.group(1))] = path
    return found


def _analysis_for(relative: Path) -> Path | None:
    if relative.parts[0] != "bach":
        return None
    match = re.fullmatch(r"bwv([\d.]+(?:-\d+)?)", relative.stem)
    return riemenschneider_analyses().get(match.group(1)) if match else None


def pieces(root: Path | None = None) -> list[CorpusPiece]:
    """The corpus pieces in build order (see the module docstring)."""
    root = root or corpus_root()
    groups: dict[str, list[CorpusPiece]] = {}
    seen: set[str] = set()
    for path in musicxml_files(root):
        relative = path.relative_to(root)
        if relative.parts[0] in EXCLUDED_DIRS or piece_id(relative) in seen:
            continue  # a second encoding of a piece (PMFC_13_01 ships as .mxl and .xml) would repeat its questions
        seen.add(piece_id(relative))
        piece = CorpusPiece(id=piece_id(relative), path=path, collection=relative.parts[0],
                            analysis=_analysis_for(relative))
        group = f"{piece.collection} (analysed)" if piece.analysis else piece.collection
        groups.setdefault(group, []).append(piece)
    for members in groups.values():
        members.sort(key=lambda p: p.analysis.name if p.analysis else p.id)  # analyses by Riemenschneider number
    ordered: list[CorpusPiece] = []
    queues = [groups[name] for name in sorted(groups)]
    while any(queues):
        for queue in queues:
            if queue:
                ordered.append(queue.pop(0))
    return ordered
