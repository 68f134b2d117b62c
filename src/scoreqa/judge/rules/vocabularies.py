"""The term tables behind the vocabulary rules, one per answer type seen in MSU-Bench's references.

Surface forms are lowercase regex fragments matched on accent-free text. ``near`` groups list terms a
grader could accept for one another (slur/legato, arpeggio/broken chord): a miss within a group stays
undecided instead of becoming 'incorrect'.
"""

from __future__ import annotations

from scoreqa.judge.rules.concepts import VocabRule, Vocabulary

_ORNAMENT_MODIFIERS = {"double": ["double"], "upper": ["upper"], "lower": ["lower"], "inverted": ["inverted"]}

ARTICULATION = VocabRule(
    "articulation",
    r"articulation|ornament|performance (?:\(articulation\) )?marking|performance technique|playing technique|"
    r"decorative technique|performance marking",
    Vocabulary({
        "staccato": ["staccato(?: dots?)?", "staccati", "detached"],
        "staccatissimo": ["staccatissimo", "wedges?"],
        "accent": ["accents?", "accented", "accent marks?"],
        "marcato": ["marcato", "strong accents?"],
        "tenuto": ["tenuto(?: lines?)?", "tenuti"],
        "portato": ["portato", "mezzo[- ]staccato", "loure"],
        "slur": ["slurs?", "slurred", "phrase marks?", "phrasing slurs?"],
        "tie": ["ties?", "tied"],
        "legato": ["legato"],
        "fermata": ["fermatas?", "fermate", "pause signs?", "pauses?", "bird'?s[- ]eye", "corona"],
        "trill": ["trills?", "trillo", "tr"],
        "mordent": ["mordents?", "morden", "pralltriller", "schneller"],
        "turn": ["turns?", "gruppetto"],
        "appoggiatura": ["appoggiaturas?", "appoggiature", "long grace notes?"],
        "acciaccatura": ["acciaccaturas?", "acciaccature", "crushed notes?", "short grace notes?",
                         "slashed grace notes?"],
        "grace": ["grace notes?"],
        "arpeggio": ["arpeggio(?: signs?)?", "arpeggios", "arpeggiated(?: chords?)?", "arpeggiation",
                     "rolled chords?", "rolled"],
        "tremolo": ["tremolos?", "tremolando"],
        "pizzicato": ["pizzicato", "pizz"],
        "ottava": ["ottava", "8va", "8vb", "octave signs?"],
        "pedal": ["pedal(?:ling)?", "sustain pedal", "ped"],
        "glissando": ["glissandos?", "gliss"],
    }, filler="with ornament ornaments ornamentation articulation articulations performance technique techniques "
              "decoration dots dot line lines head heads",
        modifiers={**_ORNAMENT_MODIFIERS, "molto": ["molto"]}),
    near=[("staccato", "staccatissimo", "portato"), ("slur", "legato", "tie", "portato"), ("accent", "marcato"),
          ("appoggiatura", "acciaccatura", "grace"), ("trill", "mordent"), ("tremolo", "trill")],
)

CHORD_MEMBERS = VocabRule(
    "chord_members",
    r"repeated note|omitted|doubled|doubling|missing note",
    Vocabulary({
        "root": ["roots?(?: notes?| tones?)?", "fundamental", "tonic"],
        "third": ["thirds?(?: notes?| tones?)?", "trird"],
        "fifth": ["fifths?(?: notes?| tones?)?"],
        "seventh": ["sevenths?(?: notes?| tones?)?"],
        "fourth": ["fourths?(?: notes?| tones?)?"],
        "ninth": ["ninths?"],
        "none": ["no omitted notes?", "no notes? (?:is |are )?omitted", "nothing (?:is )?omitted", "none omitted",
                 "none", "no omissions?", "complete(?: chord| triad)?", "no notes? (?:is |are )?missing",
                 "no repeated notes?", "no notes? (?:is |are )?repeated", "no notes? (?:is |are )?doubled"],
    }, filler="note notes tone tones repeated doubled doubling omitted missing chord triad of is are the all two "
              "three four"),
    negation_ok=True,
)

SPACING = VocabRule(
    "spacing",
    r"spacing|voicing|arrangement|\bposition\b",
    Vocabulary({"close": ["close", "closed"], "open": ["open"], "mixed": ["mixed"]},
               filler="position spacing voicing structure harmony arrangement chord voiced triad"),
)

_HIGH, _MID, _LOW = "high(?:er)?|upper|top", "middle|mid|central|medium|centre|center", "low(?:er)?|bottom"

