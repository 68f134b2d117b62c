"""Optional engraver: MuseScore 3 (what MSU-Bench's own pages come from), run headless.

Needs ``mscore3`` on PATH (Debian/Ubuntu package ``musescore3``) or ``SCOREQA_MUSESCORE`` naming the
executable. Its style is set to print a number on every bar. MuseScore prints its own bar count:
it equals the MusicXML numbers when split bars are marked ``implicit`` (excluded from the count),
which is what MuseScore-exported files do; verovio (:mod:`scoreqa.scores.render`) prints the
MusicXML numbers themselves.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from scoreqa.data.pages import RASTER_DPI, sorted_pages
from scoreqa.scores.mxl import normalised_text
from scoreqa.scores.render import Rendering

EXECUTABLES = ("mscore3", "musescore3", "mscore", "musescore", "MuseScore3")
# MuseScore ignores -S style files when importing MusicXML, so the score is imported to .mscx first and
# these settings are written into its <Style> block.
BAR_NUMBER_STYLE = ("<showMeasureNumber>1</showMeasureNumber><showMeasureNumberOne>1</showMeasureNumberOne>"
                    "<measureNumberInterval>1</measureNumberInterval><measureNumberSystem>0</measureNumberSystem>")


def find_musescore() -> str | None:
    configured = os.environ.get("SCOREQA_MUSESCORE")
    if configured:
        return configured if shutil.which(configured) or Path(configured).exists() else None
    return next((found for name in EXECUTABLES if (found := shutil.which(name))), None)


def _run(command: list[str], env: dict[str, str], timeout: int, path: Path) -> None:
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0 or not Path(command[2]).exists():
        raise RuntimeError(f"{path}: MuseScore failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")


def render_musescore(path: Path, out_dir: Path, dpi: int = RASTER_DPI, timeout: int = 600) -> Rendering:
    """Write ``out_dir/score.pdf`` and ``out_dir/page-<n>.png`` with MuseScore 3."""
    import pymupdf

    executable = find_musescore()
    if executable is None:
        raise FileNotFoundError("MuseScore 3 not found: install it (apt-get install musescore3) or set "
                                "SCOREQA_MUSESCORE to its executable; or use the default engraver (verovio)")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in sorted_pages(out_dir):
        old.unlink()
    pdf_path = out_dir / "score.pdf"
    with tempfile.TemporaryDirectory(prefix="scoreqa-mscore-") as tmp:
        source, native = Path(tmp) / "score.musicxml", Path(tmp) / "score.mscx"
        source.write_text(normalised_text(path), encoding="utf-8")
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": tmp}
        _run([executable, "-o", str(native), str(source)], env, timeout, path)
        text = native.read_text(encoding="utf-8")
        if "<Style>" not in text:
            raise RuntimeError(f"{path}: MuseScore wrote an .mscx without a <Style> block; cannot number every bar")
        native.write_text(text.replace("<Style>", "<Style>" + BAR_NUMBER_STYLE, 1), encoding="utf-8")
        _run([executable, "-o", str(pdf_path), str(native)], env, timeout, path)
    pages = []
    with pymupdf.open(pdf_path) as document:
        for number, page in enumerate(document, start=1):
            target = out_dir / f"page-{number}.png"
            page.get_pixmap(dpi=dpi).save(target)
            pages.append(target)
    return Rendering(pdf=pdf_path, pages=tuple(pages))
