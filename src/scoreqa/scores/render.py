"""MusicXML -> PDF (all pages) + ``page-<n>.png``, every bar numbered with its MusicXML number.

verovio engraves A4 pages as SVG (``mnumInterval=1``), cairosvg turns each into a PDF page,
pymupdf joins them and rasterises the PNGs (so the PNGs are exactly the PDF). Two fixes make the
pages match the ABC: bars MusicXML marks ``implicit`` (a pickup, a bar split by a repeat) get
their number printed too, and verovio's Leipzig font is registered with fontconfig, because
cairosvg ignores the ``@font-face`` verovio embeds and tempo marks (the note glyph in "♩ = 80")
would otherwise come out as boxes.
"""

from __future__ import annotations

import base64
import copy
import os
import re
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from scoreqa.data.pages import RASTER_DPI, sorted_pages
from scoreqa.scores.mxl import normalise, parse

A4_POINTS = (595.28, 841.89)
PAGE_UNITS = (2100, 2970)  # verovio's A4 in tenths of a millimetre
VEROVIO_OPTIONS = {"pageWidth": PAGE_UNITS[0], "pageHeight": PAGE_UNITS[1], "scale": 100, "mnumInterval": 1,
                   "footer": "none", "header": "auto", "breaks": "auto", "smuflTextFont": "none"}


@dataclass(frozen=True)
class Rendering:
    pdf: Path
    pages: tuple[Path, ...]


def register_leipzig(font_dir: Path) -> Path:
    """Make fontconfig (hence cairosvg) see verovio's Leipzig font; returns the fonts.conf used.

    Must run before cairo first looks up a font in this process: it points ``FONTCONFIG_FILE``
    at a config that includes the system one plus ``font_dir``.
    """
    import verovio

    font_dir = Path(font_dir)
    font_file = font_dir / "Leipzig.woff2"
    if not font_file.exists():
        css = (Path(verovio.__file__).parent / "data" / "Leipzig.css").read_text()
        match = re.search(r"base64,([A-Za-z0-9+/=]+)\)", css)
        if not match:
            raise RuntimeError("verovio's data/Leipzig.css holds no embedded font; cannot register Leipzig")
        font_dir.mkdir(parents=True, exist_ok=True)
        font_file.write_bytes(base64.b64decode(match.group(1)))
    config = (font_dir / "fonts.conf").resolve()
    previous = os.environ.get("FONTCONFIG_FILE")
    system = previous if previous and Path(previous).resolve() != config else "/etc/fonts/fonts.conf"
    include = f'<include ignore_missing="yes">{system}</include>'
    text = (f'<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>{include}'
            f"<dir>{font_dir.resolve()}</dir><cachedir>{(font_dir / 'cache').resolve()}</cachedir></fontconfig>\n")
    if not config.exists() or config.read_text() != text:
        config.write_text(text)
    os.environ["FONTCONFIG_FILE"] = str(config.resolve())
    return config


def default_font_dir() -> Path:
    return Path(os.environ.get("SCOREQA_CACHE_DIR", Path.home() / ".cache" / "scoreqa")) / "fonts"


def engrave_svg(root: ET.Element, source: str) -> list[str]:
    """verovio SVG pages of a normalised tree, all bar numbers shown."""
    import verovio

    root = copy.deepcopy(root)
    for measure in root.iter("measure"):
        measure.attrib.pop("implicit", None)  # verovio prints no number on implicit bars
    if hasattr(verovio, "LOG_ERROR"):
        verovio.enableLog(verovio.LOG_ERROR)  # layout warnings (beam spans, ties) would flood a corpus build
    toolkit = verovio.toolkit()
    toolkit.setOptions(VEROVIO_OPTIONS)
    if not toolkit.loadData(ET.tostring(root, encoding="unicode")):
        raise RuntimeError(f"{source}: verovio could not load the MusicXML")
    pages = [toolkit.renderToSVG(page) for page in range(1, toolkit.getPageCount() + 1)]
    if not pages:
        raise RuntimeError(f"{source}: verovio engraved no pages")
    return pages


def render(path: Path, out_dir: Path, dpi: int = RASTER_DPI, font_dir: Path | None = None) -> Rendering:
    """Write ``out_dir/score.pdf`` and ``out_dir/page-<n>.png`` for the MusicXML/MXL file ``path``."""
    return render_tree(normalise(parse(path)), out_dir, source=str(path), dpi=dpi, font_dir=font_dir)


def render_tree(root: ET.Element, out_dir: Path, *, source: str, dpi: int = RASTER_DPI,
                font_dir: Path | None = None) -> Rendering:
    register_leipzig(font_dir or default_font_dir())
    import cairosvg
    import pymupdf

    svgs = engrave_svg(root, source)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in sorted_pages(out_dir):
        old.unlink()
    scale = A4_POINTS[0] / (PAGE_UNITS[0] * 0.75)  # SVG px -> PDF pt is 0.75; fit the page to A4
    pdf_path = out_dir / "score.pdf"
    with pymupdf.open() as document:
        for svg in svgs:
            page_pdf = cairosvg.svg2pdf(bytestring=svg.encode("utf-8"), scale=scale)
            with pymupdf.open("pdf", page_pdf) as page:
                document.insert_pdf(page)
        document.save(pdf_path, garbage=3, deflate=True)
        pages = []
        for number, page in enumerate(document, start=1):
            target = out_dir / f"page-{number}.png"
            page.get_pixmap(dpi=dpi).save(target)
            pages.append(target)
    return Rendering(pdf=pdf_path, pages=tuple(pages))
