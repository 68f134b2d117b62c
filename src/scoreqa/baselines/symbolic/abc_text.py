"""A small reader of ABC tune text: header fields, bars, and the notes of each bar.

Written for the short, often deliberately broken ABC of ABC-Eval: a strict parser (music21's)
rejects exactly the inputs whose errors the symbolic baseline must locate, so this reader keeps
going and reports what it could not read (unknown letters, ``#``/``b`` accidentals written as text)
instead of failing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

_FIELD = re.compile(r"^\s*([A-Za-z])\s*:\s*(.*?)\s*$")
_STRIP = [re.compile(p) for p in (r'"[^"]*"', r"![^!\n]*!", r"\+[^+\n]*\+", r"%[^\n]*", r"\{[^}]*\}",
                                   r"\[[A-Za-z]:[^\]]*\]")]
_BARLINE = re.compile(r"(:*\[?\|+\]?:*(?:\[?\d+(?:[,-]\d+)*)?|::+|\[\d+)")
# a note or rest: ABC accidental, letter, octave marks, text accidental (#, ##, b after a capital), length
_TOKEN = re.compile(r"(?P<acc>\^\^|\^|__|_|=)?(?P<letter>[A-Za-z])(?P<text_acc>##?|(?<=[A-G])bb?(?![a-g]))?"
                    r"(?P<oct>[,']*)(?P<num>\d*)(?P<slashes>/*)(?P<den>\d*)")
# the MusicXML measure number after each bar: "7", "7a" (second half of a split bar), or a free label ("X1")
_LABEL = re.compile(r"^(?P<music>.*?)\s*%(?P<label>[0-9A-Za-z.]+)\s*$")
_TUPLET = re.compile(r"\((\d)(?::(\d)?)?(?::(\d))?")
NOTE_LETTERS, REST_LETTERS = set("ABCDEFGabcdefg"), set("zx")
DECORATION_LETTERS = set("T")  # trill shorthand, common in folk ABC
_STEP = {"C": 0, "D": 1, "E": 2, "F": 3, "G": 4, "A": 5, "B": 6}
SEMITONE = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
_ALTER = {"^": 1, "^^": 2, "_": -1, "__": -2, "=": 0, "#": 1, "##": 2, "b": -1, "bb": -2}


@dataclass
class Note:
    letter: str  # upper case pitch letter, or "z" for a rest
    octave: int  # scientific octave (C4 = ABC ``C``)
    alter: int | None  # explicit accidental in semitones, None when the note has none
    length: Fraction  # in units of the L: length
    text_accidental: bool = False  # written as ``#``/``b`` (not ABC)

    @property
    def is_rest(self) -> bool:
        return self.letter == "z"

    @property
    def diatonic(self) -> int:
        return 7 * self.octave + _STEP[self.letter]

    def pitch_class(self, key_alter: dict[str, int]) -> int:
        alter = self.alter if self.alter is not None else key_alter.get(self.letter, 0)
        return (SEMITONE[self.letter] + alter) % 12


@dataclass
class Bar:
    number: int  # 1-based, counting bars that hold at least one note or rest
    text: str
    notes: list[Note] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)  # letters that are neither notes, rests nor decorations
    left: str = ""  # the barline text before and after the bar
    right: str = ""
    label: str = ""  # the ``%N`` label of labelled ABC; only an all-digit label is "measure N"

    def length(self) -> Fraction:
        return sum((n.length for n in self.notes), Fraction(0))


@dataclass
class Tune:
    fields: list[tuple[str, str]]
    bars: list[Bar]
    labelled: bool = False  # bar numbers come from ``%N`` labels (one bar per line, as scoreqa.scores writes)

    def field(self, letter: str) -> str | None:
        return next((value for key, value in self.fields if key == letter), None)


def _length(num: str, slashes: str, den: str) -> Fraction:
    length = Fraction(int(num)) if num else Fraction(1)
    if slashes:
        divisor = int(den) if den else 2 ** len(slashes)
        length /= divisor if divisor else 1
    return length


def clean_body(text: str) -> str:
    for pattern in _STRIP:
        text = pattern.sub(" ", text)
    return text


def parse_bar(number: int, text: str) -> Bar:
    """Notes of one bar; tuplets scale the lengths of the notes they cover, a chord's length counts once."""
    bar = Bar(number, text.strip())
    position, tuplet_left, tuplet_ratio, in_chord, chord_seen = 0, 0, Fraction(1), False, False
    while position < len(text):
        char = text[position]
        tuplet = _TUPLET.match(text, position)
        if tuplet:
            p = int(tuplet.group(1))
            q = int(tuplet.group(2)) if tuplet.group(2) else {2: 3, 3: 2, 4: 3, 6: 2, 8: 3}.get(p, 2)
            tuplet_left, tuplet_ratio = int(tuplet.group(3) or p), Fraction(q, p)
            position = tuplet.end()
            continue
        if char == "[":
            in_chord, chord_seen = True, False
            position += 1
            continue
        if char == "]":
            in_chord = False
            position += 1
            continue
        token = _TOKEN.match(text, position)
        if token is None or not char.isalpha() and char not in "^_=":
            position += 1
            continue
        letter = token.group("letter")
        position = token.end()
        if letter not in NOTE_LETTERS | REST_LETTERS:
            if letter not in DECORATION_LETTERS:
                bar.invalid.append(token.group(0))
            continue
        length = _length(token.group("num"), token.group("slashes"), token.group("den"))
        if in_chord and chord_seen:
            length = Fraction(0)  # a chord lasts as long as its first note
        chord_seen = in_chord
        if tuplet_left and length:
            length *= tuplet_ratio
            tuplet_left -= 1
        if letter in REST_LETTERS:
            bar.notes.append(Note("z", 0, None, length))
            continue
        octave = (5 if letter.islower() else 4) + token.group("oct").count("'") - token.group("oct").count(",")
        accidental = token.group("text_acc") or token.group("acc")
        bar.notes.append(Note(letter.upper(), octave, _ALTER[accidental] if accidental else None, length,
                              text_accidental=bool(token.group("text_acc"))))
    return bar


