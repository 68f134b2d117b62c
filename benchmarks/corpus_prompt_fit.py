"""Which corpus pieces fit SmolLM2's 8,192-token window as an ABC prompt, and the character bound that says so.

For every piece of the catalog (music21's corpus), the ABC the build writes is converted (no
validation or rendering: length only), put into the ``data=corpus`` single-question ABC prompt with
the longest question the generator asks, rendered with the model's chat template and counted with
its tokenizer. The report gives, per piece, ABC characters and prompt tokens, and the largest ABC
length ``L`` such that every piece of at most ``L`` characters fits ``window - max_new_tokens``.
``conf/data/corpus.yaml``'s ``max_abc_chars`` is set at or below that ``L`` (see its comment).

    python benchmarks/corpus_prompt_fit.py --out .cache/corpus_prompt_fit.json
    python benchmarks/corpus_prompt_fit.py --built .cache/corpus   # every prompt of a built corpus instead
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# the longest question text the generator writes (level 3 progression, four-digit bars): the worst case
LONGEST_QUESTION = ("In measures 1000–1001, what is the chord progression? (Use I, II, III, IV, V, VI, VII)")


def survey(model_dir: Path, window: int, max_new_tokens: int) -> dict:
    from omegaconf import OmegaConf
    from transformers import AutoTokenizer

    from scoreqa.corpus.catalog import pieces
    from scoreqa.corpus.metadata import piece_metadata
    from scoreqa.data.records import Question, Score
    from scoreqa.prompts.builder import ModalitySpec, PromptBuilder
    from scoreqa.scores.mxl import normalise, parse
    from scoreqa.scores.to_abc import convert_tree

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    templates = dict(OmegaConf.load(REPO / "conf" / "data" / "corpus.yaml").templates)
    builder = PromptBuilder(templates, ModalitySpec("abc", "ABC notation", ("abc",)), "single")
    rows = []
    for piece in pieces():
        started = time.perf_counter()
        try:
            root = normalise(parse(piece.path))
            meta = piece_metadata(piece, root)
            abc = convert_tree(root, source=str(piece.path), title=meta.title, composer=meta.composer or "").text
        except Exception as err:  # listed, not fatal: the build skips such pieces too
            rows.append({"id": piece.id, "error": f"{type(err).__name__}: {err}"[:200]})
            continue
        score = Score(id=piece.id, title=meta.title, composer=meta.composer, abc=abc)
        question = Question(id=f"{piece.id}:L3.1", score_id=piece.id, level=3, text=LONGEST_QUESTION, reference="")
        messages = builder.request_for(score, [question]).messages
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        tokens = len(tokenizer(text, add_special_tokens=False)["input_ids"])
        rows.append({"id": piece.id, "collection": piece.collection, "abc_chars": len(abc), "prompt_tokens": tokens,
                     "seconds": round(time.perf_counter() - started, 2)})
    budget = window - max_new_tokens
    measured = sorted((r for r in rows if "abc_chars" in r), key=lambda r: r["abc_chars"])
    first_over = next((r for r in measured if r["prompt_tokens"] > budget), None)
    bound = max((r["abc_chars"] for r in measured if first_over is None or r["abc_chars"] < first_over["abc_chars"]),
                default=0)
    ratios = [r["abc_chars"] / r["prompt_tokens"] for r in measured]
    return {"tokenizer": str(model_dir), "window": window, "max_new_tokens": max_new_tokens, "budget": budget,
            "pieces": len(rows), "fitting": sum(r["prompt_tokens"] <= budget for r in measured),
            "largest_safe_abc_chars": bound, "first_over": first_over,
            "min_chars_per_token": round(min(ratios), 3), "max_chars_per_token": round(max(ratios), 3),
            "rows": rows}


def built(corpus: Path, model_dir: Path, window: int, max_new_tokens: int) -> dict:
    """Every single-question ABC prompt of a built corpus (all splits), counted as above."""
    from omegaconf import OmegaConf
    from transformers import AutoTokenizer

    from scoreqa.corpus.bench import CorpusBench
    from scoreqa.prompts.builder import ModalitySpec, PromptBuilder

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    templates = dict(OmegaConf.load(REPO / "conf" / "data" / "corpus.yaml").templates)
    builder = PromptBuilder(templates, ModalitySpec("abc", "ABC notation", ("abc",)), "single")
    bench = CorpusBench(root=str(corpus), build_limit=None, max_abc_chars=manifest["max_abc_chars"],
                        auto_build=False, split="all")
    split = bench.load(needs=["abc"])
    counts = {}
    for question in split.questions:
        messages = builder.request_for(split.scores[question.score_id], [question]).messages
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        counts[question.id] = len(tokenizer(text, add_special_tokens=False)["input_ids"])
    budget = window - max_new_tokens
    return {"corpus": str(corpus), "limit": manifest["limit"], "max_abc_chars": manifest["max_abc_chars"],
            "scores": len(split.scores), "prompts": len(counts), "max_prompt_tokens": max(counts.values()),
            "budget": budget, "over_budget": sorted(q for q, n in counts.items() if n > budget)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-dir", type=Path, default=REPO / ".cache" / "models" / "smollm2-135m-instruct")
    parser.add_argument("--window", type=int, default=8192)
    parser.add_argument("--max-new-tokens", type=int, default=512)
    parser.add_argument("--out", type=Path, default=None, help="write every piece's numbers here (JSON)")
    parser.add_argument("--built", type=Path, default=None, help="count the prompts of this built corpus instead")
    args = parser.parse_args(argv)
    if args.built:
        print(json.dumps(built(args.built, args.model_dir, args.window, args.max_new_tokens), indent=1))
        return 0
    report = survey(args.model_dir, args.window, args.max_new_tokens)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
