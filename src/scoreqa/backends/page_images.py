"""Score pages as images for remote models: bounded to a pixel budget, encoded as ``data:`` URLs.

Hosted APIs take images inline; the 12 questions of a score send the same pages, so each page is read
and encoded once per process (keyed by path, modification time and budget).
"""

from __future__ import annotations

import base64
import io
import math
from functools import lru_cache
from pathlib import Path

from PIL import Image

_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp",
         ".gif": "image/gif"}


def fit_to_budget(image: Image.Image, max_pixels: int | None) -> Image.Image:
    """``image`` scaled down (aspect kept) so that width x height <= ``max_pixels``; never scaled up."""
    width, height = image.size
    if not max_pixels or width * height <= max_pixels:
        return image
    scale = math.sqrt(max_pixels / (width * height))
    size = (max(1, math.floor(width * scale)), max(1, math.floor(height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS)


@lru_cache(maxsize=256)
def _encoded(path: str, mtime_ns: int, max_pixels: int | None) -> str:
    source = Path(path)
    with Image.open(source) as opened:
        if max_pixels and opened.width * opened.height > max_pixels:
            buffer = io.BytesIO()
            fit_to_budget(opened.convert("RGB"), max_pixels).save(buffer, format="PNG")
            return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    mime = _MIME.get(source.suffix.lower())
    if mime is None:
        raise ValueError(f"page image {source} has an unsupported type; use PNG, JPEG, WebP or GIF")
    return f"data:{mime};base64," + base64.b64encode(source.read_bytes()).decode("ascii")


def page_data_url(path: str | Path, max_pixels: int | None = None) -> str:
    """The page as a ``data:`` URL, re-encoded as PNG only when it exceeds ``max_pixels``."""
    source = Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"page image {source} does not exist (re-run with the score's PDF or PNG pages "
                                "in data.score_dir, or data.skip_missing=true)")
    return _encoded(str(source), source.stat().st_mtime_ns, max_pixels)
