"""Answer extraction before the rules, and the notations vocabulary (German, Chinese, Helmholtz)."""

from __future__ import annotations

import pytest

from scoreqa.judge.extraction import extract
from scoreqa.judge.rules import RuleJudge
from scoreqa.judge.rules.notations import to_english


@pytest.mark.parametrize("prediction, text, status", [
    ("G minor", "G minor", "answer"),
    ("Two flats suggest B♭ major or G minor. No raised sevenths, therefore the key is B♭ major.",
     "the key is B♭ major", "answer"),
    ("Looking at the title, the piece is in E minor. However the final answer is **G minor**.", "G minor", "answer"),
    ("## Answer\n\nThe key is **D minor**.", "D minor", "answer"),
    ("**Key:** G minor", "Key: G minor", "answer"),
    ("It is most likely G minor.", "G minor", "answer"),
    ("I think V7–I", "V7-I", "answer"),                       # dashes folded to one kind
    ("G minor or B♭ major.", "G minor or B♭ major", "several"),
    ("Maybe G minor, but I am not sure.", "Maybe G minor, but I am not sure", "unsure"),
    ("It is not B♭ major but G minor.", "G minor", "answer"),
    ("Not D major; it is A major.", "A major", "answer"),
    ("B♭ major — no, G minor.", "G minor", "answer"),
    ("G minor. Actually, B♭ major.", "B♭ major", "answer"),
    ("The highest pitch is D5, not E5.", "The highest pitch is D5", "answer"),
    ("Unknown", "Unknown", "unknown"),
    ("The key cannot be determined from the title alone.", "The key cannot be determined from the title alone",
     "unknown"),
    ("I'm not able to see the score, so I can't say for certain. Unknown.",
     "I'm not able to see the score, so I can't say for certain. Unknown", "unknown"),
    ("Reasoning about the opening bars and their harmony\n\nG minor", "G minor", "answer"),
    ("No, there is no perfect cadence.", "No, there is no perfect cadence", "answer"),
])
def test_extraction_finds_the_final_answer(prediction: str, text: str, status: str) -> None:
    found = extract(prediction)
    assert (found.text, found.status) == (text, status)


def test_several_candidates_and_the_reasoning_before_a_conclusion_are_kept() -> None:
    assert extract("Either 6/8 or 3/4.").candidates == ("6/8", "3/4")
    found = extract("The key is G minor, so the relative major is B♭ major.")
    assert (found.text, found.context) == ("the relative major is B♭ major", "The key is G minor,")


@pytest.mark.parametrize("text, english", [
    ("g-Moll", "G minor"), ("B-Dur", "B♭ major"), ("h-moll", "B minor"), ("Es-Dur", "E♭ major"),
    ("As-Dur", "A♭ major"), ("fis-Moll", "F♯ minor"), ("Des-Dur", "D♭ major"), ("His-Dur", "B♯ major"),
    ("G大调", "G major"), ("降B大调", "B♭ major"), ("升f小调", "F♯ minor"), ("四三拍", "3/4 time"),
    ("八六拍", "6/8 time"), ("6/8拍", "6/8 time"), ("奏鸣曲式", "sonata form"), ("低音谱号", "bass clef"),
    ("c'", "C4"), ("c''", "C5"), ("fis'", "F♯4"), ("es''", "E♭5"), ("h'", "B4"), ("c′", "C4"),
    ("b'", "b'"), ("It's in G minor", "It's in G minor"), ("V six-five", "V65"),
    ("I six-four – V seven – I", "I64 – V7 – I"), ("I saw six bars", "I saw six bars"),
    ("sol mineur", "G minor"), ("Si bemolle maggiore", "B♭ major"), ("Mi bémol majeur", "E♭ major"),
    ("la menor", "A minor"), ("соль минор", "G minor"), ("ト短調", "G minor"), ("変ロ長調", "B♭ major"),
    ("the la is fine", "the la is fine"), ("E$\\flat$ minor", "E♭ minor"),
])
def test_notations_become_the_english_forms_the_rules_read(text: str, english: str) -> None:
    assert to_english(text) == english


