"""Judges decide whether a free-text prediction answers a question like its reference does."""

from scoreqa.judge.base import Judge, JudgeItem, Verdict

__all__ = ["Judge", "JudgeItem", "Verdict"]
