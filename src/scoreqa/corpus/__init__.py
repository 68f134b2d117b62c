"""The public-domain MSU-style corpus built from music21's bundled scores (``python -m scoreqa.corpus``)."""

# Bump when the files or questions a build writes change, so old caches are rebuilt, not reused.
BUILD_VERSION = 1
# Scores built by default: about a minute on one CPU core, a test split of 4 scores.
DEFAULT_LIMIT = 20
