"""Answers made of known terms ('With Staccato; Accent', 'Close position', 'Upper–middle register').

A :class:`Vocabulary` maps surface forms (synonyms, US/UK names, abbreviations) to concepts. A text is
*understood* only when every word in it is a known term, a modifier or filler; a prediction with any
unknown word is left undecided, so a synonym the table lacks can never be judged wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Collection, Mapping, Sequence

from scoreqa.judge.rules.base import Rule, compare_sets, near_by_groups
from scoreqa.judge.rules.text import (answer_core, drop_parentheses, fold, hedged, negated, split_first_clause,
                                     strip_accents)

COMMON_FILLER = ("a an the and with of in on at is are it its it's this that there to for both also each every "
                 "used uses using use mainly mostly primarily predominantly main chiefly which has have as only "
                 "marking markings mark marks sign signs symbol symbols indication indicated by piece music "
                 "measure measures bar bars part section note notes over above below played written shown "
                 "found present appear appears")


@dataclass(frozen=True)
class Parsed:
    concepts: frozenset[str]
    modifiers: frozenset[str]
    unknown: tuple[str, ...]
    decorated: bool = False   # the reference had descriptive words a paraphrase may drop


@dataclass
class Vocabulary:
    terms: Mapping[str, Sequence[str]]               # concept ('a+b' for two) -> surface forms (lowercase regex)
    filler: str = ""                                  # words that carry no answer here
    modifiers: Mapping[str, Sequence[str]] = field(default_factory=dict)
    decorative: str = ""                              # reference words a correct paraphrase may leave out

    def __post_init__(self) -> None:
        forms = [(form, concept, False) for concept, fs in self.terms.items() for form in fs]
        forms += [(form, modifier, True) for modifier, fs in self.modifiers.items() for form in fs]
        forms.sort(key=lambda f: -len(f[0]))            # longest first: 'double appoggiatura' before 'appoggiatura'
        # whole tokens: 'soprano' is not read inside 'mezzo-soprano', nor 'legato' inside 'non-legato'
        self._forms = [(re.compile(rf"(?<![\w])(?<!\w-){form}(?![\w])(?!-\w)"), concept, is_mod)
                       for form, concept, is_mod in forms]
        self._filler = set((COMMON_FILLER + " " + self.filler).split())
        self._decorative = set(self.decorative.split())

    def parse(self, text: str) -> Parsed:
        text = strip_accents(fold(drop_parentheses(text))).lower()
        concepts, modifiers = set(), set()
        for pattern, concept, is_modifier in self._forms:
            if pattern.search(text):
                (modifiers if is_modifier else concepts).update(concept.split("+"))   # 'treble+bass' = two
                text = pattern.sub(" ", text)
        words = [w for w in re.split(r"[\s;,.:/&+()\-<>!'\"]+", text) if w]
        unknown = [w for w in words if w not in self._filler and not w.isdigit()]
        decorated = bool(unknown) and all(w in self._decorative for w in unknown)
        return Parsed(frozenset(concepts), frozenset(modifiers), tuple(unknown), decorated)


class VocabRule(Rule):
    """One answer type decided by a vocabulary.

    ``missing_is_wrong``: a reference item absent from the prediction makes it incorrect (closed lists);
    otherwise only disjoint answers are (open-ended ones). ``decisive``: when given, 'incorrect' needs
    every concept on both sides in this set (terms whose confusion is unambiguous).
    """

    def __init__(self, name: str, question_cue: str, vocabulary: Vocabulary, *,
                 near: Collection[Collection[str]] = (), missing_is_wrong: bool = True,
                 decisive: Collection[str] | None = None, negation_ok: bool = False,
                 exclude_question: str | None = None) -> None:
        self.name = name
        self.cue = re.compile(question_cue, re.IGNORECASE)
        self.exclude = re.compile(exclude_question, re.IGNORECASE) if exclude_question else None
        self.vocabulary = vocabulary
        self.near = near_by_groups(near)
        self.missing_is_wrong = missing_is_wrong
        self.decisive = set(decisive) if decisive is not None else None
        self.negation_ok = negation_ok

    def claim(self, question: str, reference: str) -> Parsed | None:
        if not self.cue.search(question) or (self.exclude and self.exclude.search(question)):
            return None
        parsed = self.vocabulary.parse(reference)
        if not parsed.concepts or (parsed.unknown and not parsed.decorated):
            return None
        return parsed

    def decide(self, parsed: Parsed, prediction: str, question: str) -> bool | None:
        if hedged(prediction) or (negated(prediction) and not self.negation_ok):
            return None
        pred = self.understood(prediction)
        if pred is None:
            return None
        outcome = compare_sets(parsed.concepts, pred.concepts, near=self.near,
                               missing_is_wrong=self.missing_is_wrong)
        if outcome is True and (pred.modifiers != parsed.modifiers or parsed.decorated):
            return None       # 'poco cresc.' vs 'crescendo', 'Gentle arpeggio texture' vs 'arpeggios'
        if outcome is False and self.decisive is not None and not (parsed.concepts | pred.concepts) <= self.decisive:
            return None
        return outcome

    def understood(self, prediction: str) -> Parsed | None:
        """The prediction fully read: as is, after its lead-in ('The texture is …'), or its first clause when
        the rest names none of this vocabulary's terms ('homophonic, with a singing melody')."""
        core = answer_core(prediction)
        for text in (prediction, core):
            parsed = self.vocabulary.parse(text)
            if parsed.concepts and not parsed.unknown:
                return parsed
        head, rest = split_first_clause(core)
        parsed = self.vocabulary.parse(head)
        if rest and parsed.concepts and not parsed.unknown and not self.vocabulary.parse(rest).concepts:
            return parsed
        return None
