"""Other languages' and notations' names for keys, meters, pitches and forms, rewritten into the English
forms the rules read.

- German keys: a letter with -is (sharp) / -es, -s (flat) and Dur/Moll; **H is B natural and B is B flat**
  (so "B-Dur" is B♭ major and "h-Moll" is B minor). Only rewritten next to Dur/Moll, where the German
  reading is certain.
- Fixed-do key names with a mode word (sol mineur, si bemolle maggiore, la menor, соль минор) and Japanese
  iroha keys (ト短調 = G minor, 変ロ長調 = B♭ major).
- Chinese: 大调/小调 keys with 升/降, meters read denominator first ("四三拍" = 3/4; "4/4拍"), and form and
  texture terms.
- LaTeX accidentals: E$\\flat$ = E♭.
- Roman-numeral figures in words: "V six-five" = V65, "I six-four" = I64, "V seven" = V7.
- Helmholtz pitches with primes (c′ = C4, c″ = C5, fis′ = F♯4, h′ = B4). German "c1" for C4 is too easily
  a measure or a figure and is left alone; a primed "b" is B in English and B♭ in German: left unread.
  "Middle C" (= C4) is read by :mod:`scoreqa.judge.rules.pitches`.
"""

from __future__ import annotations

import re

_GERMAN_ACC = {"is": "♯", "isis": "𝄪", "es": "♭", "s": "♭", "eses": "𝄫", "": ""}
_GERMAN_LETTER = {"h": "B", "b": "B♭"}          # the H/B convention; other letters are the same
GERMAN_KEY = re.compile(r"(?<![\w♯♭])([A-Ha-h])(isis|is|eses|es|s)?[\s-]?(Dur|Moll|dur|moll)\b")

_CHINESE_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十二": 12,
                   "十六": 16}
_DIGIT = "十二|十六|[一二三四五六七八九]"
CHINESE_METER = re.compile(rf"({_DIGIT})({_DIGIT})拍")
CHINESE_METER_DIGITS = re.compile(r"(\d{1,2})\s*/\s*(\d{1,2})\s*拍")
CHINESE_KEY = re.compile(r"([升降])?\s*([A-Ga-g])\s*([♯♭#b])?\s*(大调|小调|大調|小調)")
CHINESE_TERMS = {
    "奏鸣曲式": "sonata form", "回旋曲式": "rondo form", "回旋奏鸣曲式": "sonata-rondo form",
    "三部曲式": "ternary form", "单三部曲式": "ternary form", "二部曲式": "binary form",
    "单二部曲式": "binary form", "变奏曲式": "theme and variations", "变奏曲": "theme and variations",
    "赋格": "fugue", "主调音乐": "homophonic", "主调": "homophonic", "复调音乐": "polyphonic", "复调": "polyphonic",
    "单声部": "monophonic", "高音谱号": "treble clef", "低音谱号": "bass clef", "中音谱号": "alto clef",
    "次中音谱号": "tenor clef", "钢琴": "piano", "小提琴": "violin", "大提琴": "cello", "中提琴": "viola",
    "长笛": "flute",
}

# Roman-numeral figures written in words ('V six-five' = V65, 'I six-four' = I64); slashed and super/subscript
# figures (V6/5, V⁶₅) are read by scoreqa.judge.rules.roman after NFKC folding.
FIGURE_WORDS = {"six-four": "64", "six four": "64", "six-five": "65", "six five": "65", "four-three": "43",
                "four three": "43", "four-two": "42", "four two": "42", "seven": "7", "six": "6"}
ROMAN_FIGURE = re.compile(rf"(?<![\w])(VII|VI|IV|V|III|II|I|vii|vi|iv|v|iii|ii|i)([°ø+]?)\s+"
                          rf"({'|'.join(sorted(FIGURE_WORDS, key=len, reverse=True))})(?![\w-])")

# Fixed-do key names (French, Italian, Spanish, Russian) and Japanese iroha key names: rewritten only together
# with a mode word, where the reading is certain ('sol mineur', 'Si bemolle maggiore', 'ト短調').
_SOLFEGE = {"do": "C", "ut": "C", "re": "D", "ré": "D", "mi": "E", "fa": "F", "sol": "G", "la": "A", "si": "B",
            "до": "C", "ре": "D", "ми": "E", "фа": "F", "соль": "G", "ля": "A", "си": "B"}
_SOLFEGE_ACC = {"dièse": "♯", "diese": "♯", "diesis": "♯", "sostenido": "♯", "диез": "♯",
                "bémol": "♭", "bemol": "♭", "bemolle": "♭", "бемоль": "♭"}
