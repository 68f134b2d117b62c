"""``paper_results.yaml`` is a faithful transcription: every row is a line of the paper's text, the tables agree
with themselves and with each other where the papers say they must, and a single mistyped digit fails."""

from __future__ import annotations

import copy
import re
from collections import Counter
from pathlib import Path
from statistics import mean

import pytest
import yaml

from scoreqa.report.paper import PaperResults, PaperTable, load_paper_results, parse_paper_results

REPO = Path(__file__).resolve().parents[1]
PAPERS = REPO.parent / "shared" / "papers"
YAML = REPO / "src" / "scoreqa" / "report" / "paper_results.yaml"

# (rows, columns) of every table as printed in the paper.
SHAPES = {"msu/table2": (15, 5), "msu/table3": (8, 1), "msu/table4": (4, 4), "msu/table5": (10, 5),
          "msu/table6": (6, 4), "wildscore/table3": (14, 6), "wildscore/table4": (14, 10), "wildscore/table5": (3, 1),
          "abc_eval/table1": (11, 1), "abc_eval/table3": (14, 7), "boyaeval/table2": (21, 6),
          "boyaeval/table3": (2, 6), "boyaeval/table4": (6, 6), "boyaeval/table5": (6, 1), "boyaeval/table6": (21, 6)}

# Tables whose blocks the paper prints row by row interleaved (model w/ Image, then w/o Image): rows are in the
# paper's order within each block, not across blocks.
INTERLEAVED = {"wildscore/table3", "wildscore/table4"}

ABC_AVERAGES = {"Basic Syntax Average": ["Bar Count Estimation", "Metadata QA"],
                "Segment-level Average": ["Bar Sequencing (Kendall’s τ)", "Next-Bar Prediction",
                                          "Error Detection (Macro-F1)"],
                "Sequence-level Average": ["Music Captioning", "Metadata Prediction", "Emotion Recognition",
                                           "Composer Recognition", "Genre Recognition"]}
# Table 3's accuracy subtasks, named as in Table 1 (which gives their sizes); Bar Sequencing and Error Detection
# are no accuracies.
ABC_ACCURACY_SUBTASKS = ("Bar Count Estimation", "Metadata QA", "Next-Bar Prediction", "Music Captioning",
                         "Metadata Prediction", "Emotion Recognition", "Composer Recognition", "Genre Recognition")


def _numbers(line: str) -> list[float | None]:
    """The numbers of a tab-separated table line, in order ("74.09(+01.46)" and "[40.34, 44.91]" give two)."""
    out: list[float | None] = []
    for field in (re.sub(r"</?[a-z]+>", "", f).strip() for f in line.split("\t")):
        if field == "-":
            out.append(None)
        elif m := re.fullmatch(r"([-+]?\d+(?:\.\d+)?)%?", field):
            out.append(float(m.group(1)))
        elif m := re.fullmatch(r"([-+]?\d+\.\d+)\(([-+]\d+\.\d+)\)", field):
            out += [float(m.group(1)), float(m.group(2))]
        elif m := re.fullmatch(r"\[(\d+\.\d+), (\d+\.\d+)\]", field):
            out += [float(m.group(1)), float(m.group(2))]
    return out


def _row_numbers(cells) -> list[float | None]:
    out: list[float | None] = []
    for c in cells:
        out.append(c.value)
        out += list(c.ci95 or ())
        out += [] if c.delta is None else [c.delta]
    return out


# ------------------------------------------------------------------------------------------------ the checks

