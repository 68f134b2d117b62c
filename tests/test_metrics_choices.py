"""Option extraction: accepts what names exactly one option, returns None for everything else."""

from __future__ import annotations

import pytest

from scoreqa.metrics.choices import extract_choice

LETTERS, DIGITS = list("ABCD"), list("0123")
OPTIONS = ["Tonic", "Dominant seventh", "Subdominant", "Neapolitan sixth"]


@pytest.mark.parametrize("output, expected", [
    ("B", "B"), ("(B)", "B"), ("B.", "B"), ("**B**", "B"), ("Option B", "B"), ("B. Dominant seventh", "B"),
    ("Answer: C", "C"), ("The answer is (D)", "D"), ("Let me think.\nThe correct option is B.\nAnswer: B", "B"),
    ("dominant seventh", "B"), ("<think>A? C?</think>D", "D"),
    # BoYaEval Appendix E's output format: one sentence of reasoning, then the answer
    ("Reason: The glyph combines the thumb with string seven.\nAnswer: C", "C"),
    ("Reason: Options A and B differ in the fifth note; the answer is D.\nAnswer: D", "D"),
    ("Reason: The answer is A.\nAnswer: C", None),
    ("A chord is built on the fifth", None), ("A or B", None), ("Answer: A. Answer: C", None), ("E", None),
    ("", None), (None, None), ("The dominant", None),
])
def test_letter_options(output, expected):
    assert extract_choice(output, LETTERS, OPTIONS) == expected


@pytest.mark.parametrize("output, expected", [("2", "2"), ("2.", "2"), ("The answer is 3", "3"), ("Answer: 1\n", "1"),
                                              ("12", None), ("2 or 3", None), ("4", None)])
def test_index_options(output, expected):
    assert extract_choice(output, DIGITS) == expected
