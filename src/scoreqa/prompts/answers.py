"""Turning raw model output into answers: drop reasoning blocks, split numbered batched answers."""

from __future__ import annotations

import re

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
_NUMBERED = re.compile(r"^\s*(?:\*\*)?(?:Q(?:uestion)?\s*)?(\d{1,2})\s*(?:\*\*)?\s*[.):：、-]\s*(?:\*\*)?\s*(.*)$",
                       re.IGNORECASE)


def strip_thinking(text: str) -> str:
    """Remove ``<think>…</think>`` (or an unterminated ``<think>…``) and surrounding blank space."""
    return _THINK.sub("", text).strip()


def parse_numbered_answers(text: str, n_questions: int) -> list[str | None]:
    """Answers 1..n from lines like ``3. G minor``; ``None`` where a number is missing or its answer empty.

    Lines without a number continue the previous answer. A number seen twice keeps its first
    answer; numbers outside 1..n are ignored. Nothing is guessed from position.
    """
    answers: dict[int, list[str]] = {}
    current: int | None = None
    for line in strip_thinking(text).splitlines():
        match = _NUMBERED.match(line)
        if match and 1 <= int(match.group(1)) <= n_questions:
            number = int(match.group(1))
            if number in answers:
                current = None
                continue
            answers[number] = [match.group(2).strip()]
            current = number
        elif current is not None and line.strip():
            answers[current].append(line.strip())
    parsed = []
    for number in range(1, n_questions + 1):
        joined = " ".join(answers.get(number, [])).strip().strip("*").strip()
        parsed.append(joined or None)
    return parsed
