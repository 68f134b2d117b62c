"""Build the chat requests of a run: one per question (``single``) or one per score (``batched``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from scoreqa.backends.base import ChatRequest, Message
from scoreqa.data.records import BenchmarkSplit, Question, Score
from scoreqa.prompts.templates import Template, load_template

MODES = ("single", "batched", "analysis")  # analysis: single + a bar-by-bar fact sheet of the score


@dataclass(frozen=True)
class ModalitySpec:
    """How a score is shown: ``inputs`` in order (``abc``, ``pages``, ``title``) and the ``{score_modality}`` label."""

    name: str
    label: str
    inputs: tuple[str, ...]
    template_suffix: str = ""

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "ModalitySpec":
        return cls(name=config["name"], label=config["label"], inputs=tuple(config["inputs"]),
                   template_suffix=config.get("template_suffix", "") or "")


def format_options(question: Question, bullet: str = "") -> str:
    """``{options}``: one ``<label>. <choice>`` line per choice; labels from ``meta['option_labels']`` (default A, B, ...).
    ``{option_list}`` is the same with ``bullet="- "`` (WildScore's Appendix A prints its options as a list)."""
    labels = question.meta.get("option_labels") or "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return "\n".join(f"{bullet}{label}. {choice}" for label, choice in zip(labels, question.choices))


def _fill(text: str, values: Mapping[str, str]) -> str:
    """Replace ``{name}`` slots literally (scores and questions may contain braces)."""
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


def _fact_sheet(score: Score) -> str:
    """``{facts}`` of the ``analysis`` mode, computed by music21 from the score's MusicXML."""
    if score.musicxml_path is None:
        raise ValueError(f"prompt.mode=analysis needs the MusicXML of score {score.id!r} ({score.title!r}), and this "
                         "benchmark gives none: use data=corpus, or a benchmark whose scores set musicxml_path")
    from scoreqa.corpus.factsheet import fact_sheet  # music21 parsing: only this mode pays for it

    return fact_sheet(score.musicxml_path)


class PromptBuilder:
    """Turns a benchmark split into chat requests with the benchmark's versioned templates."""

    def __init__(self, templates: Mapping[str, str], modality: ModalitySpec, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"prompt.mode must be one of {MODES}; got {mode!r}")
        self.modality, self.mode = modality, mode
        key = mode + modality.template_suffix
        if key not in templates and mode not in templates:
            raise KeyError(f"the benchmark defines no {mode!r} template (data.templates has {sorted(templates)})")
        self.system: Template | None = load_template(templates["system"]) if templates.get("system") else None
        # a variant's own system prompt: "system.<variant>" (WildScore's Prompts 1 and 2 differ in both messages)
        self.system_variants = {name.split(".", 1)[1]: load_template(template_id) for name, template_id
                                in templates.items() if name.startswith("system.") and template_id}
        self.user: Template = load_template(templates.get(key) or templates[mode])
        # per-question variants: "<mode>.<variant>" keys, chosen by a question's meta["template"]
        self.variants = {name.split(".", 1)[1]: load_template(template_id) for name, template_id in templates.items()
                         if name.startswith(mode + ".") and template_id}

    def identity(self) -> dict[str, Any]:
        return {"mode": self.mode, "modality": self.modality.name,
                "templates": {t.id: t.sha for t in (self.system, *self.system_variants.values(), self.user,
                                                     *self.variants.values()) if t is not None}}

    def requests(self, split: BenchmarkSplit) -> list[ChatRequest]:
        if self.mode in ("single", "analysis"):
            return [self.request_for(split.scores[q.score_id], [q]) for q in split.questions]
        return [self.request_for(split.scores[score_id], questions)
                for score_id, questions in split.questions_by_score().items()]

    def request_for(self, score: Score, questions: Sequence[Question]) -> ChatRequest:
        if self.mode in ("single", "analysis"):
            question = questions[0]
            values = {"score_modality": self.modality.label, "question": question.text,
                      "options": format_options(question), "option_list": format_options(question, "- "),
                      **question.meta.get("slots", {})}
            key = question.id
            variant = question.meta.get("template")
            if variant and variant not in self.variants:
                raise KeyError(f"question {key} asks for template variant {variant!r}; data.templates defines "
                               f"{sorted(self.variants)} as '{self.mode}.<variant>' keys")
            user = self.variants[variant] if variant else self.user
            system = self.system_variants.get(variant, self.system) if variant else self.system
            if self.mode == "analysis":
                values["facts"] = _fact_sheet(score)
        else:
            numbered = "\n".join(f"{i}. {q.text}" for i, q in enumerate(questions, start=1))
            values = {"score_modality": self.modality.label, "questions": numbered}
            key = f"{score.id}:batched"
            user, system = self.user, self.system
        messages: list[Message] = []
        if system is not None:
            messages.append({"role": "system", "content": system.text})
        messages.append({"role": "user", "content": self.user_content(score, values, user)})
        return ChatRequest(key=key, messages=tuple(messages), question_ids=tuple(q.id for q in questions))

    def user_content(self, score: Score, values: Mapping[str, str], template: Template | None = None
                     ) -> str | list[dict[str, Any]]:
        before, after = (_fill(part, values) for part in (template or self.user).split_at("score"))
        texts = {"abc": score.abc or "", "title": score.title}
        if "pages" not in self.modality.inputs:
            return before + "\n".join(texts[i] for i in self.modality.inputs) + after
        parts: list[dict[str, Any]] = [{"type": "text", "text": before}]
        for source in self.modality.inputs:
            if source == "pages":
                parts.extend({"type": "image", "image": str(page)} for page in score.page_images)
            else:
                parts.append({"type": "text", "text": "\n" + texts[source]})
        parts.append({"type": "text", "text": after})
        return [part for part in parts if part["type"] != "text" or part["text"]]  # a template may open with {score}
