"""ABC-Eval loader: the 990 shared rows with Table 1 counts, a user-added Composer_Recognition.csv,
the README's prompts verbatim, the CSV quirks, and clear errors."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from scoreqa.data.abc_eval import SUBTASKS, ABCEvalBench, parse_list_literal
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder

CONF_TEMPLATES = {"single": "abc_eval/mc.v1", "single.structured": "abc_eval/structured.v1",
                  "single.sequencing": "abc_eval/sequencing.v1"}
ABC = ModalitySpec("abc", "ABC notation", ("abc",))
TABLE_1 = {"Bar_Count_Estimation": 100, "Metadata_QA": 60, "Error_Detection": 220, "Next_Bar_Prediction": 119,
           "Bar_Sequencing": 119, "Metadata_Prediction": 60, "Music_Captioning": 60, "Emotion_Recognition": 120,
           "Genre_Recognition": 132, "Composer_Recognition": 96}


@pytest.fixture(scope="module")
def shared_split(data_root):
    bench = ABCEvalBench(root=str(data_root / "abc_eval"), templates=CONF_TEMPLATES,
                         output_templates={"Bar_Count_Estimation": "<n>"})
    return bench, bench.load(["abc"])


def test_shared_csvs_load_with_the_papers_table_1_counts(shared_split):
    _, split = shared_split
    counts = Counter(q.meta["subtask"] for q in split.questions)
    assert len(split.questions) == 990 and len(split.scores) == 990
    assert counts == {name: rows for name, rows in TABLE_1.items() if name != "Composer_Recognition"}
    assert {name: spec.rows for name, spec in SUBTASKS.items()} == TABLE_1
    assert sum(TABLE_1.values()) == 1086


def test_quirks_escaped_targets_empty_next_bar_target_and_raw_newlines(shared_split):
    _, split = shared_split
    by_id = {q.id: q for q in split.questions}
    kitty = next(q for q in split.questions if q.meta.get("target_text") == "Kitty O'Niel")
    assert kitty.choices[int(kitty.reference)] == "Kitty O'Niel"
    next_bar = by_id["Next_Bar_Prediction:0000"]
    assert next_bar.reference == "0" and next_bar.choices[0] == '"G"B2G'
    sequencing = [q for q in split.questions if q.meta["subtask"] == "Bar_Sequencing"]
    assert all(sorted(int(c) for c in q.reference) == list(range(len(q.choices))) for q in sequencing)
    assert any("\n" in choice for q in sequencing for choice in q.choices)
    assert by_id["Error_Detection:0000"].reference == "257" and by_id["Error_Detection:0000"].choices == ()


def test_prompts_are_the_readmes_templates(shared_split):
    _, split = shared_split
    requests = {r.key: r for r in PromptBuilder(CONF_TEMPLATES, ABC, "single").requests(split)}
    mc = requests["Metadata_QA:0000"].messages[-1]["content"]
    assert mc == ("\nInput：" + split.scores["Metadata_QA:0000"].abc +
                  "\nTask：Identify the key signature of the provided ABC notation score.\nOptions：\n"
                  "0. Dm\n1. D\n2. G\n3. E\nPlease only output the index of the correct option (0, 1, 2, or 3), "
                  "do not output any additional content.")
    count = requests["Bar_Count_Estimation:0000"].messages[-1]["content"]
    assert count == ("Input：L:1/8\nM:6/8\nK:G\n|: d>ef gfe | fed edB | d>ef gfe | fed e3 | def gfe | fed edB | "
                     "AGA BAG | E2 F G3 :|\n                Task：Identify the num of bars of the provided ABC notation "
                     "score.\n                Template: <n>\n                Please directly output the answer of "
                     "the given task, without any explanation or additional content.")


def test_table_2_as_printed_is_selectable_with_ascii_colons(shared_split):
    """ABC-Eval Table 2: "Input: {input_content} Task: {task_instruction} Options: 0. ... 3. ..." then "Please only
    output the index of the correct option (0, 1, 2, or 3), do not output any additional content." (ASCII colons)."""
    _, split = shared_split
    templates = {**CONF_TEMPLATES, "single": "abc_eval/mc.v2", "single.structured": "abc_eval/structured.v2"}
    requests = {r.key: r for r in PromptBuilder(templates, ABC, "single").requests(split)}
    assert requests["Metadata_QA:0000"].messages[-1]["content"] == (
        "Input: " + split.scores["Metadata_QA:0000"].abc + "\nTask: Identify the key signature of the provided ABC "
        "notation score.\nOptions:\n0. Dm\n1. D\n2. G\n3. E\nPlease only output the index of the correct option "
        "(0, 1, 2, or 3), do not output any additional content.")
    assert requests["Bar_Count_Estimation:0000"].messages[-1]["content"].endswith(
        "\nTask: Identify the num of bars of the provided ABC notation score.\nTemplate: <n>\nPlease directly output "
        "the answer of the given task, without any explanation or additional content.")


