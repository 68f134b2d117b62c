"""Experiment loggers: Weights & Biases (offline by default) or none."""
