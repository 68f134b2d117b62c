"""Pitches in scientific pitch notation (C4 = middle C) with ♯ ♭ ♮ 𝄪 𝄫, #/b, 'sharp'/'flat'/'natural'.

Spelling matters (a score question asks for the written note): C♯5 vs D♭5 is not decided either way,
since the sound is the same; a missing natural sign (A4 for A♮4) is not decided either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoreqa.judge.rules.base import Rule
from scoreqa.judge.rules.text import drop_parentheses, fold, hedged, negated, split_items

_ACCIDENTALS = {"♯": "#", "#": "#", "sharp": "#", "♭": "b", "b": "b", "flat": "b", "♮": "n", "natural": "n",
                "𝄪": "##", "##": "##", "x": "##", "double sharp": "##", "double-sharp": "##",
                "𝄫": "bb", "bb": "bb", "♭♭": "bb", "double flat": "bb", "double-flat": "bb", "": ""}
_STEP = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
_ALTER = {"": 0, "n": 0, "#": 1, "##": 2, "b": -1, "bb": -2}
_WORD_ACC = r"(?:[\s-]?(?:double[\s-](?:sharp|flat)|sharp|flat|natural))"
_SYMBOL_ACC = r"(?:𝄪|𝄫|♭♭|##|bb|♯|♭|♮|#|b)"
# letter, accidental, octave; a space before the octave only after a spelled-out accidental ('F sharp 4')
PITCH = re.compile(rf"(?<![\w♯♭♮#/])([A-Ga-g])(?:({_SYMBOL_ACC})?(\d)|({_WORD_ACC})\s?(\d))(?![\w/])")
PITCH_CLASS = re.compile(rf"(?<![\w♯♭♮#/])([A-G])({_SYMBOL_ACC}|{_WORD_ACC})?(?![\w♯♭♮#/])|"
                         rf"(?<![\w♯♭♮#/])([a-g])(𝄪|𝄫|♯|♭|♮|#)(?![\w♯♭♮#/])")
_RESIDUE = re.compile(r"(?<![\w'’])[A-G](?![\w'’])|(?<![\w])[a-g][♯♭♮#𝄪𝄫]")
_ACC_FIRST = re.compile(r"(?<![\w])(sharp|flat|natural)\s+(?:on\s+(?:the\s+)?(?:note\s+)?)?([A-G])(?=\d?(?![\w♯♭♮#]))",
                        re.IGNORECASE)
_MIDDLE_C = re.compile(r"\bmiddle\s+C\b", re.IGNORECASE)
# 'd2' is D2 in lowercase scientific notation but D5 in the Helmholtz-number notation MSU-Bench's own questions
# use ('the note c2'): a lowercase letter with an octave number is never judged
_LOWERCASE_OCTAVE = re.compile(rf"(?<![\w♯♭♮#/])[a-g](?:{_SYMBOL_ACC})?\d(?![\w/])")


@dataclass(frozen=True)
class Pitch:
    letter: str
    accidental: str       # '', 'n', '#', '##', 'b', 'bb'
    octave: int | None

    def strict(self, with_octave: bool = True) -> tuple:
        return self.letter, self.accidental, self.octave if with_octave else None

    def loose(self, with_octave: bool = True) -> tuple:
        """A natural sign and no sign name the same note."""
        return self.letter, self.accidental.replace("n", ""), self.octave if with_octave else None

    def sound(self, with_octave: bool = True) -> tuple:
        semitone = _STEP[self.letter] + _ALTER[self.accidental]
        octave = (self.octave if with_octave else 0) or 0
        return (octave * 12 + semitone,) if with_octave else (semitone % 12,)


def _accidental(token: str | None) -> str:
    token = (token or "").strip(" -").lower().replace("-", " ")
    return _ACCIDENTALS.get(token, _ACCIDENTALS.get(token.replace(" ", "-"), ""))


def find_pitches(text: str, allow_pitch_class: bool = True) -> list[Pitch]:
    """Every pitch mentioned, in order; bare letters count only with an accidental next to them (F♯)."""
    text = _MIDDLE_C.sub("C4", fold(text))
    text = _ACC_FIRST.sub(lambda m: f"{m.group(2)}{'♯♭♮'['sfn'.index(m.group(1)[0].lower())]}", text)
    found: list[tuple[int, Pitch]] = []
    taken: list[range] = []
    for match in PITCH.finditer(text):
        accidental, octave = (match.group(2), match.group(3)) if match.group(3) else match.group(4, 5)
        found.append((match.start(), Pitch(match.group(1).upper(), _accidental(accidental), int(octave))))
        taken.append(range(match.start(), match.end()))
    if allow_pitch_class:
        for match in PITCH_CLASS.finditer(text):
            letter, accidental = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
            if any(match.start() in span for span in taken) or not accidental:
                continue
            found.append((match.start(), Pitch(letter.upper(), _accidental(accidental), None)))
    return [pitch for _, pitch in sorted(found, key=lambda x: x[0])]


def parse_pitch_list(text: str) -> list[Pitch] | None:
    """A reference made only of pitches ('C♯5', 'F♯4; A♮4', 'E♭;A♭;D♭', 'G'), else None."""
    items = split_items(drop_parentheses(text))
    pitches = []
    for item in items:
        item = item.strip()
        match = re.fullmatch(rf"([A-G])({_SYMBOL_ACC}|{_WORD_ACC})?(\d)?", item)
        if match is None:
            parts = item.split()
            if len(parts) > 1 and all(parse_pitch_list(p) for p in parts):   # 'C♯5 B♮4'
                pitches.extend(p for part in parts for p in parse_pitch_list(part) or [])
                continue
            return None
        octave = int(match.group(3)) if match.group(3) else None
        pitches.append(Pitch(match.group(1), _accidental(match.group(2)), octave))
    return pitches or None


def unread_pitch_names(text: str) -> bool:
    """Letters that may name notes but were not read as pitches ('a sharp on F', 'e♭' in prose)."""
    rest = PITCH.sub(" ", _MIDDLE_C.sub(" ", fold(text)))
    rest = PITCH_CLASS.sub(lambda m: " " if (m.group(2) or m.group(4)) else m.group(0), rest)
    return bool(_RESIDUE.search(rest))


def compare_pitches(reference: list[Pitch], prediction: list[Pitch]) -> bool | None:
    """Equal sets -> correct; a reference pitch missing -> incorrect; extras, other spellings -> undecided."""
    if not prediction:
        return None
    with_octave = all(p.octave is not None for p in reference)
    if with_octave and any(p.octave is None for p in prediction):
        ref_classes = {p.loose(False) for p in reference}
        pred_classes = {p.loose(False) for p in prediction}
        # octave missing in the prediction: only a wrong pitch class can be decided
        return False if not pred_classes & ref_classes and _unlike(reference, prediction, False) else None
    strict_ref = {p.strict(with_octave) for p in reference}
    strict_pred = {p.strict(with_octave) for p in prediction}
    if strict_ref == strict_pred:
        return True
    loose_ref = {p.loose(with_octave) for p in reference}
    loose_pred = {p.loose(with_octave) for p in prediction}
    if not loose_ref <= loose_pred:
        missing = [p for p in reference if p.loose(with_octave) not in loose_pred]
        pred_sounds = {p.sound(with_octave) for p in prediction}
        if any(p.sound(with_octave) in pred_sounds for p in missing):
            return None                 # an enharmonic respelling of a missing pitch
        return False
    return None                         # extra pitches, or a natural sign written or not


def _unlike(reference: list[Pitch], prediction: list[Pitch], with_octave: bool) -> bool:
    return not {p.sound(with_octave) for p in reference} & {p.sound(with_octave) for p in prediction}


class PitchRule(Rule):
    """Highest/lowest pitch, notes of an ornament, omitted notes, accidentals listed without 'Yes'."""

    name = "pitch"

    def claim(self, question: str, reference: str) -> list[Pitch] | None:
        return parse_pitch_list(reference)

    def decide(self, parsed: list[Pitch], prediction: str, question: str) -> bool | None:
        if hedged(prediction) or negated(prediction):
            return None
        lone = _lone_letter(prediction)
        if lone:        # 'the C' for the highest pitch; not after 'Yes,' where 'F' may name the altered note
            return compare_pitches(parsed, lone)
        return decide_pitches(parsed, prediction)


def _lone_letter(text: str) -> list[Pitch]:
    """A whole answer that is one note letter ('the C', 'B♭'): a pitch class, though bare letters in prose are not."""
    match = re.fullmatch(rf"(?:the\s+)?(?:note\s+)?([A-G])({_SYMBOL_ACC}|{_WORD_ACC})?", fold(text).strip(" ."),
                         re.IGNORECASE)
    if match is None or not match.group(1).isupper():
        return []
    return [Pitch(match.group(1), _accidental(match.group(2)), None)]


def decide_pitches(reference: list[Pitch], prediction: str) -> bool | None:
    """:func:`compare_pitches` on what a prediction names; 'incorrect' only if no note name went unread."""
    text = drop_parentheses(prediction)
    if _LOWERCASE_OCTAVE.search(fold(text)):
        return None
    found = find_pitches(text) or find_pitches(prediction)
    if all(p.octave is not None for p in reference) and any(p.octave is None for p in found):
        spelled = [p for p in find_pitches(prediction) if p.octave is not None]
        # 'a B-sharp (B♯3)': a bare name restated with its octave counts once, with the octave
        if spelled and {p.loose(False) for p in find_pitches(prediction)} <= {p.loose(False) for p in spelled}:
            found = spelled
    outcome = compare_pitches(reference, found)
    return None if outcome is False and unread_pitch_names(text if find_pitches(text) else prediction) else outcome
