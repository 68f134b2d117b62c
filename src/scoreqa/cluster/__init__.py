"""Cluster helpers: merging the caches of sharded array-job evaluations."""
