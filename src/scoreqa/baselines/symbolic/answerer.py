"""The symbolic baseline: answers what the score text determines, abstains on the rest.

ABC-Eval: Bar Count Estimation, Metadata QA (key, meter, unit length) and Error Detection (:mod:`.abc_rules`).
MSU-Bench style questions (Level 1-2, asked about a score with ABC): see :mod:`.msu_rules`.
An abstention is an empty answer, which every benchmark scores as wrong.
"""

from __future__ import annotations

from scoreqa.baselines.backend import Answerer
from scoreqa.baselines.symbolic.abc_rules import count_bars, detect_errors, metadata_option
from scoreqa.baselines.symbolic.msu_rules import answer_msu
from scoreqa.data.records import Question, Score


class SymbolicAnswerer(Answerer):
    name = "symbolic"
    modules = ("scoreqa.baselines.symbolic.abc_text", "scoreqa.baselines.symbolic.abc_rules",
               "scoreqa.baselines.symbolic.msu_rules")

    def answer(self, question: Question, score: Score) -> str:
        if not score.abc:
            return ""
        subtask = question.meta.get("subtask")
        if subtask == "Bar_Count_Estimation":
            return count_bars(score.abc)
        if subtask == "Metadata_QA":
            index = metadata_option(score.abc, question.text, list(question.choices))
            return "" if index is None else question.meta["option_labels"][index]
        if subtask == "Error_Detection":
            return detect_errors(score.abc)
        if subtask is None and question.level in (1, 2):
            return answer_msu(question.text, score.abc) or ""
        return ""
