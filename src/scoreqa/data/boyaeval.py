"""BoYaEval (ACL 2026): ancient Chinese music notations, three tasks on score images, test only.

* Task 1, Structural Parsing: multiple choice (text options) -> accuracy;
* Task 2, Instructional Translation: free text -> BLEU-4, chrF, BERTScore-F1;
* Task 3, Musical Reasoning: multiple choice whose options are images -> accuracy.

Reads a local copy of the Hugging Face release ``MYTH-Lab/BoYaEval``. Per task, every data file
(``.jsonl``, ``.json``, ``.csv`` or ``.parquet``) whose path names the task (``task1``, ``Task_1``
...) is read; files whose name says ``fewshot``, ``dev`` or ``example`` form that task's exemplar
pool instead. Few-shot exemplars come only from such a pool, never from the evaluated items (a
few-shot run without a pool file fails); their worked reasoning is read from a ``reason`` field.
Notation names are normalised to keys (``Lülüpu``, ``Lulupu``, ``lülüpu`` -> ``lulupu``), which
pick Task 2's track (Recognition: Gongchepu, Lülüpu; Translation: Jianzipu, as in the paper).
Image fields may be paths (relative to the file or the root) or Hugging Face image structs
(``{"bytes": ..., "path": ...}``), which are written once to ``cache_dir``.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from scoreqa.data.benchmark import Benchmark, check_too_long
from scoreqa.metrics.record import Estimate, Scores
from scoreqa.data.columns import blank_to_none
from scoreqa.data.records import BenchmarkSplit, Question, Score

TASKS = (1, 2, 3)
LETTERS = "ABCDEFGHIJ"
DATA_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")
POOL_WORDS = ("fewshot", "few_shot", "dev", "example")
FIELDS = {"id": ["id", "qid", "question_id", "uid", "index"],
          "image": ["image", "images", "image_path", "img", "image_file", "score_image"],
          "question": ["question", "prompt", "instruction", "query"],
          "options": ["options", "choices", "candidates", "option_images"],
          "answer": ["answer", "label", "gt", "target", "reference", "ground_truth"],
          "notation": ["notation", "notation_type", "notation_system", "system", "category", "type"],
          "target_notation": ["target_notation", "option_notation", "target_notation_type", "notation_2"],
          "reason": ["reason", "reasoning", "rationale", "explanation", "analysis", "solution"]}
# Task 2's tracks (paper, Section 4 and Table 2): Recognition of Gongchepu and Lülüpu, Translation of Jianzipu.
TASK2_TRACKS = {"gongchepu": "recognition", "lulupu": "recognition", "jianzipu": "translation"}
# The paper's spelling of a notation (Appendix E.2 "Gongchepu/Lülüpu", "Jianzipu"), for the prompts' [notation type].
NOTATION_NAMES = {"gongchepu": "Gongchepu", "lulupu": "Lülüpu", "jianzipu": "Jianzipu"}


def notation_key(name: Any) -> str | None:
    """``"Lülüpu"`` -> ``"lulupu"``: lower case, accents and non-letters removed (``None`` when blank)."""
    text = blank_to_none(name)
    if text is None:
        return None
    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", ascii_text.lower()) or str(text).strip()


def _field(record: Mapping[str, Any], key: str, source: str, required: bool = True) -> Any:
    lowered = {str(k).strip().lower(): k for k in record}
    for alias in FIELDS[key]:
        if alias in lowered:
            return record[lowered[alias]]
    if required:
        raise KeyError(f"{source}: no field {FIELDS[key][0]!r} (also tried {FIELDS[key][1:]}); "
                       f"fields present: {sorted(map(str, record))}")
    return None


def _as_list(value: Any) -> list[Any]:
    if value is None or (isinstance(value, float) and value != value):
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return list(json.loads(text))
        return [text] if text else []
    if isinstance(value, dict):
        return [value]
    return list(value)


def read_records(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, list) else data.get("data", [])
    frame = pd.read_csv(path, dtype=str, keep_default_na=False) if path.suffix == ".csv" else pd.read_parquet(path)
    return frame.to_dict("records")


def task_of(path: Path) -> int | None:
    match = re.search(r"task[\s_-]?(\d)", str(path).lower())
    return int(match.group(1)) if match and int(match.group(1)) in TASKS else None


class BoYaEvalBench(Benchmark):
    """BoYaEval as configured in ``conf/data/boyaeval.yaml``."""

    def __init__(self, name: str = "boyaeval", root: str = "", cache_dir: str = ".cache/boyaeval",
                 split: str = "all", limit: int | None = None, tasks: Sequence[int] = TASKS,
                 fewshot: Mapping[str, int] | None = None, fewshot_seed: int = 0,
                 templates: Mapping[str, str] | None = None, bleu_tokenize: str = "zh",
                 bertscore: Mapping[str, Any] | None = None, split_seed: int = 0, too_long: str = "fail") -> None:
        self.too_long = check_too_long(too_long)
        if split not in ("all", "test"):
            raise ValueError(f"BoYaEval is a test-only benchmark: data.split must be 'all' (or 'test'), got {split!r}")
        self.name, self.split, self.root, self.cache_dir = name, split, Path(root), Path(cache_dir)
        self.limit, self.tasks = limit, [int(t) for t in tasks]
        self.fewshot = {int(str(k).replace("task", "")): int(v) for k, v in (fewshot or {}).items()}
        self.fewshot_seed, self.templates = fewshot_seed, dict(templates or {})
        self.bleu_tokenize, self.bertscore = bleu_tokenize, dict(bertscore or {})
        self._questions: dict[str, Question] = {}
        self.pools: dict[int, list[Question]] = {}

    def data_files(self) -> dict[int, tuple[list[Path], list[Path]]]:
        """(evaluation files, exemplar files) per task."""
        if not self.root.is_dir():
            raise FileNotFoundError(f"BoYaEval folder {self.root} not found: set data.root to a local copy of the "
                                    "Hugging Face dataset MYTH-Lab/BoYaEval")
        files: dict[int, tuple[list[Path], list[Path]]] = {t: ([], []) for t in self.tasks}
        for path in sorted(p for p in self.root.rglob("*") if p.suffix in DATA_SUFFIXES and p.is_file()):
            task = task_of(path.relative_to(self.root))
            if task in files:
                is_pool = any(word in path.name.lower() for word in POOL_WORDS)
                files[task][1 if is_pool else 0].append(path)
        missing = [t for t, (evaluation, _) in files.items() if not evaluation]
        if missing:
            raise FileNotFoundError(f"no BoYaEval data file for task(s) {missing} under {self.root}: expected files "
                                    f"({', '.join(DATA_SUFFIXES)}) whose path names the task, e.g. task{missing[0]}/test.jsonl")
        return files

    def _image(self, value: Any, base: Path, where: str) -> Path:
        if isinstance(value, dict):
            if value.get("bytes"):
                data = value["bytes"]
                suffix = Path(value.get("path") or "x.png").suffix or ".png"
                target = self.cache_dir / "images" / f"{hashlib.sha256(data).hexdigest()[:20]}{suffix}"
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
                return target
            value = value.get("path")
        for candidate in (base / str(value), self.root / str(value)):
            if value and candidate.is_file():
                return candidate
        raise FileNotFoundError(f"{where}: image {value!r} not found beside {base} or under {self.root}")

    def _question(self, task: int, record: Mapping[str, Any], path: Path, number: int,
                  exemplar: bool = False) -> tuple[Question, Score]:
        where = f"{path.relative_to(self.root)} item {number}"
        item_id = blank_to_none(_field(record, "id", where, required=False)) or f"{number:04d}"
        qid = f"task{task}:{path.stem}:{item_id}"
        images = tuple(self._image(v, path.parent, where) for v in _as_list(_field(record, "image", where)))
        if not images:
            raise ValueError(f"{where}: no score image")
        answer = str(_field(record, "answer", where)).strip()
        notation = blank_to_none(_field(record, "notation", where, False))
        meta: dict[str, Any] = {"task": task, "notation": notation, "notation_key": notation_key(notation),
                                "target_notation": blank_to_none(_field(record, "target_notation", where, False))}
        if exemplar:
            meta["reason"] = blank_to_none(_field(record, "reason", where, False))
        choices: tuple[str, ...] = ()
        if task in (1, 3):
            options = _as_list(_field(record, "options", where))
            if task == 3:
                option_images = [str(self._image(v, path.parent, where)) for v in options]
                choices = tuple(option_images)
                meta["option_images"] = option_images
            else:
                choices = tuple(str(o) for o in options)
            meta["option_labels"] = LETTERS[:len(choices)]
            answer = self._letter(answer, choices, task, where)
        question = Question(qid, qid, task, str(_field(record, "question", where)).strip(), answer, choices, meta)
        return question, Score(id=qid, title=qid, page_images=images)

    @staticmethod
    def _letter(answer: str, choices: Sequence[str], task: int, where: str) -> str:
        cleaned = answer.strip("().").upper()
        if len(cleaned) == 1 and cleaned in LETTERS[:len(choices)]:
            return cleaned
        if cleaned.isdigit() and 0 <= int(cleaned) < len(choices):
            raise ValueError(f"{where}: answer {answer!r} is a number; BoYaEval answers are option letters")
        matches = [LETTERS[i] for i, c in enumerate(choices) if task == 1 and c.strip() == answer]
        if len(matches) != 1:
            raise ValueError(f"{where}: answer {answer!r} is neither an option letter nor one option's text")
        return matches[0]

    def load(self, needs: Iterable[str]) -> BenchmarkSplit:
        needs = list(needs)
        if needs != ["pages"]:
            raise ValueError(f"BoYaEval shows the score image (modality=pdf); this run asks for {needs}")
        scores: dict[str, Score] = {}
        questions: list[Question] = []
        for task, (evaluation, pool_files) in self.data_files().items():
            task_questions = []
            for path in evaluation:
                for number, record in enumerate(read_records(path)):
                    question, score = self._question(task, record, path, number)
                    scores[score.id] = score
                    task_questions.append(question)
            if self.limit is not None:
                task_questions = task_questions[: int(self.limit)]
            questions.extend(task_questions)
            pool = [self._question(task, r, p, n, exemplar=True) for p in pool_files
                    for n, r in enumerate(read_records(p))]
            if self.fewshot.get(task) and not pool:
                raise FileNotFoundError(
                    f"data.fewshot.task{task}={self.fewshot[task]} needs exemplars from outside the test items: put a "
                    f"file whose name says {'/'.join(POOL_WORDS)} beside the task{task} data (with a 'reason' field "
                    "for the worked reasoning), or run zero-shot")
            self.pools[task] = [q for q, _ in pool]
            scores.update({s.id: s for _, s in pool})
        kept = {q.score_id for q in questions} | {q.score_id for pool in self.pools.values() for q in pool}
        self._questions = {q.id: q for q in questions}
        return BenchmarkSplit(self.name, self.split, {k: v for k, v in scores.items() if k in kept}, questions)

    def prompt_builder(self, modality: Any, mode: str) -> Any:
        from scoreqa.prompts.boyaeval import BoYaEvalPromptBuilder

        if mode != "single":
            raise ValueError("BoYaEval asks one question per request: use prompt=single")
        return BoYaEvalPromptBuilder(self.templates, self.fewshot, self.pools, self.fewshot_seed)

    def metrics(self, records: Sequence[Any], bootstrap_resamples: int = 0) -> Scores:
        """Headline: the mean accuracy of the multiple-choice tasks present (our choice; the paper reports none)."""
        from statistics import mean

        from scoreqa.metrics.boyaeval import boyaeval_metrics

        d = boyaeval_metrics(records, self._questions, self.bleu_tokenize, self.bertscore)
        choice = {k: Estimate(v["accuracy"], n=v["n"]) for k, v in d["tasks"].items() if "accuracy" in v}
        text = {k: v for k, v in d["tasks"].items() if "accuracy" not in v}
        overlap = {f"{k}/{m}": Estimate(x, n=v["n"]) for k, v in text.items() for m, x in v.items()
                   if isinstance(x, (int, float)) and m != "n"}
        # Task 2 as the paper's Table 6 reports it: per track (recognition / translation) and per notation
        per_group = {f"{k}/{part}/{name}/{m}": Estimate(x, n=g.get("n")) for k, v in text.items()
                     for part in ("tracks", "notations") for name, g in (v.get(part) or {}).items()
                     for m, x in g.items() if isinstance(x, (int, float)) and m != "n"}
        headline = round(mean(s.value for s in choice.values()), 2) if choice else None
        return Scores("mean_choice_accuracy", headline, {"task": choice, "text_overlap": overlap,
                                                         "text_overlap_by_track_and_notation": per_group}, details=d)
