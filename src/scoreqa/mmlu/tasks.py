"""lm-eval task definitions for a local ``cais/mmlu`` copy, written as YAML into the run folder.

Each subject task includes lm-eval's own MMLU template (prompt, A-D choices, accuracy metric) and
only replaces where the data comes from; the category and overall groups average by size
(micro-average), as lm-eval's ``mmlu`` group does.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Mapping

import yaml

from scoreqa.mmlu.subjects import CATEGORIES, SUBJECTS

PREFIX = "scoreqa_mmlu"
OVERALL = PREFIX


def lm_eval_template() -> Path:
    """lm-eval's MMLU template (``doc_to_text`` etc.), included by every subject task."""
    return Path(str(resources.files("lm_eval") / "tasks" / "mmlu" / "default" / "_default_template_yaml"))


def subject_task(subject: str) -> str:
    return f"{PREFIX}_{subject}"


def category_group(category: str) -> str:
    return f"{PREFIX}_{category}"


def write_tasks(out_dir: Path, files: Mapping[str, Mapping[str, list[str]]]) -> str:
    """Task files for ``files`` (``{subject: {split: [parquet files]}}``); returns the overall group's name."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob("*.yaml"):
        stale.unlink()
    aggregate = [{"metric": "acc", "weight_by_size": True}]
    for subject, splits in files.items():
        task = {
            "include": str(lm_eval_template()),
            "task": subject_task(subject),
            "task_alias": subject,
            "tag": f"{category_group(SUBJECTS[subject])}_tasks",
            "description": f"The following are multiple choice questions (with answers) about "
                           f"{subject.replace('_', ' ')}.\n\n",
            "dataset_path": "parquet",
            "dataset_kwargs": {"data_files": {split: list(paths) for split, paths in splits.items()}},
        }
        (out_dir / f"{subject_task(subject)}.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
    present = [c for c in CATEGORIES if any(SUBJECTS[s] == c for s in files)]
    for category in present:
        group = {"group": category_group(category), "group_alias": category, "task": [f"{category_group(category)}_tasks"],
                 "aggregate_metric_list": aggregate, "metadata": {"version": 1}}
        (out_dir / f"{category_group(category)}.yaml").write_text(yaml.safe_dump(group, sort_keys=False))
    overall = {"group": OVERALL, "group_alias": "mmlu", "task": [category_group(c) for c in present],
               "aggregate_metric_list": aggregate, "metadata": {"version": 1}}
    (out_dir / f"{OVERALL}.yaml").write_text(yaml.safe_dump(overall, sort_keys=False))
    return OVERALL
