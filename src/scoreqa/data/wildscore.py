"""WildScore (arXiv 2509.04744): 807 multiple-choice questions about real score images, test only.

Reads a local copy of the Hugging Face release ``GM77/WildScore``: ``data.csv`` (the ``csv``
config) and the ``images/`` folder (the ``imagefolder`` config). Column names are matched
tolerantly (:func:`find_column`); options come either as one list column or as one column per
letter. Each item is asked twice in one run, as in the paper: with the score image (``:image``)
and as text only (``:text``, the paper's ablation), so the with-vs-without-image delta comes from
the same run. ``data.modes`` restricts that.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from scoreqa.data.abc_eval import parse_list_literal
from scoreqa.data.benchmark import Benchmark, check_too_long
from scoreqa.metrics.record import Estimate, Scores
from scoreqa.data.columns import blank_to_none, find_column
from scoreqa.data.records import BenchmarkSplit, Question, Score
from scoreqa.data.selection import MissingScoreInput

LETTERS = "ABCDEFGHIJ"
MODES = ("image", "text")
_ID = ["id", "question_id", "qid", "uid", "post_id"]
_IMAGE = ["image", "image_path", "image_file", "image_name", "file_name", "filename", "img", "image_id"]
_QUESTION = ["question", "question_text", "query", "prompt"]
_OPTIONS = ["options", "choices", "answer_options", "mcq_options"]
_ANSWER = ["answer", "correct_answer", "correct_option", "ground_truth", "gt", "label"]
_CATEGORY = ["category", "high_level_category", "main_category", "topic"]
_SUBCATEGORY = ["subcategory", "sub_category", "fine_category", "fine_grained_category", "subtopic"]
_DIFFICULTY = ["difficulty", "difficulty_level", "tier", "level"]


def split_options(value: Any) -> list[str]:
    """Options from a list literal, a JSON list, or lines like ``A. text`` / ``(B) text``."""
    text = str(value or "").strip()
    if text.startswith("["):
        try:
            return [str(x) for x in json.loads(text)]
        except json.JSONDecodeError:
            return parse_list_literal(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    stripped = [line[2:].strip() if len(line) > 1 and line[0] in LETTERS and line[1] in ".):" else
                line[3:].strip() if line[:1] == "(" and line[2:3] == ")" else line for line in lines]
    return stripped


class WildScoreBench(Benchmark):
    """WildScore as configured in ``conf/data/wildscore.yaml``."""

    def __init__(self, name: str = "wildscore", root: str = "", csv_name: str = "data.csv",
                 images_dir: str = "images", split: str = "all", limit: int | None = None,
                 modes: Sequence[str] = MODES, skip_missing: bool = False,
                 templates: Mapping[str, str] | None = None, split_seed: int = 0, too_long: str = "fail") -> None:
        self.too_long = check_too_long(too_long)
        if split not in ("all", "test"):
            raise ValueError(f"WildScore is a test-only benchmark: data.split must be 'all' (or 'test'), got {split!r}")
        unknown = [m for m in modes if m not in MODES]
        if unknown or not modes:
            raise ValueError(f"data.modes must be a non-empty subset of {MODES}; got {list(modes)}")
        self.name, self.split, self.root = name, split, Path(root)
        self.csv_path, self.images_dir = self.root / csv_name, self.root / images_dir
        self.limit, self.modes, self.skip_missing = limit, list(modes), skip_missing
        self.templates = dict(templates or {})
        self._questions: dict[str, Question] = {}

    def _image_path(self, value: str | None) -> Path | None:
        if not value:
            return None
        candidates = [self.root / value, self.images_dir / value, self.images_dir / Path(value).name]
        return next((p for p in candidates if p.is_file()), None)

    def _options(self, table: pd.DataFrame, row: Mapping[str, Any]) -> list[str]:
        column = find_column(table, _OPTIONS, source=self.csv_path, required=False)
        if column:
            return split_options(row[column])
        letter_columns = [find_column(table, [letter, f"option_{letter}", f"option{letter}", f"choice_{letter}"],
                                      source=self.csv_path, required=False) for letter in LETTERS[:4]]
        if not all(letter_columns[:2]):
            raise KeyError(f"{self.csv_path}: no options column (tried {_OPTIONS}) and no per-letter columns A, B, ... "
                           f"(or option_A ...); columns present: {list(table.columns)}")
        return [str(row[c]).strip() for c in letter_columns if c and blank_to_none(row[c]) is not None]

    def read_items(self) -> list[dict[str, Any]]:
        if not self.root.is_dir():
            raise FileNotFoundError(f"WildScore folder {self.root} not found: set data.root to a local copy of the "
                                    "Hugging Face dataset GM77/WildScore (data.csv and images/)")
        if not self.csv_path.is_file():
            raise FileNotFoundError(f"WildScore table {self.csv_path} not found (the release's csv config)")
        if "image" in self.modes and not self.images_dir.is_dir():
            raise FileNotFoundError(f"WildScore image folder {self.images_dir} not found (the release's imagefolder "
                                    "config); or run text only with data.modes=[text]")
        table = pd.read_csv(self.csv_path, dtype=str, keep_default_na=False)
        columns = {key: find_column(table, aliases, source=self.csv_path, required=key in ("question", "answer"))
                   for key, aliases in (("id", _ID), ("image", _IMAGE), ("question", _QUESTION), ("answer", _ANSWER),
                                        ("category", _CATEGORY), ("subcategory", _SUBCATEGORY),
                                        ("difficulty", _DIFFICULTY))}
        if "image" in self.modes and columns["image"] is None:
            raise KeyError(f"{self.csv_path}: no image column (tried {_IMAGE}); columns present: {list(table.columns)}")
        items = []
        for number, row in enumerate(table.to_dict("records")):
            where = f"{self.csv_path.name} row {number + 2}"
            options = self._options(table, row)
            answer = str(row[columns["answer"]]).strip()
            letter = self._answer_letter(answer, options, where)
            item_id = str(row[columns["id"]]).strip() if columns["id"] else f"{number:04d}"
            get = lambda key: blank_to_none(row[columns[key]]) if columns[key] else None  # noqa: E731
            items.append({"id": item_id, "question": str(row[columns["question"]]).strip(), "options": options,
                          "answer": letter, "image": get("image"), "category": get("category"),
                          "subcategory": get("subcategory"), "difficulty": get("difficulty"), "where": where})
        return items[: int(self.limit)] if self.limit is not None else items

    @staticmethod
    def _answer_letter(answer: str, options: list[str], where: str) -> str:
        cleaned = answer.strip().strip("().").upper()
        if len(cleaned) == 1 and cleaned in LETTERS[:len(options)]:
            return cleaned
        matches = [LETTERS[i] for i, option in enumerate(options) if option.strip() == answer.strip()]
        if len(matches) != 1:
            raise ValueError(f"{where}: answer {answer!r} is neither an option letter nor one option's text")
        return matches[0]

    def load(self, needs: Iterable[str]) -> BenchmarkSplit:
        needs = list(needs)
        if "image" in self.modes and needs != ["pages"]:
            raise ValueError(f"WildScore shows the score image (modality=pdf); this run asks for {needs}")
        scores: dict[str, Score] = {}
        questions: list[Question] = []
        skipped: list[dict[str, str]] = []
        for item in self.read_items():
            meta = {"category": item["category"], "subcategory": item["subcategory"], "difficulty": item["difficulty"],
                    "option_labels": LETTERS[:len(item["options"])]}
            if "image" in self.modes:
                image = self._image_path(item["image"])
                if image is None:
                    message = f"{item['where']}: image {item['image']!r} not found under {self.images_dir}"
                    if not self.skip_missing:
                        raise MissingScoreInput(message + "; add it or pass data.skip_missing=true")
                    skipped.append({"score_id": item["id"], "title": item["id"], "missing": "pages"})
                else:
                    scores[item["id"]] = Score(id=item["id"], title=item["id"], page_images=(image,))
                    questions.append(Question(f"{item['id']}:image", item["id"], 0, item["question"], item["answer"],
                                              tuple(item["options"]), {**meta, "mode": "image"}))
            if "text" in self.modes:
                scores[f"{item['id']}:text"] = Score(id=f"{item['id']}:text", title=item["id"])
                questions.append(Question(f"{item['id']}:text", f"{item['id']}:text", 0, item["question"],
                                          item["answer"], tuple(item["options"]),
                                          {**meta, "mode": "text", "template": "text"}))
        self._questions = {q.id: q for q in questions}
        return BenchmarkSplit(self.name, self.split, scores, questions, skipped)

    def metrics(self, records: Sequence[Any], bootstrap_resamples: int = 0) -> Scores:
        from scoreqa.metrics.wildscore import wildscore_metrics

        d = wildscore_metrics(records, self._questions)
        modes = d["modes"]
        main = modes.get("image") or modes.get("text") or {}
        return Scores("overall", d["overall"],
                      {"mode": {m: Estimate(v["accuracy"], n=v["n"]) for m, v in modes.items()},
                       "category": {k: Estimate(v) for k, v in main.get("categories", {}).items()}}, details=d)
