"""MusicXML/MXL -> bar-numbered ABC (MSU-Bench's text modality), through abctoolkit's xml2abc.

Layout (the paper's Figure 2): header ``X T C M L Q K`` and one ``V:`` definition per voice, then
each voice as a ``V:`` block with one bar per line, every bar line ending in ``%N``, N being the
MusicXML measure number (pickup = 0, as on the rendered pages). ``interleaved=True`` writes bar by
bar instead, ``[V:n]`` before each voice's bar. The unit length is fixed (``L:1/8``, xml2abc's
``-d 8``) so every score reads the same way.

xml2abc is called as a module (its batch helper shells out Windows-style); its module-global
output object is set per call, so conversions in one process run one at a time.
"""

from __future__ import annotations

import contextlib
import copy
import io
import re
import threading
import types
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from abctoolkit import xml2abc as _x2a

from scoreqa.scores.mxl import MusicXMLError, normalise, parse
from scoreqa.scores.numbering import measure_labels

UNIT_DENOMINATOR = 8
_BAR_LINE = re.compile(r"^(?P<music>.*?)\s*%(?P<index>\d+)$")
_BODY_VOICE = re.compile(r"^V:(?P<voice>\S+)\s*$")
_HEADER_ORDER = "XTCMLQ"
_LOCK = threading.Lock()


class ConversionError(RuntimeError):
    """xml2abc could not convert a score; the message names the file and xml2abc's own complaint."""


@dataclass
class AbcScore:
    """The converted text plus what the validation needs to relate it to its source."""

    text: str
    voice_part: dict[str, int]              # ABC voice id -> index of the MusicXML part it came from
    bars: dict[str, list[str]] = field(default_factory=dict)  # voice -> measure label of each bar
    warnings: list[str] = field(default_factory=list)


def _options(unit: int) -> types.SimpleNamespace:
    """xml2abc's command-line options: ``-d unit -b 1 -x`` (one bar per line, no ``$`` breaks)."""
    return types.SimpleNamespace(u=False, m=0, c=0, d=unit, n=0, b=1, o="", v=0, x=True, p=[], j=False, t=False,
                                 s=False, v1=False, ped=True, stm=False, i=False)


class _Output(_x2a.ABCoutput):
    """Keeps header and body apart instead of writing a file."""

    header: list[str]

    def mkHeader(self, *args):  # noqa: N802 (xml2abc's name)
        body = len(self.outlist)
        super().mkHeader(*args)
        self.header = "".join(self.outlist[: len(self.outlist) - body]).splitlines()
        self.body = "".join(self.outlist[len(self.outlist) - body:]).splitlines()

    def writeall(self):  # noqa: N802
        pass


class _Parser(_x2a.Parser):
    """Records which MusicXML part each ABC voice belongs to (xml2abc consumes its own map)."""

    def __init__(self, options):
        super().__init__(options)
        self.voice_part: dict[str, int] = {}
        self._part = 0

    def addStaffMap(self, vvmap):  # noqa: N802
        for abc_voice in vvmap.values():
            self.voice_part[str(abc_voice)] = self._part
        self._part += 1
        super().addStaffMap(vvmap)


def _run_xml2abc(xml_text: str, source: str, unit: int) -> tuple[list[str], list[str], dict[str, int], list[str]]:
    options = _options(unit)
    log = io.StringIO()
    with _LOCK, contextlib.redirect_stderr(log), contextlib.redirect_stdout(log):
        _x2a.abcOut = _Output("score.abc", "", 0, options)
        parser = _Parser(options)
        try:
            parser.parse(io.BytesIO(xml_text.encode("utf-8")))
        except Exception as err:  # xml2abc raises bare exceptions from deep inside
            raise ConversionError(f"{source}: xml2abc failed: {type(err).__name__}: {err}") from err
        output = _x2a.abcOut
    warnings = [line.strip("- ") for line in log.getvalue().splitlines() if line.strip() and "written with" not in line]
    if not getattr(output, "header", None):
        raise ConversionError(f"{source}: xml2abc wrote nothing ({'; '.join(warnings) or 'the score has no notes'})")
    return output.header, output.body, parser.voice_part, warnings


def _ordered_header(lines: list[str], title: str | None, composer: str | None) -> list[str]:
    """X, T, C, M, L, Q first (in that order), then the rest (``%%score``, K ...); voice definitions stay last."""
    first_voice = next((i for i, line in enumerate(lines) if line.startswith("V:")), len(lines))
    fields: dict[str, list[str]] = {key: [] for key in _HEADER_ORDER}
    rest: list[str] = []
    for line in lines[:first_voice]:
        key = line[:1]
        (fields[key] if line[1:2] == ":" and key in fields else rest).append(line)
    if title is not None:
        fields["T"] = [f"T:{title}"]
    else:
        fields["T"] = list(dict.fromkeys(fields["T"]))  # xml2abc repeats the title when work and movement agree
    if composer is not None:
        fields["C"] = [f"C:{composer}"] if composer else []
    return [line for key in _HEADER_ORDER for line in fields[key]] + rest + lines[first_voice:]


