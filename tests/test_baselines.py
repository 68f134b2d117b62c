"""Baselines through the real entry point: oracle = 100 everywhere, random = chance, symbolic rules."""

from __future__ import annotations

import math

import pytest

from scoreqa.baselines.backend import BaselineBackend
from scoreqa.baselines.oracle import OracleAnswerer
from scoreqa.baselines.random_choice import RandomAnswerer
from scoreqa.baselines.symbolic.abc_rules import count_bars, error_bars, metadata_option
from scoreqa.baselines.symbolic.msu_rules import answer_msu
from scoreqa.backends.base import ChatRequest
from scoreqa.data.records import BenchmarkSplit, Question, Score
from scoreqa.evaluation.entry import evaluate

MC_SUBTASKS = ("Metadata_QA", "Next_Bar_Prediction", "Metadata_Prediction", "Music_Captioning",
               "Emotion_Recognition", "Genre_Recognition")


@pytest.fixture(scope="module")
def run(compose, data_root, tmp_path_factory):
    def _run(model: str, *extra: str) -> dict:
        cfg = compose("evaluate", ["data=abc_eval", f"model={model}", "logger=none",
                                   f"paths.data_root={data_root}", *extra])
        assert cfg.modality.name == "abc" and cfg.backend._target_.endswith("BaselineBackend")
        return evaluate(cfg, tmp_path_factory.mktemp(model))
    return _run


def test_oracle_scores_100_on_every_abc_eval_subtask(run):
    metrics = run("oracle")
    assert len(metrics["subtasks"]) == 9
    assert all(score == 100.0 for score in metrics["subtasks"].values()), metrics["subtasks"]
    assert metrics["overall"] == 100.0 and set(metrics["categories"].values()) == {100.0}


def test_random_lands_near_chance(run):
    metrics = run("random", "seed=7")
    details = metrics["subtask_details"]
    n = sum(details[s]["n"] for s in MC_SUBTASKS)
    pooled = sum(metrics["subtasks"][s] * details[s]["n"] for s in MC_SUBTASKS) / n / 100
    # four binomial standard deviations around chance (1/4): a false alarm once in ~16,000 seeds
    assert abs(pooled - 0.25) < 4 * math.sqrt(0.25 * 0.75 / n)
    for subtask in MC_SUBTASKS:
        k = details[subtask]["n"]
        assert abs(metrics["subtasks"][subtask] / 100 - 0.25) < 4 * math.sqrt(0.25 * 0.75 / k), subtask
    # a random permutation has E[tau] = 0, so the mapped score averages 0.5 (per-answer sd below 0.3)
    assert abs(metrics["subtasks"]["Bar_Sequencing"] / 100 - 0.5) < 4 * 0.3 / math.sqrt(119)
    assert details["Bar_Sequencing"]["n_unparseable"] == 0


def test_symbolic_reads_bar_counts_and_metadata_from_the_abc(run):
    metrics = run("symbolic")
    assert metrics["subtasks"]["Metadata_QA"] == 100.0
    assert metrics["subtasks"]["Bar_Count_Estimation"] >= 95.0
    assert metrics["subtasks"]["Error_Detection"] > 0.0
    assert metrics["subtasks"]["Genre_Recognition"] == 0.0  # abstains where the text decides nothing


def test_random_answers_are_seeded_per_question():
    question = Question("q1", "s", 0, "?", "2", choices=("a", "b", "c", "d"), meta={"option_labels": "0123"})
    answers = {RandomAnswerer(3).answer(question, Score("s", "s")) for _ in range(5)}
    assert len(answers) == 1 and answers <= set("0123")
    order = Question("q2", "s", 0, "?", "3102", choices=("w", "x", "y", "z"), meta={"kind": "order", "option_labels": "0123"})
    assert sorted(RandomAnswerer(3).answer(order, Score("s", "s"))) == list("0123")


def test_backend_needs_the_bound_split():
    backend = BaselineBackend(OracleAnswerer())
    request = ChatRequest("q1", ({"role": "user", "content": "?"},), ("q1",))
    with pytest.raises(KeyError, match="bind_split"):
        list(backend.generate([request]))
    backend.bind_split(BenchmarkSplit("t", "all", {"s": Score("s", "s")}, [Question("q1", "s", 0, "?", "42")]))
    assert [c.text for batch in backend.generate([request]) for c in batch] == ["42"]


