"""Exact prompt text, chat rendering and answer parsing."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoreqa.data.records import BenchmarkSplit, Question, Score
from scoreqa.prompts.answers import parse_numbered_answers, strip_thinking
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder
from scoreqa.prompts.chat import render_chat
from scoreqa.prompts.templates import load_template

MSU_TEMPLATES = {"system": "msu/system.v1", "single": "msu/user.v1", "single_title": "msu/user_title.v1",
                 "batched": "msu/batched.v1", "batched_title": "msu/batched_title.v1"}
ABC = ModalitySpec("abc", "ABC notation", ("abc",))
TITLE = ModalitySpec("title", "title", ("title",), "_title")
PDF_ABC = ModalitySpec("pdf_abc", "PDF and ABC notation", ("pages", "abc"))


@pytest.fixture
def split() -> BenchmarkSplit:
    score = Score("42", "Fossils {Carnival}", "Saint-Saëns", abc="X:1\nK:Gm\n{g}AB|", page_images=(Path("/p/page-1.png"),
                                                                                                   Path("/p/page-2.png")))
    questions = [Question("42:L1.1", "42", 1, "What is the initial key?", "G minor"),
                 Question("42:L2.1", "42", 2, "In bar 3, which {accidentals} appear?", None)]
    return BenchmarkSplit("msu", "test", {"42": score}, questions)


def test_single_abc_prompt_is_the_papers_user_prompt(split):
    request = PromptBuilder(MSU_TEMPLATES, ABC, "single").requests(split)[0]
    system, user = request.messages
    assert system == {"role": "system", "content": load_template("msu/system.v1").text}
    assert user["content"] == ("Here is a piece of music in ABC notation:\nX:1\nK:Gm\n{g}AB|\n"
                               "Question:\nWhat is the initial key?")
    assert request.key == "42:L1.1" and request.question_ids == ("42:L1.1",)


def test_title_only_prompt_shows_the_title_not_the_score(split):
    request = PromptBuilder(MSU_TEMPLATES, TITLE, "single").requests(split)[1]
    assert request.messages[1]["content"] == ("Here is the title of a piece of music:\nFossils {Carnival}\n"
                                              "Question:\nIn bar 3, which {accidentals} appear?")


def test_batched_prompt_numbers_every_question_of_the_score(split):
    requests = PromptBuilder(MSU_TEMPLATES, ABC, "batched").requests(split)
    assert len(requests) == 1 and requests[0].question_ids == ("42:L1.1", "42:L2.1")
    assert requests[0].messages[1]["content"] == (
        "Here is a piece of music in ABC notation:\nX:1\nK:Gm\n{g}AB|\nQuestions:\n1. What is the initial key?\n"
        "2. In bar 3, which {accidentals} appear?\nAnswer every question. Write one line per question, starting "
        'with its number, in the form "1. <answer>".')


def test_visual_modalities_carry_page_images_in_order(split):
    request = PromptBuilder(MSU_TEMPLATES, PDF_ABC, "single").requests(split)[0]
    parts = request.messages[1]["content"]
    assert [p["type"] for p in parts] == ["text", "image", "image", "text", "text"]
    assert parts[0]["text"] == "Here is a piece of music in PDF and ABC notation:\n"
    assert parts[3]["text"] == "\nX:1\nK:Gm\n{g}AB|"
    assert parts[4]["text"] == "\nQuestion:\nWhat is the initial key?"
    assert request.images == [Path("/p/page-1.png"), Path("/p/page-2.png")]


def test_chat_template_renders_qwen3_format_with_thinking_off(split, tiny_qwen3):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_qwen3)
    messages = PromptBuilder(MSU_TEMPLATES, ABC, "single").requests(split)[0].messages
    text = render_chat(tokenizer, messages, {"enable_thinking": False})
    system = load_template("msu/system.v1").text
    assert text == (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{messages[1]['content']}<|im_end|>\n"
                    "<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert render_chat(tokenizer, messages, {"enable_thinking": True}).endswith("<|im_start|>assistant\n")


def test_unknown_mode_and_missing_template_fail_clearly():
    with pytest.raises(ValueError, match="prompt.mode"):
        PromptBuilder(MSU_TEMPLATES, ABC, "chain")
    with pytest.raises(FileNotFoundError, match="msu/nope.v1"):
        load_template("msu/nope.v1")


@pytest.mark.parametrize("text,expected", [
    ("1. G minor\n2. Yes, F♯4", ["G minor", "Yes, F♯4"]),
    ("<think>1. wrong\n2. wrong</think>\n1) Eb minor\n2: No", ["Eb minor", "No"]),
    ("**1.** Piano\nQuestion 2 - Allegro\nmoderato", ["Piano", "Allegro moderato"]),
    ("1. A\n1. B\n3. C", ["A", None]),
    ("G minor\nPiano", [None, None]),
    ("2. only the second", [None, "only the second"]),
])
def test_numbered_answers_parse_without_guessing(text, expected):
    assert parse_numbered_answers(text, 2) == expected


def test_strip_thinking_handles_unterminated_blocks():
    assert strip_thinking("<think>still thinking") == ""
    assert strip_thinking("<think>x</think>\n\nG minor ") == "G minor"