def _voice_blocks(body: list[str], source: str) -> dict[str, list[tuple[str, str | None]]]:
    """voice -> its lines as (text, bar index or None); ``w:`` lyric lines are never bars."""
    blocks: dict[str, list[tuple[str, str | None]]] = {}
    current: list[tuple[str, str | None]] | None = None
    for line in body:
        if not line.strip():
            continue
        match = _BODY_VOICE.match(line)
        if match:
            current = blocks.setdefault(match.group("voice"), [])
            continue
        if current is None:
            raise ConversionError(f"{source}: unexpected ABC line before the first voice: {line!r}")
        bar = _BAR_LINE.match(line) if not line.startswith(("w:", "W:", "%%", "I:")) else None
        current.append((bar.group("music").strip(), bar.group("index")) if bar else (line, None))
    return blocks


def convert(path: Path, *, interleaved: bool = False, title: str | None = None, composer: str | None = None,
            unit: int = UNIT_DENOMINATOR) -> AbcScore:
    """Convert the MusicXML/MXL file ``path`` (see the module docstring for the layout).

    ``title`` / ``composer`` replace what xml2abc reads from the file (``composer=""`` drops C:).
    """
    root = normalise(parse(path))
    return convert_tree(root, source=str(path), interleaved=interleaved, title=title, composer=composer, unit=unit)


def convert_tree(root: ET.Element, *, source: str, interleaved: bool = False, title: str | None = None,
                 composer: str | None = None, unit: int = UNIT_DENOMINATOR) -> AbcScore:
    """As :func:`convert`, for an already normalised ``score-partwise`` tree."""
    header, body, voice_part, warnings = _run_xml2abc(_for_xml2abc(root), source, unit)
    parts = root.findall("part")
    labels = [measure_labels_of(part) for part in parts] or [measure_labels(root)]
    blocks = _voice_blocks(body, source)
    bars: dict[str, list[str]] = {}
    for voice, lines in blocks.items():
        part_labels = labels[voice_part.get(voice, 0)]
        numbered = []
        for text, index in lines:
            if index is None:
                numbered.append((text, None))
                continue
            position = int(index) - 1
            if position >= len(part_labels):
                raise ConversionError(f"{source}: voice {voice} has more bars ({index}) than its part has "
                                      f"measures ({len(part_labels)})")
            numbered.append((text, part_labels[position]))
        blocks[voice] = numbered
        bars[voice] = [label for _, label in numbered if label is not None]
    lines = _ordered_header(header, title, composer)
    lines += _interleave(blocks, source) if interleaved else _sequential(blocks)
    return AbcScore(text="\n".join(lines) + "\n", voice_part=voice_part, bars=bars, warnings=warnings)


def _for_xml2abc(root: ET.Element) -> str:
    """The tree as text, minus metronome marks without a number (metric modulations like ♩ = ♪.):
    ABC's ``Q:`` needs a number, and xml2abc crashes on them."""
    root = copy.deepcopy(root)
    for direction_type in root.iter("direction-type"):
        for metronome in direction_type.findall("metronome"):
            if metronome.find("per-minute") is None:
                direction_type.remove(metronome)
    return ET.tostring(root, encoding="unicode")


def measure_labels_of(part: ET.Element) -> list[str]:
    return [m.get("number", "") for m in part.findall("measure")]


def _bar(text: str, label: str) -> str:
    return f"{text} %{label}"


def _sequential(blocks: dict[str, list[tuple[str, str | None]]]) -> list[str]:
    lines: list[str] = []
    for voice, entries in blocks.items():
        lines.append(f"V:{voice}")
        lines += [_bar(text, label) if label is not None else text for text, label in entries]
    return lines


def _interleave(blocks: dict[str, list[tuple[str, str | None]]], source: str) -> list[str]:
    """Bar by bar: ``[V:1] ... %N`` then ``[V:2] ... %N``; a voice's lyric lines follow its bar."""
    per_voice: dict[str, list[list[str]]] = {}
    for voice, entries in blocks.items():
        bars: list[list[str]] = []
        preamble: list[str] = []
        for text, label in entries:
            if label is not None:
                bars.append([f"[V:{voice}] " + _bar(text, label)])
            elif bars:
                bars[-1].append(text)
            else:
                preamble.append(text)
        if preamble and bars:
            bars[0] = preamble + bars[0]
        per_voice[voice] = bars
    counts = {voice: len(bars) for voice, bars in per_voice.items()}
    if len(set(counts.values())) > 1:
        raise ConversionError(f"{source}: voices have different bar counts {counts}; use the V: block layout")
    lines: list[str] = []
    for index in range(max(counts.values(), default=0)):
        for voice in per_voice:
            lines += per_voice[voice][index]
    return lines


def write_abc(path: Path, out_path: Path, **kwargs) -> AbcScore:
    """Convert ``path`` and write the ABC text to ``out_path``."""
    score = convert(path, **kwargs)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(score.text, encoding="utf-8")
    return score


__all__ = ["AbcScore", "ConversionError", "MusicXMLError", "convert", "convert_tree", "write_abc"]