REGISTER = VocabRule(
    "register",
    r"register|pitch range",
    Vocabulary({"high": ["high(?:er)?", "upper", "top"], "middle": ["middle", "mid", "central", "medium", "centre",
                                                                     "center"],
                "low": ["low(?:er)?", "bottom"],
                # hyphenated pairs are one token for the whole-token matching of concepts.Vocabulary
                "high+middle": [f"(?:{_HIGH})-(?:{_MID})", f"(?:{_MID})-(?:{_HIGH})"],
                "middle+low": [f"(?:{_LOW})-(?:{_MID})", f"(?:{_MID})-(?:{_LOW})"]},
               filler="register registers range tessitura to of the voice pitch pitches area zone melody played",
               decorative="treble bass"),
    missing_is_wrong=False,
)

INSTRUMENTS = VocabRule(
    "instruments",
    r"instrument|performance medium|which part|what part|form is the piece performed|voice/part|in which voice "
    r"does the accompaniment",
    Vocabulary({
        "piano": ["piano(?:forte)?", "solo piano", "piano solo"], "keyboard": ["keyboard"],
        "harpsichord": ["harpsichord", "cembalo"], "organ": ["organ"],
        "violin": ["violins?(?: ?(?:1|2|i|ii))?", "first violins?", "second violins?"],
        "viola": ["violas?"], "cello": ["cellos?", "violoncellos?"], "double bass": ["double bass", "contrabass"],
        "flute": ["flutes?"], "alto flute": ["alto flute", "flauta alto"], "piccolo": ["piccolo"],
        "oboe": ["oboes?"], "english horn": ["english horn", "cor anglais"], "clarinet": ["clarinets?"],
        "bassoon": ["bassoons?"], "horn": ["horns?", "french horns?", "corni", "corno"],
        "trumpet": ["trumpets?"], "trombone": ["trombones?"], "tuba": ["tubas?"], "harp": ["harps?", "arpa"],
        "timpani": ["timpani"], "guitar": ["guitars?"],
        "voice": ["voices?", "vocal(?: part)?s?", "singers?", "soprano", "mezzo-soprano", "tenor", "baritone",
                  "alto voice", "bass voice"],
        "orchestra": ["orchestra", "orchestral", "symphony orchestra", "full orchestra"],
        "strings": ["strings", "string section", "string orchestra"],
        "woodwinds": ["woodwinds?", "woodwind section", "winds"], "brass": ["brass(?: section)?"],
    }, filler="part parts section solo only instrument instruments ensemble for written accompaniment accompanied "
              "playing by hand right left first line staff"),
    near=[("piano", "keyboard", "harpsichord", "organ"), ("violin", "strings", "orchestra"),
          ("viola", "strings", "orchestra"), ("cello", "strings", "orchestra"), ("double bass", "strings"),
          ("flute", "alto flute", "piccolo", "woodwinds", "orchestra"), ("oboe", "english horn", "woodwinds"),
          ("clarinet", "woodwinds"), ("bassoon", "woodwinds"), ("horn", "brass", "orchestra"),
          ("trumpet", "brass"), ("trombone", "brass"), ("tuba", "brass"), ("harp", "orchestra")],
)

VOICE_PART = VocabRule(
    "voice_part",
    r"which voice|which part|which hand|what voice",
    Vocabulary({"upper": ["upper(?: voice)?", "treble(?: voice)?", "right[- ]hand", "soprano(?: voice)?", "top voice",
                          "highest voice", "melody voice"],
                "lower": ["lower(?: voice)?", "bass(?: voice)?", "left[- ]hand", "bottom voice", "lowest voice"],
                "inner": ["inner(?: voice)?", "middle voice", "alto(?: voice)?", "tenor(?: voice)?"]},
               filler="voice voices part parts hand staff line register melody"),
)

CLEF = VocabRule(
    "clef",
    r"\bclefs?\b",
    Vocabulary({"treble": ["treble", "g[- ]?clef", "violin clef"], "bass": ["bass", "f[- ]?clef"],
                "alto": ["alto", "viola clef"], "tenor": ["tenor(?: c)?"], "c": ["c[- ]?clef"],
                "soprano": ["soprano"], "percussion": ["percussion", "neutral"],
                "treble+bass": ["grand staff", "great staff", "piano staff"]},
               filler="clef clefs staff staves stave changes change changed changing switches switch to from into "
                      "the in right left hand hands upper lower part voice both"),
    near=[("c", "alto"), ("c", "tenor"), ("c", "soprano")],      # a C clef is alto or tenor; those two differ
)
