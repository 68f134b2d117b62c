"""Page images for visual modalities: shipped PNGs, or pages rasterised once from the score's PDF."""

from __future__ import annotations

import re
from pathlib import Path

_PAGE = re.compile(r"page[-_]?(\d+)\.png$", re.IGNORECASE)
RASTER_DPI = 150


def sorted_pages(folder: Path) -> tuple[Path, ...]:
    """``page-<n>.png`` files of a folder in page order (``page-10`` after ``page-9``)."""
    if not folder.is_dir():
        return ()
    numbered = [(int(m.group(1)), p) for p in folder.iterdir() if (m := _PAGE.search(p.name))]
    return tuple(p for _, p in sorted(numbered))


def rasterise_pdf(pdf_path: Path, out_dir: Path, dpi: int = RASTER_DPI) -> tuple[Path, ...]:
    """Render every PDF page to ``out_dir/page-<n>.png`` (kept, so later runs reuse them)."""
    existing = sorted_pages(out_dir)
    if existing:
        return existing
    try:
        import pymupdf
    except ImportError as err:  # the `scores` extra
        raise ImportError(f"{pdf_path} has no page PNGs beside it and pymupdf is not installed to render them: "
                          "pip install -c constraints.txt -e '.[scores]'") from err
    out_dir.mkdir(parents=True, exist_ok=True)
    with pymupdf.open(pdf_path) as document:
        for number, page in enumerate(document, start=1):
            page.get_pixmap(dpi=dpi).save(out_dir / f"page-{number}.png")
    return sorted_pages(out_dir)


def page_images_for(page_dir: Path, pdf_path: Path | None, cache_dir: Path) -> tuple[Path, ...]:
    """Pages shipped in ``page_dir`` if any, else the PDF's pages rendered into ``cache_dir``."""
    shipped = sorted_pages(page_dir)
    if shipped:
        return shipped
    if pdf_path is not None and Path(pdf_path).exists():
        return rasterise_pdf(Path(pdf_path), cache_dir)
    return ()