@pytest.mark.parametrize("question, reference, prediction, expected", [
    ("What is the initial key?", "G minor", "Unknown", False),
    ("Is there an anacrusis?", "No", "Cannot be determined.", False),
    ("What is the tempo in beats per minute?", "150 BPM", "The tempo in beats per minute is 21.5", False),
    ("What is the initial key?", "G minor", "The key is G minor, so the relative major is B♭ major.", None),
    ("What is the initial key?", "B♭ major", "B-Dur", True),
    ("What is the initial key?", "B major", "B-Dur", False),
    ("In measure 1, what is the highest pitch?", "C5", "c''", True),
    ("In measure 3, what is the shortest note value?", "Sixteenth note", "Semiquaver or sixteenth note", True),
    ("In measure 3, what is the shortest note value?", "Sixteenth note", "Eighth note or sixteenth note.", False),
    ("In measure 136, is there a A♭ major chord?", "Yes",
     "It is not a minor chord: the C natural makes it major, so yes, there is an A♭ major chord.", True),
    ("In measures 20–21, is there a perfect cadence?", "Yes", "It is not a half cadence; the dominant goes to the "
     "tonic.", None),
    ("In measure 8, does the piece begin on the tonic chord of the original key?", "No",
     "The piece does not begin on the tonic chord.", True),
    ("In measures 1–172, is there a repeat sign?", "No", "Yes, there is one. So the answer is no.", None),
    ("In measure 3, what is the highest pitch?", "F♯6", "The highest pitch is the C, which is 440 Hz.", False),
    ("In measure 3, what is the highest pitch?", "F♯6", "F#", None),
    ("In measure 6, are there accidentals, and what are they?", "Yes, F#", "Yes, on F.", None),
    ("In measure 7, what is the highest pitch?", "D5", "d2", None),        # D2, or D5 in Helmholtz numbers
    ("In measure 7, what is the highest pitch?", "D5", "*D5*", True),
    ("In measures 1–3, what is the chord progression? (Use I, II, III, IV, V, VI, VII)", "i–V–i", "i | V | i", True),
])
def test_rule_verdicts_after_extraction(question: str, reference: str, prediction: str, expected: bool | None) -> None:
    assert RuleJudge().verdict(question, reference, prediction).correct is expected


def test_vocabulary_terms_match_whole_tokens_not_parts_of_compounds() -> None:
    from scoreqa.judge.rules.vocabularies import CLEF, REGISTER, VOICE_PART

    assert VOICE_PART.vocabulary.parse("mezzo-soprano").concepts == frozenset()
    assert VOICE_PART.vocabulary.parse("soprano voice").concepts == {"upper"}
    assert CLEF.vocabulary.parse("bass-baritone").concepts == frozenset()
    assert REGISTER.vocabulary.parse("upper-middle register").concepts == {"high", "middle"}


@pytest.mark.parametrize("question, prediction, text, context", [
    ("What is the initial time signature?", "The initial time signature in this piece of music is 12/8. The time "
     "signature is 12, which is a 24-note rhythm.", "12/8", "The time signature is 12, which is a 24-note rhythm"),
    ("What is the initial time signature?", "Nocturne Op. 27, No. 2\nIn this piece, the time signature is 2/8.",
     "2/8", ""),
    ("Who is the composer?", 'The composer of the piece "Lyric Pieces Op. 54 No. 4" is known as Johann Sebastian '
     "Bach.", "Johann Sebastian Bach", ""),
    ("What is the initial key?", "The piece is lovely and calm.", "The piece is lovely and calm", ""),
])
def test_an_answer_restating_the_questions_subject_is_read_from_that_sentence(question: str, prediction: str,
                                                                              text: str, context: str) -> None:
    found = extract(prediction, question)
    assert (found.text, found.context) == (text, context)


def test_an_echoed_wrong_value_is_not_judged_wrong_when_the_rest_states_the_reference() -> None:
    question = "What is the initial key?"
    judge = RuleJudge()
    assert judge.verdict(question, "G minor", "The initial key is B♭ major. It begins in G minor.").correct is None
    assert judge.verdict(question, "G minor", "The initial key is B♭ major. It is bright.").correct is False
