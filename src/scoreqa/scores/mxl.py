"""Read any MusicXML file (``.xml``, ``.musicxml``, compressed ``.mxl``) into one clean, UTF-8 tree.

Why not hand files straight to the converters: ``.mxl`` archives may hold a ``*.musicxml`` root
file (xml2abc only looks for ``*.xml``), files come in UTF-16, part names carry tab/newline
junk that ends up inside ABC ``V:`` lines, lyric lines are named ("chorus") where xml2abc
expects numbers, and some notes carry an empty ``<accidental/>``. Everything downstream (ABC, rendering, questions, the
fact sheet) reads the normalised text written by :func:`write_normalised`, so all of them agree.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

from scoreqa.scores.numbering import renumber_measures

MUSICXML_SUFFIXES = (".xml", ".musicxml", ".mxl")
_CONTAINER = "META-INF/container.xml"


class MusicXMLError(ValueError):
    """A file that is not readable MusicXML; the message names the file and what to do."""


def read_bytes(path: Path) -> bytes:
    """The raw MusicXML document of ``path``; for ``.mxl`` the archive's root file."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"MusicXML file {path} does not exist")
    if path.suffix.lower() not in MUSICXML_SUFFIXES:
        raise MusicXMLError(f"{path}: expected one of {MUSICXML_SUFFIXES}")
    if path.suffix.lower() != ".mxl" and not zipfile.is_zipfile(path):
        return path.read_bytes()
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.read(_root_file(archive, path))
    except zipfile.BadZipFile as err:
        raise MusicXMLError(f"{path} is not a valid .mxl (zip) archive: {err}") from err


def _root_file(archive: zipfile.ZipFile, path: Path) -> str:
    """The root file named by ``META-INF/container.xml``, else the only MusicXML member."""
    names = archive.namelist()
    if _CONTAINER in names:
        container = ET.fromstring(archive.read(_CONTAINER))
        for rootfile in container.iter():
            if rootfile.tag.endswith("rootfile") and rootfile.get("full-path") in names:
                return rootfile.get("full-path")
    candidates = [n for n in names if not n.startswith("META-INF/") and n.lower().endswith((".xml", ".musicxml"))]
    if not candidates:
        raise MusicXMLError(f"{path}: the archive holds no .xml/.musicxml score (members: {names[:10]})")
    return candidates[0]


def parse(path: Path) -> ET.Element:
    """The ``score-partwise`` root of ``path`` (UTF-8, UTF-16 or any declared encoding)."""
    data = read_bytes(path)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as err:
        raise MusicXMLError(f"{path}: not well-formed XML ({err})") from err
    if root.tag == "score-timewise":
        raise MusicXMLError(f"{path}: timewise MusicXML is not supported; convert it to score-partwise "
                            "(e.g. open and re-export it in MuseScore)")
    if root.tag != "score-partwise":
        raise MusicXMLError(f"{path}: root element <{root.tag}> is not <score-partwise>")
    if not root.findall("part/measure"):
        raise MusicXMLError(f"{path}: the score has no measures")
    return root


def clean_text(text: str | None) -> str:
    """Collapse tabs, newlines and runs of spaces (junk in part names and titles)."""
    return re.sub(r"\s+", " ", text or "").strip()


def normalise(root: ET.Element) -> ET.Element:
    """Clean names and number measures the way every output of this package shows them (in place)."""
    for tag in ("part-name", "part-abbreviation", "instrument-name", "work-title", "movement-title",
                "creator", "group-name"):
        for element in root.iter(tag):
            if element.text:
                element.text = clean_text(element.text)
    for part in root.findall("part"):
        _number_lyrics(part)
        for note in part.iter("note"):  # <accidental/> with no sign is invalid and crashes xml2abc
            for accidental in note.findall("accidental"):
                if not (accidental.text or "").strip():
                    note.remove(accidental)
    renumber_measures(root)
    return root


def _number_lyrics(part: ET.Element) -> None:
    """Lyric lines named ``chorus``/``verse1`` get integer numbers (xml2abc reads them with ``int``)."""
    lyrics = list(part.iter("lyric"))
    taken = {int(n) for lyric in lyrics if (n := lyric.get("number", "1")).isdigit()}
    names: dict[str, str] = {}
    for lyric in lyrics:
        number = lyric.get("number", "1")
        if not number.isdigit():
            if number not in names:
                names[number] = str(max(taken | {0}) + 1)
                taken.add(int(names[number]))
            lyric.set("number", names[number])


def document(root: ET.Element) -> str:
    """A tree as a MusicXML document string (declared UTF-8)."""
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def normalised_text(path: Path) -> str:
    """The normalised MusicXML of ``path`` as a UTF-8 document string."""
    return document(normalise(parse(path)))


def write_normalised(path: Path, out_path: Path) -> Path:
    """Write the normalised MusicXML of ``path`` to ``out_path`` (a plain ``.musicxml`` file)."""
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(normalised_text(path), encoding="utf-8")
    return out_path