def _write_rows(path: Path, rows: int, abc_column: str = "score") -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", abc_column, "choices", "target", "target_index", "task_description"])
        for i in range(rows):
            composers = ["Bach", "Chopin", "Liszt", "Mozart"]
            writer.writerow([f"piece_{i}.abc", "X:1\nL:1/16\nM:4/4\nK:C\nC4 E4 G4 c4 |", str(composers),
                             composers[i % 4], str(i % 4), "Choose the most probable composer of the provided score."])


def test_composer_recognition_is_picked_up_when_a_user_adds_it(tmp_path, data_root):
    (tmp_path / "Metadata_QA.csv").write_bytes((data_root / "abc_eval" / "Metadata_QA.csv").read_bytes())
    _write_rows(tmp_path / "Composer_Recognition.csv", 96)
    split = ABCEvalBench(root=str(tmp_path), templates=CONF_TEMPLATES).load(["abc"])
    counts = Counter(q.meta["subtask"] for q in split.questions)
    assert counts == {"Metadata_QA": 60, "Composer_Recognition": 96}
    composer = next(q for q in split.questions if q.id == "Composer_Recognition:0005")
    assert composer.choices == ("Bach", "Chopin", "Liszt", "Mozart") and composer.reference == "1"
    assert split.scores[composer.score_id].abc.startswith("X:1\nL:1/16")


def test_a_file_off_table_1_fails_naming_the_count(tmp_path):
    _write_rows(tmp_path / "Composer_Recognition.csv", 95, abc_column="input")
    with pytest.raises(ValueError, match=r"Composer_Recognition.csv: 95 rows.*Table 1 lists 96"):
        ABCEvalBench(root=str(tmp_path)).load(["abc"])
    assert len(ABCEvalBench(root=str(tmp_path), check_counts=False).load(["abc"]).questions) == 95


def test_missing_folder_column_and_wrong_modality_fail_clearly(tmp_path):
    with pytest.raises(FileNotFoundError, match="ABC-Eval folder .*not found"):
        ABCEvalBench(root=str(tmp_path / "nowhere")).load(["abc"])
    with pytest.raises(FileNotFoundError, match="no ABC-Eval subtask CSV"):
        ABCEvalBench(root=str(tmp_path)).load(["abc"])
    (tmp_path / "Metadata_QA.csv").write_text("title,choices,target,target_index,task_description\n")
    with pytest.raises(KeyError, match="Metadata_QA.csv: no column 'score'"):
        ABCEvalBench(root=str(tmp_path), check_counts=False).load(["abc"])
    with pytest.raises(ValueError, match="modality=abc"):
        ABCEvalBench(root=str(tmp_path)).load(["title"])
    with pytest.raises(ValueError, match="test-only"):
        ABCEvalBench(root=str(tmp_path), split="train")


def test_list_literals_as_written_in_the_csvs():
    assert parse_list_literal("[4, 2, 3, 5]") == ["4", "2", "3", "5"]
    assert parse_list_literal("['\"C\"c'a \"G\"bg', 'P:B\nde', 'A/2c/2\\']") == ['"C"c\'a "G"bg', "P:B\nde", "A/2c/2\\"]
    assert parse_list_literal("null") == []


def test_error_detection_targets_read_10_as_bar_ten_and_match_the_error_counts(data_root):
    """With "10" read as one bar, every target has as many bars as its ``error`` column lists errors (220 rows)."""
    from scoreqa.metrics.classification import bar_set

    with (data_root / "abc_eval" / "Error_Detection.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 220
    # the three rows whose target holds bar 10 (CSV rows 72, 78, 81)
    assert [(r["target"], bar_set(r["target"])) for r in rows if "10" in r["target"]] == [
        ("610", {6, 10}), ("467810", {4, 6, 7, 8, 10}), ("346710", {3, 4, 6, 7, 10})]
    mismatched = [(i, r["target"]) for i, r in enumerate(rows) if len(bar_set(r["target"])) != len(r["error"].split(", "))]
    assert mismatched == []
