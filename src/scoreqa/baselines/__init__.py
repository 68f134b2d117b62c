"""Baselines that answer without a model: a pipeline check (oracle), a chance floor (random) and a
symbolic floor computed from the score itself. They run as a backend (``model=oracle|random|symbolic``
selects ``backend=baseline``), so their runs go through the same prompts, cache and metrics as a model's.
"""
