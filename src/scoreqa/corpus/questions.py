"""Up to 12 MSU-style questions per score: 3 per level where the answer can be computed reliably.

Which candidates are asked is a seeded choice per score (``random.Random(f"{seed}:{score_id}")``),
so a rebuild asks the same questions; within a level no kind is asked twice.
"""

from __future__ import annotations

import random

from scoreqa.corpus.analysis import Chord, home_key
from scoreqa.corpus.candidates import Candidate
from scoreqa.corpus.facts import ScoreFacts
from scoreqa.corpus.level12 import level1, level2
from scoreqa.corpus.level34 import level3, level4
from scoreqa.corpus.metadata import PieceMetadata
from scoreqa.data.msu import question_id
from scoreqa.data.records import Question

PER_LEVEL = 3


def candidates(facts: ScoreFacts, meta: PieceMetadata, *, pickup: bool, chords: list[Chord] | None,
               rng: random.Random) -> list[Candidate]:
    """Every question this score supports (one per kind), levels 1-4."""
    out = level1(facts, meta, pickup, home_key(chords) if chords else None)
    out += level2(facts, rng)
    if chords:
        out += level3(chords, facts, rng)
    out += level4(facts, rng)
    return out


def choose(pool: list[Candidate], rng: random.Random, per_level: int = PER_LEVEL) -> list[Candidate]:
    """``per_level`` candidates of distinct kinds per level, in level order."""
    chosen: list[Candidate] = []
    for level in (1, 2, 3, 4):
        options = [c for c in pool if c.level == level]
        rng.shuffle(options)
        kinds: set[str] = set()
        picked = []
        for option in options:
            if option.kind not in kinds and len(picked) < per_level:
                kinds.add(option.kind)
                picked.append(option)
        chosen += sorted(picked, key=lambda c: [o.kind for o in pool].index(c.kind))
    return chosen


def generate(score_id: str, facts: ScoreFacts, meta: PieceMetadata, *, pickup: bool, chords: list[Chord] | None,
             seed: int = 0, per_level: int = PER_LEVEL) -> list[Question]:
    rng = random.Random(f"{seed}:{score_id}")
    chosen = choose(candidates(facts, meta, pickup=pickup, chords=chords, rng=rng), rng, per_level)
    counters: dict[int, int] = {}
    questions = []
    for candidate in chosen:
        counters[candidate.level] = counters.get(candidate.level, 0) + 1
        questions.append(Question(id=question_id(score_id, candidate.level, counters[candidate.level]),
                                  score_id=score_id, level=candidate.level, text=candidate.text,
                                  reference=candidate.answer, meta=candidate.meta()))
    return questions