def _bars(body: str) -> list[Bar]:
    pieces = _BARLINE.split(clean_body(body))
    bars: list[Bar] = []
    for index in range(0, len(pieces), 2):
        segment = pieces[index]
        bar = parse_bar(len(bars) + 1, segment)
        if bar.notes or bar.invalid or segment.strip(" \t\n:"):
            bar.left = pieces[index - 1] if index else ""
            bar.right = pieces[index + 1] if index + 1 < len(pieces) else ""
            bars.append(bar)
    return bars


def parse_tune(abc: str) -> Tune:
    """Header fields (every ``X:`` line, wherever it stands) and the bars of the body, in order."""
    fields, voices = _split(abc)
    return Tune(fields, _bars("\n".join(line for lines in voices.values() for line in lines)))


def parse_voices(abc: str) -> dict[str, Tune]:
    """One tune per voice (``V:`` lines and ``[V:]`` inline fields switch voice), sharing the header.

    A voice written one bar per line with a ``%N`` label after each bar takes its bar numbers from
    the labels (the pickup is 0), as in the ABC :mod:`scoreqa.scores.to_abc` writes.
    """
    fields, voices = _split(abc)
    shifts = _octave_shifts(fields)
    tunes = {}
    for voice, lines in voices.items():
        labelled = [_LABEL.match(line) for line in lines if line.strip()]
        if labelled and all(labelled):
            bars = [_labelled_bar(m.group("label"), m.group("music")) for m in labelled]
            tunes[voice] = Tune(fields, bars, labelled=True)
        else:
            tunes[voice] = Tune(fields, _bars("\n".join(lines)))
        for bar in tunes[voice].bars:
            for note in bar.notes:
                note.octave += shifts.get(voice, 0)
    return tunes


def _octave_shifts(fields: list[tuple[str, str]]) -> dict[str, int]:
    """Sounding octave shift per voice: ``treble-8`` / ``bass+8`` clefs and ``octave=N``."""
    shifts = {}
    for key, value in fields:
        if key == "V" and value.split():
            clef = re.search(r"\b(?:treble|bass|alto|tenor)([+-])8\b", value)
            octave = re.search(r"\boctave\s*=\s*([+-]?\d)", value)
            shift = (1 if clef.group(1) == "+" else -1) if clef else int(octave.group(1)) if octave else 0
            shifts.setdefault(value.split()[0], shift)
    return shifts


def _labelled_bar(label: str, music: str) -> Bar:
    pieces = _BARLINE.split(clean_body(music))
    digits = re.match(r"\d+", label)
    bar = parse_bar(int(digits.group()) if digits else -1, " ".join(pieces[0::2]))
    bar.label = label
    bar.left = pieces[1] if len(pieces) > 2 and not pieces[0].strip() else ""
    bar.right = pieces[-2] if len(pieces) > 1 and not pieces[-1].strip() else ""
    return bar


def _split(abc: str) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    fields: list[tuple[str, str]] = []
    voices: dict[str, list[str]] = {}
    current = "1"
    for line in abc.splitlines():
        if line.lstrip().startswith("%") or re.match(r"\s*[wW]:", line):  # comments, %% directives, lyrics
            continue
        match = _FIELD.match(line)
        if match and not line.lstrip().startswith("|"):
            fields.append((match.group(1), match.group(2)))
            if match.group(1) == "V" and match.group(2):
                current = match.group(2).split()[0]
            continue
        pieces = re.split(r"\[V:\s*([^\]\s]+)[^\]]*\]", line)  # text, voice, text, voice, text ...
        for index, piece in enumerate(pieces):
            if index % 2:
                current = piece
            elif piece.strip():
                voices.setdefault(current, []).append(piece.rstrip("\\"))
    return fields, voices


def parse_fraction(text: str | None) -> Fraction | None:
    """``3/4`` -> 3/4, ``C`` -> 1, ``C|`` -> 1; ``None`` when it is not a meter or length."""
    if text is None:
        return None
    text = text.strip()
    if text in ("C", "c"):
        return Fraction(1)
    if text in ("C|", "c|"):
        return Fraction(1)
    match = re.fullmatch(r"(\d+)\s*/\s*(\d+)", text)
    if not match or int(match.group(2)) == 0:
        return None
    return Fraction(int(match.group(1)), int(match.group(2)))