def rows_not_in_text(results: PaperResults, texts: dict[str, str]) -> list[str]:
    """Rows not found, in the table's order, as a line of the paper that holds exactly their numbers, names no other
    block, and names the row, or names its block right below the line that names the row (WildScore prints
    "w/o Image" under the model's "w/ Image" line); and blocks whose first row is not at (or just below) the
    block's label."""
    problems = []
    for table in results.tables.values():
        lines = texts[table.paper].splitlines()
        groups = {group for group, _ in table.rows if group}
        previous: dict[str, int] = {}
        for (group, label), cells in table.rows.items():
            wanted, after = _row_numbers(cells), previous.get(group if table.id in INTERLEAVED else "", -1)
            at = next((i for i, line in enumerate(lines) if i > after and _numbers(line) == wanted
                       and not any(g in line for g in groups - {group})
                       and (label in line or (group and group in line and i and label in lines[i - 1]))), None)
            if at is None:
                problems.append(f"{table.id} [{group}] {label}: {wanted}")
                continue
            if group and group not in previous and not any(group in line for line in lines[max(0, at - 2):at + 1]):
                problems.append(f"{table.id} [{group}] {label}: not under its block's label")
            previous[group] = previous[""] = at
    return problems


def _multiple_of(value: float, n: int, tolerance: float) -> bool:
    return abs(value - round(value * n / 100) * 100 / n) <= tolerance


def msu_level_failures(results: PaperResults) -> list[str]:
    """Tables 2 and 5: levels are k/450, overall is k/1800 and equals the mean of the four levels."""
    failures = []
    for tid in ("msu/table2", "msu/table5"):
        table = results.tables[tid]
        for (group, label) in table.rows:
            row = {c: cell.value for c, cell in table.row(group, label).items()}
            levels = [row[f"level_{i}"] for i in range(1, 5)]
            if not all(_multiple_of(v, 450, 0.005) for v in levels) or not _multiple_of(row["overall"], 1800, 0.005):
                failures.append(f"{tid} {group}/{label}: not counts of 450 / 1800 questions")
            if abs(row["overall"] - mean(levels)) > 0.0051 and not table.excepted(
                    "overall_is_mean_of_levels", group, label):
                failures.append(f"{tid} {group}/{label}: overall {row['overall']} != mean {mean(levels):.3f}")
    return failures


def msu_table3_failures(results: PaperResults) -> list[str]:
    table2, table3 = results.tables["msu/table2"], results.tables["msu/table3"]
    failures = []
    for (group, label) in table3.rows:
        cell = table3.row(group, label)["overall"]
        if cell.value != table2.row(group, label)["overall"].value:
            failures.append(f"msu/table3 {group}/{label}: {cell.value} differs from Table 2")
        if not cell.ci95[0] < cell.value < cell.ci95[1]:
            failures.append(f"msu/table3 {group}/{label}: CI {cell.ci95} misses {cell.value}")
    return failures


def msu_table4_failures(results: PaperResults) -> list[str]:
    """Title-only accuracies are k/90 (30 test scores x 3 questions), printed to 0.1 (truncated or rounded)."""
    return [f"msu/table4 {c.row} {c.column}: {c.value} is no k/90" for c in results.tables["msu/table4"].cells
            if not _multiple_of(c.value, 90, 0.1)]


def delta_failures(table: PaperTable, base_of) -> list[str]:
    failures = []
    for cell in table.cells:
        if cell.delta is not None and abs(cell.value - base_of(cell) - cell.delta) > 0.0051:
            failures.append(f"{table.id} {cell.group}/{cell.row} {cell.column}: {cell.value} - "
                            f"{base_of(cell)} != {cell.delta}")
    return failures


def msu_table6_failures(results: PaperResults) -> list[str]:
    table = results.tables["msu/table6"]
    first = {group: label for group, label in reversed(list(table.rows))}
    return delta_failures(table, lambda c: table.row(c.group, first[c.group])[c.column].value)