def test_symbolic_rules_on_hand_written_tunes():
    tune = "L:1/8\nM:3/4\nK:G\nD | G2 A2 B2 | c2 H2 d2 | e2 f2 g2 a2 | D2 b2 g2 | ^c2 d2 e2 | d6 |]"
    # bar 3 holds the letter H, bar 4 overfills 3/4, bar 5 leaps D -> b (a 13th), bar 6 has C# in G major;
    # the short first bar is an anacrusis
    assert error_bars(tune) == [3, 4, 5, 6]
    assert count_bars(tune) == "7"
    assert error_bars("L:1/5\nM:3/4\nK:G\nG2 A2 B2 | d6 |]") == [0]
    assert error_bars("L:1/8\nM:3/4\nK:Q\nG2 A2 B2 | d6 |]") == [0]
    assert error_bars("L:1/8\nM:6/8\nK:D\nd>ef gfe | fC#d e3 |") == [2]
    assert metadata_option("M:6/8\nL:1/8\nK:Gm\nG3 |", "Identify the key signature", ["G", "Gm", "Bb", "Dm"]) == 1
    assert metadata_option("M:6/8\nL:1/8\nK:Gm\nG3 |", "Identify the time signature", ["3/4", "6/8"]) == 1
    assert metadata_option("M:6/8\nL:1/8\nK:Gm\nG3 |", "Identify the unit note length", ["1/4", "1/8"]) == 1


MSU_ABC = """X:1
T:Minuet
C:J. S. Bach
M:3/4
L:1/8
Q:1/4=96
K:Gm
V:1 clef=treble
V:2 clef=bass
V:1
D2 |: G2 A2 ^F2 | B4 =B2 :| g6 |]
V:2
z2 |: G,,6 | D,6 :| G,,6 |]
"""


@pytest.mark.parametrize("question, answer", [
    ("What is the initial time signature?", "3/4 time"), ("What is the initial key?", "G minor"),
    ("What is the tempo in beats per minute?", "96 BPM"), ("Who is the composer?", "J. S. Bach"),
    ("What is the title of the piece?", "Minuet"), ("What is the initial clef?", "Treble clef; Bass clef"),
    ("Is there an anacrusis (upbeat measure)?", "Yes"), ("In measure 1, what is the highest pitch?", "A4"),
    ("In measure 1, what is the lowest pitch?", "G2"), ("In measure 2, what is the highest pitch?", "B4"),
    ("In measure 2, is there an accidental, and what is it?", "Yes, B♮4"), ("In measure 3, is there an accidental?", "No"),
    ("In measures 1–2, is there a repeat sign?", "Yes"), ("What instruments are used?", None),
    ("In measure 9, what is the highest pitch?", None),
])
def test_symbolic_msu_level_1_2_answers(question, answer):
    assert answer_msu(question, MSU_ABC) == answer


LABELLED_ABC = """X:1
T:Song
M:2/4
L:1/8
%%score [ 1 | 2 ]
K:F
V:1 treble-8 nm="Tenor"
V:2 bass nm="Alto Bass"
V:1
c2 | %0
w: la
[FAc]4 | %1
"^dolce" f2 =e2 | %2
V:2
z2 | %0
F,4 | %1
C,4 | %2
"""


@pytest.mark.parametrize("question, answer", [
    ("Is there an anacrusis?", "Yes"), ("In measure 1, what is the highest pitch?", "C4"),
    ("In measure 2, what is the lowest pitch?", "C3"), ("In measure 2, is there an accidental, and what is it?",
                                                       "Yes, E♮4"),
    ("What instruments are used?", "Tenor; Alto Bass"), ("What is the initial clef?", None),
])
def test_symbolic_msu_reads_bar_labels_octave_clefs_and_chords(question, answer):
    # bar labels (%N) number the measures; treble-8 sounds an octave below the written notes; every chord
    # note counts for pitch questions; part names are not clefs; a transposing clef's name is not guessed
    assert answer_msu(question, LABELLED_ABC) == answer


def test_labelled_abc_finds_measures_by_label_past_lyrics_split_bars_and_free_labels():
    """One bar per line with %N labels (scoreqa.scores' ABC): lyric lines, split bars (%2a) and non-numeric
    MusicXML numbers (%X1) must not shift which bar 'measure N' is."""
    from scoreqa.baselines.symbolic.msu_rules import highest

    abc = "\n".join(["X:1", "T:t", "M:3/4", "L:1/8", "K:G", "V:1 treble", "V:1",
                     "G2 | %0", "w: Aus|", "d6 | %1", "w: mei-|", "B6 | %2", "e6 | %2a", "z6 | %X1", "A6 | %3"])
    assert highest(abc, 1) == "D5"
    assert highest(abc, 2) == "B4"   # not E5 of the split bar's second half
    assert highest(abc, 3) == "A4"   # not shifted by the free label X1
