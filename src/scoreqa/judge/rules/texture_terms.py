"""Level-4 vocabularies: texture and accompaniment types, motif features, forms.

These answers are open-ended, so the rules here are the most cautious: only disjoint answers are
incorrect, a reference with descriptive words ('Gentle arpeggio texture') is never matched as correct
by a bare 'arpeggios', and many near groups keep related figures undecided.
"""

from __future__ import annotations

from scoreqa.judge.rules.concepts import VocabRule, Vocabulary

_DESCRIPTIVE = ("gentle flowing cyclic compound nocturne thick triple-meter triple meter semiquaver semiquavers fast "
                "continuous sustained simple rich dense light lyrical smooth mainly occasional occasionally small "
                "large wide ascending descending built rapid slow quick lively neighboring neighbouring")

TEXTURE = VocabRule(
    "texture",
    r"texture|accompaniment",
    Vocabulary({
        "block": ["block(?:ed)? chords?", "chordal", "block", "blocked", "block-chord"],
        "broken": ["broken[- ]chords?", "broken"],
        "arpeggio": ["arpeggios?", "arpeggiated(?: chords?)?", "arpeggiation"],
        "alberti": ["alberti(?: bass)?"],
        "homophonic": ["homophon(?:y|ic)", "melody (?:and|with) accompaniment"],
        "polyphonic": ["polyphon(?:y|ic)", "contrapuntal", "counterpoint", "imitative", "fugal"],
        "monophonic": ["monophon(?:y|ic)", "single melodic line"],
        "choral": ["chorale?(?: style)?"],
        "harmonic": ["harmonic"],
        "waltz": ["waltz bass", "oom-?pah", "um-?pah", "bass-chord"],
        "tremolo": ["tremolos?"],
        "heterophonic": ["heterophon(?:y|ic)"],
    }, filler="texture textures type types accompaniment accompaniments figure figures figuration pattern patterns "
              "style chord chords left right hand hands bass in the",
        decorative=_DESCRIPTIVE),
    near=[("block", "choral", "harmonic", "homophonic", "waltz"), ("broken", "arpeggio", "alberti", "tremolo"),
          ("homophonic", "broken"), ("homophonic", "arpeggio"), ("homophonic", "alberti"),
          ("harmonic", "broken"), ("harmonic", "arpeggio"), ("polyphonic", "heterophonic")],
    missing_is_wrong=False,
)

MOTIF = VocabRule(
    "motif",
    r"motif|motive|characteristic|structural feature|rhythm of|rhythmic pattern|melodic character|"
    r"occurring rhythm|common rhythm",
    Vocabulary({
        "stepwise": ["stepwise", "steps?", "conjunct", "scale-?wise", "sepwise", "by step"],
        "leap": ["leaps?", "leapwise", "skips?", "disjunct", "jumps?", "leaping"],
        "repeated": ["repeated notes?", "note repetitions?", "repetition of the same pitch", "repeated pitch(?:es)?",
                     "same pitch", "repeated-note", "repetitions?"],
        "scale": ["scales?", "scalar(?: runs?)?", "runs?"],
        "arpeggio": ["arpeggios?", "arpeggiated", "arpeggiation"],
        "broken": ["broken[- ]chords?"],
        "chromatic": ["chromatic(?:ism|ally)?"],
        "diatonic": ["diatonic"], "pentatonic": ["pentatonic"],
        "dotted": ["dotted(?: rhythms?)?"], "even": ["even(?: rhythms?)?", "steady rhythm", "equal note values"],
        "triplet": ["triplets?"], "syncopation": ["syncopat(?:ed|ion)(?: rhythms?)?"],
        "sequence": ["sequences?", "sequential"], "neighbor": ["neighbou?r(?:ing)?(?: tones?| notes?)?",
                                                               "auxiliary(?: notes?| tones?)?"],
        "second": ["(?:minor |major )?seconds?(?: intervals?)?"], "third": ["thirds?(?: intervals?)?"],
        "fourth": ["(?:perfect )?fourths?(?: intervals?)?"], "fifth": ["(?:perfect )?fifths?(?: intervals?)?"],
        "sixth": ["sixths?(?: intervals?)?"], "octave": ["octaves?(?: intervals?| leaps?| technique)?"],
        "trill": ["trills?"], "turn": ["turns?"], "staccato": ["staccato"], "staccatissimo": ["staccatissimo"],
        "accent": ["accents?"], "slur": ["slurs?"], "appoggiatura": ["appoggiaturas?"],
        "sustained": ["long notes?", "sustained notes?"], "passing": ["passing (?:tones?|notes?)"],
        "block": ["block(?:ed)? chords?", "chordal"], "choral": ["chorale?(?: texture)?"],
        "monophonic": ["monophon(?:y|ic)"],
    }, filler="motion movement melody melodic line lines figure figures figuration pattern patterns rhythm "
              "rhythms rhythmic interval intervals note notes contour with and of the in motif motive",
        decorative=_DESCRIPTIVE),
    near=[("stepwise", "scale", "second", "neighbor", "chromatic", "passing", "diatonic", "pentatonic"),
          ("leap", "third", "fourth", "fifth", "sixth", "octave", "arpeggio", "broken"),
          ("arpeggio", "broken", "third"), ("dotted", "syncopation"), ("repeated", "sustained"),
          ("trill", "turn"), ("staccato", "staccatissimo", "accent"), ("slur", "sustained"),
          ("appoggiatura", "neighbor", "passing"), ("scale", "sequence"), ("block", "choral", "broken", "arpeggio")],
    missing_is_wrong=False,
)

FORM = VocabRule(
    "form",
    r"\bform\b",
    Vocabulary({"rondo": ["rondo"], "sonata": ["sonata(?:-allegro)?"], "ternary": ["ternary", "aba"],
                "binary": ["binary", "ab"], "variations": ["theme and variations", "variations?"],
                "strophic": ["strophic"], "through-composed": ["through-?composed"], "fugue": ["fugue"]},
               filler="form structure in"),
    near=[("rondo", "ternary"), ("sonata", "binary"), ("ternary", "binary")],
    exclude_question=r"performed",
)