def abc_eval_failures(results: PaperResults) -> list[str]:
    """Table 3: each average is the mean of its subtasks, overall the mean of all ten; accuracies are k/n with n
    from Table 1; Table 1's subtasks sum to its total."""
    sizes = {label: cells[0].value for (_, label), cells in results.tables["abc_eval/table1"].rows.items()}
    failures = [] if sum(v for k, v in sizes.items() if k != "Total Num") == sizes["Total Num"] else [
        "abc_eval/table1: subtasks do not sum to the total"]
    table = results.tables["abc_eval/table3"]
    by_row = {label: table.row(group, label) for group, label in table.rows}
    subtasks = [s for members in ABC_AVERAGES.values() for s in members]
    for model in table.columns:
        for average, members in (*ABC_AVERAGES.items(), ("Overall Average", subtasks)):
            expected = mean(by_row[m][model].value for m in members)
            if abs(by_row[average][model].value - expected) > 0.0051:
                failures.append(f"abc_eval/table3 {model} {average}: {by_row[average][model].value} != {expected:.3f}")
        for row in ABC_ACCURACY_SUBTASKS:
            if not _multiple_of(by_row[row][model].value, int(sizes[row]), 0.005):
                failures.append(f"abc_eval/table3 {model} {row}: not k/{int(sizes[row])}")
    return failures


def boyaeval_failures(results: PaperResults) -> list[str]:
    """Table 6's Jianzipu columns are Table 2's Translation (per block, rows reordered and renamed); Table 5's
    deltas are its accuracy minus the model's zero-shot Task 3 in Table 2."""
    table2, table5, table6 = (results.tables[f"boyaeval/table{i}"] for i in (2, 5, 6))
    failures = []
    for group in ("Instruct", "Thinking"):
        translation = Counter((r["translation_bleu"].value, r["translation_bs"].value)
                              for r in (table2.row(g, l) for g, l in table2.rows if g == group))
        jianzipu = Counter((r["jianzipu_bleu"].value, r["jianzipu_bs"].value)
                           for r in (table6.row(g, l) for g, l in table6.rows if g == group))
        if translation != jianzipu:
            failures.append(f"boyaeval {group}: Table 6 Jianzipu != Table 2 Translation (only in Table 2: "
                            f"{dict(translation - jianzipu)}, only in Table 6: {dict(jianzipu - translation)})")
    zero_shot = table5.extra["zero_shot_rows"]
    if set(zero_shot) != {label for _, label in table5.rows}:
        failures.append("boyaeval/table5: zero_shot_rows does not name every row")
        return failures
    return failures + delta_failures(table5, lambda c: table2.row(*zero_shot[c.row])["task3_accuracy"].value)


def wildscore_failures(results: PaperResults) -> list[str]:
    """Table 3's Average (question-weighted) lies between the row's lowest and highest category."""
    table = results.tables["wildscore/table3"]
    failures = []
    for (group, label) in table.rows:
        row = {c: cell.value for c, cell in table.row(group, label).items()}
        categories = [v for c, v in row.items() if c != "average"]
        if not min(categories) <= row["average"] <= max(categories):
            failures.append(f"wildscore/table3 {group}/{label}: average {row['average']} outside its categories")
    return failures


CHECKS = (msu_level_failures, msu_table3_failures, msu_table4_failures, msu_table6_failures, abc_eval_failures,
          boyaeval_failures, wildscore_failures)


def all_failures(results: PaperResults) -> list[str]:
    return [f for check in CHECKS for f in check(results)]


# ------------------------------------------------------------------------------------------------ the tests

@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    if not PAPERS.is_dir():
        pytest.skip(f"the papers' text is not at {PAPERS}")
    papers = yaml.safe_load(YAML.read_text(encoding="utf-8"))["papers"]
    return {key: (PAPERS / paper["file"]).read_text(encoding="utf-8") for key, paper in papers.items()}


def test_every_table_has_the_papers_shape_and_about_800_numbers():
    results = load_paper_results()
    assert {tid: (len(t.rows), len(t.columns)) for tid, t in results.tables.items()} == SHAPES
    assert sum(len(t.cells) for t in results.tables.values()) == sum(r * c for r, c in SHAPES.values()) == 815


def test_every_row_is_a_line_of_the_papers_text(texts):
    assert rows_not_in_text(load_paper_results(), texts) == []


def test_every_fact_quotes_the_paper_verbatim(texts):
    results = load_paper_results()
    assert len(results.facts) == 10
    assert [f.id for f in results.facts if f.quote not in texts[f.paper]] == []


