"""Benchmarks as typed records: scores, questions, splits and their loaders."""

from scoreqa.data.records import BenchmarkSplit, Question, Score

__all__ = ["BenchmarkSplit", "Question", "Score"]
