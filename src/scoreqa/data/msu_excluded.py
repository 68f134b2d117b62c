"""Named lists of MSU-Bench scores left out of training, for ``data.exclude_scores``.

``appendix_i``: the 8 training scores MSU-Bench's Appendix I excludes in the Qwen2.5-VL PDF + ABC fine-tuning
setting ("Computational constraints regarding token limits necessitated the exclusion of certain longer scores",
Limitations). Keyed by MuseScore score id (the release's ``<id>``); each title is the paper's, and every one
matches exactly one release title once case, spaces and punctuation are ignored (tests/test_msu_excluded.py);
:func:`resolve` fails on an id the release does not have.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

APPENDIX_I: Mapping[str, str] = {
    "3079026": "Piano Sonata No. 5 in C Minor, Op. 10 No. 1",
    "5466506": "Sonate pour Violoncelle et Piano",
    "10513306": "Piano Concerto in A Minor, Op. 16",
    "3467186": "Hungarian Rhapsody No. 2",
    "2182146": "Ballade No. 1 in G Minor, Op. 23",
    "6541491": "Ballade No. 4 in F Minor, Op. 52",
    "8072319": "Sonata, Op. 42",
    "1086131": "Concerto No. 1 in A Minor",
}
NAMED_LISTS: Mapping[str, Mapping[str, str]] = {"appendix_i": APPENDIX_I}


def resolve(spec: str | Sequence[str] | None, known_ids: Iterable[str]) -> list[str]:
    """Score ids of ``data.exclude_scores``: a named list (``appendix_i``) or explicit ids; unknown ids fail."""
    if spec is None:
        return []
    if isinstance(spec, str):
        if spec not in NAMED_LISTS:
            raise KeyError(f"data.exclude_scores={spec!r}: not a named list ({sorted(NAMED_LISTS)}); "
                           "give a list of score ids instead")
        ids = list(NAMED_LISTS[spec])
    else:
        ids = [str(i) for i in spec]
    unknown = sorted(set(ids) - set(known_ids))
    if unknown:
        raise KeyError(f"data.exclude_scores names score id(s) {unknown} that the release does not have")
    return ids
