"""ABC-Eval (arXiv 2509.23350): 10 subtasks on ABC notation, one CSV per subtask, test only.

The official CSVs (``ZhaoJH97/ABC-Eval``, ``csv/<Subtask>.csv``) share the columns ``title``,
``score`` or ``input`` (the ABC text; the name differs by file), ``choices``, ``target``,
``target_index``, ``task_description``; ``Error_Detection.csv`` adds ``error``. Every CSV found in
``root`` is read, so ``Composer_Recognition.csv`` (not in ../shared) is picked up when a user adds it.
Each file's row count is checked against the paper's Table 1.

Quirks handled here: choice lists are Python list literals whose strings may hold raw newlines
(Bar Sequencing), targets may keep backslash escapes the choices do not (``O\\'Niel``), and
Next_Bar_Prediction has an empty ``target`` (the answer is ``target_index``).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from scoreqa.data.benchmark import Benchmark, check_too_long
from scoreqa.metrics.record import Estimate, Scores
from scoreqa.data.columns import blank_to_none, find_column
from scoreqa.data.records import BenchmarkSplit, Question, Score

log = logging.getLogger(__name__)

CHOICE, COUNT, ORDER, BARS = "choice", "count", "order", "bars"


@dataclass(frozen=True)
class Subtask:
    name: str
    kind: str  # choice: answer with the option index; count: a number; order: bar indices; bars: bar numbers
    rows: int  # the paper's Table 1


SUBTASKS: dict[str, Subtask] = {s.name: s for s in (
    Subtask("Bar_Count_Estimation", COUNT, 100),
    Subtask("Metadata_QA", CHOICE, 60),
    Subtask("Error_Detection", BARS, 220),
    Subtask("Next_Bar_Prediction", CHOICE, 119),
    Subtask("Bar_Sequencing", ORDER, 119),
    Subtask("Metadata_Prediction", CHOICE, 60),
    Subtask("Music_Captioning", CHOICE, 60),
    Subtask("Emotion_Recognition", CHOICE, 120),
    Subtask("Genre_Recognition", CHOICE, 132),
    Subtask("Composer_Recognition", CHOICE, 96),
)}
DIGIT_LABELS = "0123456789"


def parse_list_literal(text: str | None) -> list[str]:
    """Items of a choice list as written in the CSVs: a Python list literal whose escapes were lost.

    The files hold ``str(list)`` with backslash escapes removed (raw newlines, a bare ``\\`` for ABC's
    line continuation, unescaped apostrophes such as ``c'a``), so ``ast.literal_eval`` fails on some
    rows. Items are therefore split at the ``', '`` separators and one quote is stripped from each end;
    other backslashes are kept as written, except an escaped quote (``O\\'Niel``). Unquoted lists (``[4, 2, 3, 5]``) split at commas.
    """
    text = (text or "").strip()
    if not text or text.lower() in ("nan", "null", "none"):
        return []
    if not (text.startswith("[") and text.endswith("]")):
        raise ValueError(f"not a list literal: {text[:60]!r}")
    body = text[1:-1].strip()
    if not body:
        return []
    if body[0] not in "'\"":
        return [item.strip() for item in body.split(",")]
    parts = re.split(r"(?<=['\"])\s*,\s*(?=['\"])", body)
    bad = [part for part in parts if len(part) < 2 or part[0] not in "'\"" or part[-1] not in "'\""]
    if bad:
        raise ValueError(f"cannot split list literal {text[:60]!r} at item {bad[0][:40]!r}")
    return [unescape_target(part[1:-1]) for part in parts]


def unescape_target(target: str) -> str:
    """``Kitty O\\'Niel`` -> ``Kitty O'Niel``: some targets and choices keep a quote's escape."""
    return target.replace("\\'", "'").replace('\\"', '"')


class ABCEvalBench(Benchmark):
    """ABC-Eval as configured in ``conf/data/abc_eval.yaml``; scores are the ABC inputs themselves."""

    def __init__(self, name: str = "abc_eval", root: str = "", split: str = "all", limit: int | None = None,
                 subtasks: Sequence[str] | None = None, check_counts: bool = True,
                 categories: Mapping[str, Sequence[str]] | None = None,
                 output_templates: Mapping[str, str] | None = None, templates: Mapping[str, str] | None = None,
                 split_seed: int = 0, too_long: str = "fail") -> None:
        self.too_long = check_too_long(too_long)
        if split not in ("all", "test"):
            raise ValueError(f"ABC-Eval is a test-only benchmark: data.split must be 'all' (or its synonym 'test'), "
                             f"got {split!r}")
        self.name, self.split, self.root = name, split, Path(root)
        self.limit, self.check_counts = limit, check_counts
        self.subtasks = list(subtasks) if subtasks else None
        self.categories = {k: list(v) for k, v in (categories or {}).items()}
        self.output_templates = dict(output_templates or {})
        self.templates = dict(templates or {})
        self._questions: dict[str, Question] = {}

    def csv_paths(self) -> list[Path]:
        if not self.root.is_dir():
            raise FileNotFoundError(f"ABC-Eval folder {self.root} not found: set data.root (default "
                                    f"${{paths.data_root}}/abc_eval) to the folder holding the official CSVs")
        paths = sorted(self.root.glob("*.csv"))
        known = [p for p in paths if p.stem in SUBTASKS]
        unknown = [p.name for p in paths if p.stem not in SUBTASKS]
        if unknown:
            log.warning("ABC-Eval: ignoring CSVs that are not subtasks of the paper: %s", ", ".join(unknown))
        if self.subtasks is not None:
            missing = [s for s in self.subtasks if s not in {p.stem for p in known}]
            if missing:
                raise FileNotFoundError(f"ABC-Eval subtask file(s) {[m + '.csv' for m in missing]} not in {self.root}")
            known = [p for p in known if p.stem in self.subtasks]
        if not known:
            raise FileNotFoundError(f"no ABC-Eval subtask CSV in {self.root}: expected files named like "
                                    f"{', '.join(s + '.csv' for s in list(SUBTASKS)[:3])} ...")
        return known

    def read_subtask(self, path: Path) -> tuple[dict[str, Score], list[Question]]:
        spec = SUBTASKS[path.stem]
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
        if self.check_counts and len(table) != spec.rows:
            raise ValueError(f"{path}: {len(table)} rows, but the paper's Table 1 lists {spec.rows} for {spec.name}; "
                             "replace the file with the official one or pass data.check_counts=false")
        abc_col = find_column(table, ["score", "input", "abc"], source=path)
        task_col = find_column(table, ["task_description", "task"], source=path)
        target_col = find_column(table, ["target"], source=path)
        index_col = find_column(table, ["target_index"], source=path, required=spec.kind == CHOICE)
        choices_col = find_column(table, ["choices"], source=path, required=spec.kind in (CHOICE, ORDER))
        title_col = find_column(table, ["title"], source=path, required=False)
        error_col = find_column(table, ["error"], source=path, required=False)
        scores: dict[str, Score] = {}
        questions: list[Question] = []
        for row_number, row in enumerate(table.to_dict("records")):
            qid = f"{spec.name}:{row_number:04d}"
            where = f"{path.name} row {row_number + 2}"
            abc = blank_to_none(row[abc_col])
            if abc is None:
                raise ValueError(f"{where}: empty ABC in column {abc_col!r}")
            options = parse_list_literal(row[choices_col]) if choices_col else []
            target = unescape_target(str(row[target_col]).strip())
            meta: dict[str, Any] = {"subtask": spec.name, "kind": spec.kind, "category": self.category_of(spec.name),
                                    "source_title": row[title_col] if title_col else None}
            if spec.kind == CHOICE:
                index = blank_to_none(row[index_col])
                if index is None or not float(index).is_integer() or not 0 <= int(float(index)) < len(options):
                    raise ValueError(f"{where}: target_index {index!r} does not point into the {len(options)} choices")
                index = int(float(index))
                if target and target != options[index]:
                    raise ValueError(f"{where}: target {target!r} differs from choice {index} {options[index]!r}")
                reference, choices = str(index), tuple(options)
                meta.update(option_labels=DIGIT_LABELS[:len(options)], target_text=options[index])
            else:
                if not target:
                    raise ValueError(f"{where}: empty target")
                reference = target
                choices = tuple(options) if spec.kind == ORDER else ()
                meta.update(template="sequencing" if spec.kind == ORDER else "structured",
                            slots={"output_template": self.output_templates.get(spec.name, "")})
                if spec.kind == ORDER:
                    meta["option_labels"] = DIGIT_LABELS[:len(options)]
                    if sorted(int(c) for c in reference) != list(range(len(options))):
                        raise ValueError(f"{where}: target {reference!r} is not an order of the {len(options)} bars")
                if error_col:
                    meta["inserted_errors"] = row[error_col]
                    meta["error_count_choices"] = tuple(options)
            scores[qid] = Score(id=qid, title=qid, abc=abc)
            questions.append(Question(id=qid, score_id=qid, level=0, text=str(row[task_col]).strip(),
                                      reference=reference, choices=choices, meta=meta))
        return scores, questions

    def category_of(self, subtask: str) -> str | None:
        return next((cat for cat, members in self.categories.items() if subtask in members), None)

    def load(self, needs: Iterable[str]) -> BenchmarkSplit:
        needs = list(needs)
        if needs != ["abc"]:
            raise ValueError(f"ABC-Eval shows the score as ABC text only (modality=abc); this run asks for {needs}")
        scores: dict[str, Score] = {}
        questions: list[Question] = []
        for path in self.csv_paths():
            subtask_scores, subtask_questions = self.read_subtask(path)
            if self.limit is not None:
                subtask_questions = subtask_questions[: int(self.limit)]
            scores.update({q.score_id: subtask_scores[q.score_id] for q in subtask_questions})
            questions.extend(subtask_questions)
        self._questions = {q.id: q for q in questions}
        return BenchmarkSplit(name=self.name, split=self.split, scores=scores, questions=questions)

    def metrics(self, records: Sequence[Any], bootstrap_resamples: int = 0) -> Scores:
        from scoreqa.metrics.abc_eval import abc_eval_metrics

        d = abc_eval_metrics(records, self._questions, self.categories)
        subtasks = {k: Estimate(v, n=d["subtask_details"][k]["n"]) for k, v in d["subtasks"].items()}
        return Scores("overall", d["overall"], {"category": {k: Estimate(v) for k, v in d["categories"].items()},
                                                "subtask": subtasks}, details=d)