def test_the_tables_are_internally_consistent():
    assert all_failures(load_paper_results()) == []


def test_the_papers_own_inconsistency_is_recorded_not_hidden():
    # MSU Table 2 prints Grok 4 (textual) overall 42.61, but its levels give 766/1800 = 42.56: an exception.
    table = load_paper_results().tables["msu/table2"]
    assert table.excepted("overall_is_mean_of_levels", "Textual QA", "Grok 4")
    data = yaml.safe_load(YAML.read_text(encoding="utf-8"))
    data["tables"][0]["exceptions"] = []
    assert msu_level_failures(parse_paper_results(data)) == [
        "msu/table2 Textual QA/Grok 4: overall 42.61 != mean 42.555"]


@pytest.mark.parametrize("table_index, group_index, row, column, typo", [
    (0, 0, "Claude Opus 4", 0, 57.12),            # MSU Table 2: a level no longer k/450 nor the mean
    (0, 1, "Claude Opus 4", 4, 24.21),            # MSU Table 2: overall
    (1, 0, "ChatGPT-5", 0, {"value": 47.82, "ci95": [44.98, 49.59]}),  # MSU Table 3 vs Table 2
    (9, 0, "Next-Bar Prediction", 6, 50.24),      # ABC-Eval Table 3 vs its segment average
    (13, 0, "Seed-1.6", 0, {"value": 30.80, "delta": 4.00}),           # BoYaEval Table 5 vs Table 2
    (14, 1, "GLM-4.6V", 3, 15.84),                # BoYaEval Table 6 vs Table 2
])
def test_a_single_mistyped_number_fails(table_index, group_index, row, column, typo, texts):
    data = yaml.safe_load(YAML.read_text(encoding="utf-8"))
    broken = copy.deepcopy(data)
    broken["tables"][table_index]["groups"][group_index]["rows"][row][column] = typo
    results = parse_paper_results(broken)
    assert all_failures(results) and rows_not_in_text(results, texts)


def test_mapped_models_are_our_model_configs():
    results = load_paper_results()
    configs = {p.stem for p in (REPO / "conf" / "model").glob("*.yaml")}
    mapped = {c.model for t in results.tables.values() for c in t.cells if c.model}
    assert mapped and mapped <= configs


def test_a_row_of_the_wrong_length_is_refused():
    data = yaml.safe_load(YAML.read_text(encoding="utf-8"))
    data["tables"][0]["groups"][0]["rows"]["Grok 4"].pop()
    with pytest.raises(ValueError, match="4 values for 5 columns"):
        parse_paper_results(data)


def test_rows_swapped_between_models_fail_the_text_check(texts):
    # WildScore's "w/o Image" lines do not name the model: the line above them must
    data = yaml.safe_load(YAML.read_text(encoding="utf-8"))
    rows = data["tables"][5]["groups"][1]["rows"]
    rows["MiniCPM"], rows["InternVL"] = rows["InternVL"], rows["MiniCPM"]
    assert rows_not_in_text(parse_paper_results(data), texts) == [
        "wildscore/table3 [w/o Image] MiniCPM: [52.88, 45.65, 40.27, 44.0, 56.6, 45.54]",
        "wildscore/table3 [w/o Image] InternVL: [57.69, 54.35, 49.32, 48.8, 58.49, 52.09]"]


def test_a_row_moved_to_another_block_fails_the_text_check(texts):
    # MSU Table 2: a Visual QA row listed under Textual QA would be compared with ABC runs
    data = yaml.safe_load(YAML.read_text(encoding="utf-8"))
    textual, visual = (g["rows"] for g in data["tables"][0]["groups"])
    textual["Qwen2.5-VL-72B-Instruct"] = visual.pop("Qwen2.5-VL-72B-Instruct")
    # found after the Visual QA rows, it pushes them out of the paper's order
    problems = rows_not_in_text(parse_paper_results(data), texts)
    assert problems and all(p.startswith("msu/table2 [Visual QA]") for p in problems)
