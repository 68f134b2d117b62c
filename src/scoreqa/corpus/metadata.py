"""Title and composer of a corpus piece, and whether they are reliable enough to ask about.

music21's encodings are uneven: Bach chorales are titled ``bwv269.mxl``, Monteverdi madrigals
carry OCR debris and part names (``CANTO``) as titles, composers appear as "L van Beethoven" or a
poet's name. So: the composer of a single-composer collection comes from the table below (full
names, as MSU-Bench writes them); otherwise from the file's ``creator`` when it reads like a
name. The title comes from the human analysis (Riemenschneider chorales), else the file's
work/movement title or its largest credit text, when it reads like a title. Anything else gets a
descriptive fallback title (for the title modality) and no question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from scoreqa.corpus.catalog import CorpusPiece

COMPOSERS = {
    "bach": "Johann Sebastian Bach", "beach": "Amy Beach", "beethoven": "Ludwig van Beethoven",
    "ciconia": "Johannes Ciconia", "corelli": "Arcangelo Corelli", "cpebach": "Carl Philipp Emanuel Bach",
    "handel": "George Frideric Handel", "haydn": "Joseph Haydn", "johnson_j_r": "J. Rosamond Johnson",
    "joplin": "Scott Joplin", "liliuokalani": "Liliʻuokalani", "lusitano": "Vicente Lusitano",
    "monteverdi": "Claudio Monteverdi", "mozart": "Wolfgang Amadeus Mozart", "schoenberg": "Arnold Schoenberg",
    "schubert": "Franz Schubert", "schumann_clara": "Clara Schumann", "schumann_robert": "Robert Schumann",
    "verdi": "Giuseppe Verdi", "weber": "Carl Maria von Weber", "webern": "Anton Webern",
}
# Modal (pre-1600) and atonal repertories: a key signature plus a bass note does not make a key.
NON_TONAL = frozenset({"ciconia", "josquin", "luca", "lusitano", "monteverdi", "palestrina", "schoenberg",
                       "trecento", "webern"})
GENERIC_PART_NAME = re.compile(r"^(musicxml part|part\s*\d*|p\d+|staff\s*\d*|instrument\s*\d*)?$", re.IGNORECASE)
_FILE_NAME = re.compile(r"\.(mxl|xml|musicxml|krn|mus|abc)$", re.IGNORECASE)
_NAME = re.compile(r"^[A-Z][\w.'’ -]+$")


@dataclass(frozen=True)
class PieceMetadata:
    title: str
    composer: str | None
    title_source: str | None       # where a reliable title came from; None = fallback, not asked about
    composer_source: str | None
    tonal: bool = True             # may the opening key be read off signature + bass (not for modal/atonal music)


def looks_like_title(text: str | None) -> bool:
    """A human title: not a file name, not an all-caps part name, mostly letters."""
    text = (text or "").strip()
    if len(text) < 3 or _FILE_NAME.search(text) or (text.isupper() and " " not in text):
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in text)
    return letters / len(text) >= 0.75 and not re.search(r"[\"';:,.]{2,}", text)


def _analysis_title(analysis: Path) -> str | None:
    match = re.search(r"^Title:\s*(.+)$", analysis.read_text(encoding="utf-8", errors="replace"), re.MULTILINE)
    return match.group(1).strip() if match else None


def _file_title(root: ET.Element) -> tuple[str | None, str | None]:
    for tag in ("work/work-title", "movement-title"):
        text = (root.findtext(tag) or "").strip()
        if looks_like_title(text):
            return text, f"MusicXML <{tag.split('/')[-1]}>"
    credits = [(float(c.get("font-size") or 0), (c.text or "").strip()) for c in root.findall("credit/credit-words")]
    credits = [c for c in credits if c[0] > 0]
    if credits:
        size, text = max(credits, key=lambda c: c[0])
        if looks_like_title(text):
            return text, "MusicXML largest credit text"
    return None, None


def _file_composer(root: ET.Element) -> str | None:
    for creator in root.findall("identification/creator"):
        if creator.get("type") == "composer":
            first = (creator.text or "").strip().splitlines()[0].strip() if (creator.text or "").strip() else ""
            if _NAME.match(first) and not re.search(r"\d|anonym", first, re.IGNORECASE):
                return first
    return None


def fallback_title(piece: CorpusPiece) -> str:
    """A readable label from the file path, e.g. ``bach bwv269`` -> "Bach BWV 269" (never asked about)."""
    words = piece.id.replace("_", " ").split("-")
    words = [re.sub(r"^bwv", "BWV ", w) for w in words]
    return " ".join(w[:1].upper() + w[1:] for w in words)


def piece_metadata(piece: CorpusPiece, root: ET.Element) -> PieceMetadata:
    title, title_source = (None, None)
    if piece.analysis is not None:
        title = _analysis_title(piece.analysis)
        title_source = "Riemenschneider analysis (.rntxt) Title" if title else None
    if title is None:
        title, title_source = _file_title(root)
    if piece.collection in COMPOSERS:
        composer, composer_source = COMPOSERS[piece.collection], "collection table (scoreqa.corpus.metadata)"
    else:
        composer = _file_composer(root)
        composer_source = "MusicXML <creator type=composer>" if composer else None
    return PieceMetadata(title=title or fallback_title(piece), composer=composer, title_source=title_source,
                         composer_source=composer_source, tonal=piece.collection not in NON_TONAL)
