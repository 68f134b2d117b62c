"""MusicXML -> PDF + page PNGs: page count, A4 size, ink, every bar numbered, Leipzig registered."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from scoreqa.corpus.catalog import corpus_root
from scoreqa.scores.__main__ import main as scores_cli
from scoreqa.scores.mxl import normalise, parse
from scoreqa.scores.numbering import measure_labels
from scoreqa.scores.render import engrave_svg, register_leipzig, render

JOPLIN = corpus_root() / "joplin" / "maple_leaf_rag.mxl"
BWV269 = corpus_root() / "bach" / "bwv269.mxl"


def _is_a4(png: Path, dpi: int) -> bool:
    """210 x 297 mm at ``dpi``, give or take the pixel the rasteriser rounds."""
    width, height = Image.open(png).size
    return abs(width - 210 / 25.4 * dpi) <= 1.5 and abs(height - 297 / 25.4 * dpi) <= 1.5


def _ink(png: Path) -> float:
    """Share of dark pixels on a page."""
    pixels = np.asarray(Image.open(png).convert("L"))
    return float((pixels < 128).mean())


@pytest.fixture(scope="module")
def joplin_pages(tmp_path_factory, cache_dir):
    return render(JOPLIN, tmp_path_factory.mktemp("joplin"))


def test_pages_are_a4_with_ink_and_match_the_pdf(joplin_pages):
    import pymupdf

    with pymupdf.open(joplin_pages.pdf) as document:
        assert document.page_count == len(joplin_pages.pages) == 3       # 85 bars of piano on A4
        width, height = document[0].rect.width, document[0].rect.height
    assert abs(width - 595.28) < 1 and abs(height - 841.89) < 1
    for page in joplin_pages.pages:
        assert _is_a4(page, 150)
        assert 0.03 < _ink(page) < 0.30, page            # real staves and notes, not blank, not black
    assert [p.name for p in joplin_pages.pages] == ["page-1.png", "page-2.png", "page-3.png"]


def test_every_bar_is_numbered_with_its_musicxml_number():
    root = normalise(parse(BWV269))
    shown = []
    for svg in engrave_svg(root, "bwv269"):
        for group in re.finditer(r'class="mNum[^"]*">(.*?)</g>', svg, re.DOTALL):
            shown.append(re.sub(r"<[^>]+>", "", group.group(1)).strip())
    assert shown == measure_labels(root)      # 0 (pickup), 1 ... 7, 7a, 8 ... 21: all shown, none extra


def test_leipzig_is_visible_to_fontconfig(cache_dir):
    if shutil.which("fc-match") is None:
        pytest.skip("fontconfig's fc-match is not installed")
    config = register_leipzig(cache_dir / "fonts")
    found = subprocess.run(["fc-match", "-f", "%{family}", "Leipzig"], capture_output=True, text=True, check=True,
                           env={**os.environ, "FONTCONFIG_FILE": str(config)}).stdout
    assert found == "Leipzig"


def test_cli_render_writes_pdf_and_pages(tmp_path: Path, capsys):
    assert scores_cli(["render", str(BWV269), "-o", str(tmp_path / "out"), "--dpi", "72"]) == 0
    assert (tmp_path / "out" / "score.pdf").stat().st_size > 5000
    pages = sorted((tmp_path / "out").glob("page-*.png"))
    assert len(pages) == 1 and _is_a4(pages[0], 72) and _ink(pages[0]) > 0.02


@pytest.mark.skipif(not any(shutil.which(n) for n in ("mscore3", "musescore3")), reason="MuseScore 3 not installed")
def test_musescore_engraver(tmp_path: Path):
    from scoreqa.scores.musescore import render_musescore

    result = render_musescore(BWV269, tmp_path, dpi=72)
    assert len(result.pages) >= 1 and result.pdf.stat().st_size > 5000
    assert _ink(result.pages[0]) > 0.02 and all(_ink(p) > 0.005 and _is_a4(p, 72) for p in result.pages)
