"""Tempo and expression terms (Allegro, Lento, rit., Dolce, Etwas lebhaft) and dynamics (f = forte, mf = mezzo forte).

Tempo words come in Italian, German and French; a prediction may translate a term the table does not
pair up, so 'incorrect' is only decided between the standard Italian tempo terms and tempo changes.
"""

from __future__ import annotations

from scoreqa.judge.rules.concepts import VocabRule, Vocabulary

_CORE_TEMPI = {"grave", "largo", "larghetto", "lento", "adagio", "adagietto", "andante", "andantino", "moderato",
               "allegretto", "allegro", "vivace", "vivo", "presto", "prestissimo", "ritardando", "rallentando",
               "ritenuto", "accelerando", "a tempo", "meno mosso", "piu mosso", "stringendo", "allargando"}

TEMPO_TERMS = VocabRule(
    "tempo_terms",
    r"tempo (?:indication|marking|term|change)|expression (?:marking|term)|initial tempo|initial expression|"
    r"tempo marking|expression markings",
    Vocabulary({
        **{term: [term] for term in ("grave", "largo", "larghetto", "lento", "adagio", "adagietto", "andante",
                                     "andantino", "moderato", "allegretto", "allegro", "vivace", "vivo", "presto",
                                     "prestissimo", "maestoso", "agitato", "dolce", "cantabile", "grazioso",
                                     "giusto", "sostenuto", "teneramente", "pesante", "calando", "morendo",
                                     "scherzando", "tranquillo", "animato", "appassionato", "energico", "rubato",
                                     "stringendo", "allargando", "smorzando", "leidenschaftlich", "lebhaft",
                                     "langsam", "bewegt", "ruhig", "schnell", "lent", "vif", "affetto")},
        "espressivo": ["espressivo", "espress", "espr", "expressivo"],
        "leggiero": ["leggiero", "leggierezza", "leggiermente", "leggero"],
        "marcia": ["marcia", "alla marcia", "marziale"],
        "capriccio": ["capriccio", "capriccioso", "a capriccio"],
        "malinconico": ["malinconico", "malincolico", "melancolico"],
        "moto": ["con moto", "moto"],
        "a tempo": ["a tempo", "tempo primo", "tempo i"],
        "ritardando": ["ritardando", "ritard", "rit"],
        "rallentando": ["rallentando", "rall"],
        "ritenuto": ["ritenuto", "riten"],
        "accelerando": ["accelerando", "accel"],
        "meno mosso": ["meno mosso"], "piu mosso": ["piu mosso"],
        "massig": ["massig", "maessig", "maßig"], "modere": ["modere"], "cedez": ["cedez"],
        "moderate": ["moderate(?:ly)?"], "staccato": ["staccato"], "marcato": ["marcato"],
        "sans rigueur": ["sans rigueur"], "gehender": ["in gehender bewegung", "gehender"],
    }, filler="tempo di del della con e ed ma the is marking indication term initial expression", modifiers={
        "poco": ["un poco", "poco"], "molto": ["molto", "assai", "sehr", "tres"], "non troppo": ["ma non troppo",
                                                                                                  "non troppo"],
        "piu": ["piu"], "meno": ["meno"], "sempre": ["sempre"], "poco a poco": ["poco a poco"], "etwas": ["etwas"],
    }),
    near=[("lento", "lent", "langsam"), ("moderato", "massig", "modere", "gehender", "moderate"),
          ("vivace", "vivo", "lebhaft", "vif", "animato"), ("leidenschaftlich", "appassionato", "agitato"),
          ("ritardando", "rallentando", "ritenuto", "cedez", "allargando", "calando", "morendo", "smorzando"),
          ("accelerando", "stringendo", "piu mosso"), ("a tempo", "giusto")],
    decisive=_CORE_TEMPI,
    missing_is_wrong=False,       # 'Vivace' for 'Allegro vivace': partial credit is the grader's call
)

DYNAMICS = VocabRule(
    "dynamics",
    r"dynamic|marking|expression",
    Vocabulary({
        "ppp": ["ppp", "pianississimo"], "pp": ["pp", "pianissimo", "very soft(?:ly)?", "very quiet(?:ly)?"],
        "p": ["p", "piano", "soft(?:ly)?", "quiet(?:ly)?"], "mp": ["mp", "mezzo[- ]?piano", "moderately soft"],
        "mf": ["mf", "mezzo[- ]?forte", "moderately loud"], "f": ["f", "forte", "loud(?:ly)?"],
        "ff": ["ff", "fortissimo", "very loud(?:ly)?"], "fff": ["fff", "fortississimo"],
        "sf": ["sfz?", "sffz", "sforzando", "sforzato", "fz"], "rfz": ["rfz?", "rinforzando"],
        "fp": ["fp", "forte[- ]?piano"],
        "cresc": ["cresc(?:endo)?", "crescendo hairpin", "getting louder", "gradually louder", "growing louder"],
        "dim": ["dim(?:inuendo)?", "decresc(?:endo)?", "diminuendo hairpin", "getting softer", "gradually softer"],
    }, filler="dynamic dynamics marking markings level with then followed by hairpin sign change to", modifiers={
        "poco": ["poco", "un poco"], "piu": ["piu"], "molto": ["molto"], "subito": ["subito", "sub"],
        "sempre": ["sempre"], "poco a poco": ["poco a poco"]}),
    near=[("sf", "rfz", "fp")],
)
