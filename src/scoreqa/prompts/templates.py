"""Versioned prompt templates: ``msu/user.v1`` is ``templates/msu/user.v1.txt`` in this package.

A template never changes once a run used it; a new wording is a new version. The text's hash goes
into the run key, so an edited file can never silently reuse cached predictions.

A file may open with header lines starting with ``#!``: where the wording comes from (paper,
section) and the choices the paper leaves open, with their reasons. The header is documentation,
never sent: it is cut before rendering, and the hash covers only the text that is sent, so adding
or editing a header never changes a run key (the v1 files gained headers with their keys unchanged).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path


HEADER_PREFIX = "#!"


def split_header(raw: str) -> tuple[str, str]:
    """(header, text): the leading ``#!`` lines (prefix removed) and the text after them, sent as is."""
    lines = raw.splitlines(keepends=True)
    count = 0
    while count < len(lines) and lines[count].startswith(HEADER_PREFIX):
        count += 1
    header = "".join(line[len(HEADER_PREFIX):].strip() + "\n" for line in lines[:count])
    return header, "".join(lines[count:])


@dataclass(frozen=True)
class Template:
    id: str
    text: str
    header: str = ""

    @classmethod
    def parse(cls, template_id: str, raw: str) -> "Template":
        header, text = split_header(raw)
        return cls(id=template_id, text=text, header=header)

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:12]

    def split_at(self, slot: str) -> tuple[str, str]:
        """Text before and after ``{slot}``, for slots filled with images rather than text."""
        marker = "{" + slot + "}"
        if self.text.count(marker) != 1:
            raise ValueError(f"template {self.id} must contain {marker} exactly once")
        before, after = self.text.split(marker)
        return before, after


@lru_cache(maxsize=None)
def load_template(template_id: str) -> Template:
    """A packaged template by id, or any file when the id is a path (for a user's own wording)."""
    path = Path(template_id)
    if path.suffix == ".txt" and path.exists():
        return Template.parse(str(path), path.read_text(encoding="utf-8"))
    resource = resources.files("scoreqa.prompts") / "templates" / f"{template_id}.txt"
    if not resource.is_file():
        raise FileNotFoundError(f"prompt template {template_id!r} not found: expected "
                                f"src/scoreqa/prompts/templates/{template_id}.txt or a path to a .txt file")
    return Template.parse(template_id, resource.read_text(encoding="utf-8"))
