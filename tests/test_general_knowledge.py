"""The general-knowledge forgetting probe: the shipped fixture and its deterministic judge."""

from __future__ import annotations

import pytest

from scoreqa.data.general_knowledge import is_correct, load_probe, normalise, probe_accuracy


def test_fixture_has_at_least_100_unique_questions_in_four_categories():
    questions = load_probe()
    assert len(questions) == 105 and len({q.id for q in questions}) == 105
    assert {q.category for q in questions} == {"capitals", "chemical_symbols", "arithmetic", "dates"}
    by_text = {q.question: q.answer for q in questions}
    assert by_text["What is the capital of Australia?"] == "Canberra"
    assert by_text["What is 12 × 12?"] == "144"
    assert by_text["What is the chemical symbol of tungsten?"] == "W"


@pytest.mark.parametrize(("prediction", "answer", "expected"), [
    ("Paris", "Paris", True), ("paris.", "Paris", True), ("The capital of France is Paris.", "Paris", True),
    ("Parisian food", "Paris", False), ("Lyon\nnot Paris", "Paris", False), ("Reykjavík", "Reykjavik", True),
    ("Buenos Aires, Argentina", "Buenos Aires", True), ("Aires", "Buenos Aires", False),
    ("144\nbecause 12 times 12", "144", True), ("1444", "144", False), ("12 × 12 = 120.", "144", False),
    ("50 - 23 = 27", "27", True), ("Mozart died in 1796.", "1791", False), ("It ended in 1,945", "1945", True),
    ("The chemical symbol of copper is Cu.", "Cu", True), ("Fe", "Fe", True), ("FE", "Fe", False),
    ("co", "Co", False), ("Helium has the symbol Helium.", "He", False), ("", "Paris", False)])
def test_judge_finds_the_answer_in_the_first_line(prediction, answer, expected):
    assert is_correct(prediction, answer) is expected


def test_normalise_and_accuracy_order():
    assert normalise("  The Buenos Aires! ") == "buenos aires"
    questions = load_probe()[:2]
    assert probe_accuracy([questions[0].answer, "nope"], questions) == [True, False]
    with pytest.raises(ValueError):
        probe_accuracy(["x"], questions)