_SOLFEGE_MODE = {"majeur": "major", "maggiore": "major", "mayor": "major", "мажор": "major",
                 "mineur": "minor", "minore": "minor", "menor": "minor", "минор": "minor"}
SOLFEGE_KEY = re.compile(rf"(?<![\w])({'|'.join(_SOLFEGE)})(?:\s+({'|'.join(_SOLFEGE_ACC)}))?\s+"
                         rf"({'|'.join(_SOLFEGE_MODE)})(?![\w])", re.IGNORECASE)
_IROHA = {"ハ": "C", "ニ": "D", "ホ": "E", "ヘ": "F", "ト": "G", "イ": "A", "ロ": "B"}
JAPANESE_KEY = re.compile(r"([嬰変])?([ハニホヘトイロ])(長調|短調)")

HELMHOLTZ = re.compile(r"(?<![\w♯♭'′])([a-h])(isis|is|eses|es|s)?('{1,4}|′{1,4}|″|‴)(?![\w'′])")
_PRIMES = {"'": 1, "′": 1, "″": 2, "‴": 3}


def _german_key(match: re.Match) -> str:
    letter, suffix, mode = match.group(1), match.group(2) or "", match.group(3).lower()
    if letter.lower() in _GERMAN_LETTER and not suffix:
        name = _GERMAN_LETTER[letter.lower()]
    elif letter.lower() == "h":
        name = "B" + _GERMAN_ACC[suffix]                      # his = B♯
    elif (letter.lower(), suffix) in {("a", "s"), ("e", "s")}:
        name = letter.upper() + "♭"                           # As, Es
    elif suffix == "s":
        return match.group(0)                                 # 'Ds-Dur' is no German name: leave unread
    else:
        name = letter.upper() + _GERMAN_ACC[suffix]
    return f"{name} {'major' if mode == 'dur' else 'minor'}"


def _solfege_key(match: re.Match) -> str:
    syllable, accidental, mode = match.group(1).lower(), (match.group(2) or "").lower(), match.group(3).lower()
    return f"{_SOLFEGE[syllable]}{_SOLFEGE_ACC.get(accidental, '')} {_SOLFEGE_MODE[mode]}"


def _japanese_key(match: re.Match) -> str:
    sign = {"嬰": "♯", "変": "♭"}.get(match.group(1) or "", "")
    return f" {_IROHA[match.group(2)]}{sign} {'major' if match.group(3) == '長調' else 'minor'} "


def _chinese_key(match: re.Match) -> str:
    prefix, letter, accidental, mode = match.groups()
    sign = {"升": "♯", "降": "♭"}.get(prefix or "", "") or {"#": "♯", "b": "♭"}.get(accidental or "", accidental or "")
    return f" {letter.upper()}{sign} {'major' if mode in ('大调', '大調') else 'minor'} "


def _helmholtz(match: re.Match) -> str:
    letter, suffix, primes = match.group(1), match.group(2) or "", match.group(3)
    if letter == "b" and not suffix:
        return match.group(0)                                 # English B or German B♭: unread
    count = sum(_PRIMES[c] for c in primes)
    name = "B" if letter == "h" else letter.upper()
    if suffix == "s" and letter not in "ae":
        return match.group(0)
    return f"{name}{_GERMAN_ACC['es' if suffix == 's' else suffix]}{3 + count}"


LATEX_ACCIDENTAL = re.compile(r"\$?\\(flat|sharp|natural)\s*\$?")


def to_english(text: str) -> str:
    """The text with foreign key names, Chinese meters and terms, figures in words and Helmholtz pitches in
    English form."""
    text = LATEX_ACCIDENTAL.sub(lambda m: {"flat": "♭", "sharp": "♯", "natural": "♮"}[m.group(1)], text)
    text = GERMAN_KEY.sub(_german_key, text)
    text = SOLFEGE_KEY.sub(_solfege_key, text)
    text = JAPANESE_KEY.sub(_japanese_key, text)
    text = CHINESE_KEY.sub(_chinese_key, text)
    text = CHINESE_METER_DIGITS.sub(lambda m: f" {m.group(1)}/{m.group(2)} time ", text)
    text = CHINESE_METER.sub(lambda m: f" {_CHINESE_DIGITS[m.group(2)]}/{_CHINESE_DIGITS[m.group(1)]} time ", text)
    for term in sorted(CHINESE_TERMS, key=len, reverse=True):
        text = text.replace(term, f" {CHINESE_TERMS[term]} ")
    text = HELMHOLTZ.sub(_helmholtz, text)
    text = ROMAN_FIGURE.sub(lambda m: m.group(1) + m.group(2) + FIGURE_WORDS[m.group(3).lower()], text)
    return re.sub(r"[ \t]+", " ", text).strip(" \t")
