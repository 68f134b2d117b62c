"""The public-domain MSU-style corpus built from music21's bundled scores (``python -m scoreqa.corpus``)."""

# Bump when the files or questions a build writes change, so old caches are rebuilt, not reused.
BUILD_VERSION = 2
# Scores built by default: about a minute on one CPU core, a test split of 4 scores.
DEFAULT_LIMIT = 20
# ABC characters at most in data=corpus's build, so the single-question ABC prompt plus 512 new tokens fits
# SmolLM2's 8,192-token window (calibrated by benchmarks/corpus_prompt_fit.py; see conf/data/corpus.yaml).
DEFAULT_MAX_ABC_CHARS = 8000
