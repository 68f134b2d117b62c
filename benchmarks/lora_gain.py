"""Does LoRA make SmolLM2-135M better on scores it never saw? Base vs adapter on the corpus test split.

    python benchmarks/lora_gain.py --out logs/lora_gain [--modalities abc title] [--max-new-tokens 64]

For each modality (``abc``: the score as ABC; ``title``: the title only, the paper's Table 4 logic), trains
``experiment=smollm2_lora_corpus[_title]`` on the train split of its corpus (100 short public-domain pieces,
built on first use), then evaluates the base model and the adapter on the test split with the same prompts,
greedy decoding (``--max-new-tokens`` for both: the references are a few words, and the base model otherwise
rambles to 512 tokens) and the rule judge. The report (``scoreqa.report``) has
per-level accuracy with bootstrap CIs, LSR with Wilson CIs, and each base/adapter pair's paired bootstrap CI of
the difference with McNemar's p. Forgetting: the general-knowledge probe (``scoreqa.data.general_knowledge``,
a proxy for the paper's Table 6 MMLU check, not MMLU) for the base model and each adapter.
Every step is a run folder under ``--out``; re-running resumes (training from its last checkpoint, evaluation
from its cached answers).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from omegaconf import OmegaConf

REPO = Path(__file__).resolve().parents[1]
EXPERIMENTS = {"abc": "smollm2_lora_corpus", "title": "smollm2_lora_corpus_title"}


def run(script: str, overrides: list[str]) -> None:
    command = [sys.executable, str(REPO / script), *overrides]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, cwd=REPO)


def general_knowledge(model_dir: str, adapter: Path | None, max_new_tokens: int = 16) -> dict[str, bool]:
    """Greedy answers of the model (with ``adapter``) to the probe, judged exactly: correctness by question id."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from scoreqa.data.general_knowledge import load_probe, messages, probe_accuracy

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    if adapter is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, str(adapter))
    model.eval()
    questions = load_probe()
    predictions = []
    with torch.no_grad():
        for question in questions:
            ids = tokenizer.apply_chat_template(messages(question), add_generation_prompt=True, return_tensors="pt",
                                                return_dict=True)
            output = model.generate(**ids, max_new_tokens=max_new_tokens, do_sample=False)
            predictions.append(tokenizer.decode(output[0, ids["input_ids"].shape[1]:], skip_special_tokens=True))
    return dict(zip([q.id for q in questions], probe_accuracy(predictions, questions)))


def probe_section(results: dict[str, dict[str, bool]]) -> str:
    """Markdown: probe accuracy per model and each adapter against the base (paired bootstrap + McNemar)."""
    from scoreqa.report.paired import paired_comparison
    from scoreqa.report.render import table

    base = results["base"]
    rows = []
    for name, correct in results.items():
        accuracy = 100 * sum(correct.values()) / len(correct)
        if name == "base":
            rows.append([name, len(correct), f"{accuracy:.1f}", "–", "–"])
            continue
        c = paired_comparison(base, correct)
        rows.append([name, c.n, f"{accuracy:.1f}", f"{100 * c.difference:+.1f} [{100 * c.difference_ci[0]:+.1f}, "
                     f"{100 * c.difference_ci[1]:+.1f}]", f"{c.mcnemar_p:.4f}"])
    return ("## Forgetting: general-knowledge probe (a proxy for MMLU, not MMLU)\n\n"
            f"{len(base)} short questions with unambiguous public answers, judged by a deterministic rule: the "
            "answer as a whole word of the first line, a number as its last number "
            "(`scoreqa.data.general_knowledge`).\n\n"
            + table(["model", "questions", "accuracy %", "adapter − base (pp) [95% CI]", "McNemar p"], rows) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "logs" / "lora_gain")
    parser.add_argument("--max-new-tokens", type=int, default=64, help="answer budget of every evaluation")
    parser.add_argument("--modalities", nargs="+", choices=sorted(EXPERIMENTS), default=["abc", "title"])
    parser.add_argument("--train-override", action="append", default=[], help="extra train.py override")
    parser.add_argument("--no-probe", action="store_true", help="skip the general-knowledge probe")
    args = parser.parse_args()
    began = time.perf_counter()
    out = args.out.resolve()
    os.environ.setdefault("WANDB_MODE", "disabled")
    run_dirs, adapters = [], {}
    for modality in args.modalities:
        train_dir = out / f"train-{modality}"
        run("train.py", [f"experiment={EXPERIMENTS[modality]}", "logger=none", *args.train_override,
                         f"hydra.run.dir={train_dir}"])
        # the data config the adapter was trained on (corpus root, build limit, score length), test split
        data = OmegaConf.load(train_dir / "config.yaml").data
        evaluation = ["model=smollm2-135m", "data=corpus", "data.split=test", "prompt=single", "sampling=greedy",
                      f"sampling.max_new_tokens={args.max_new_tokens}", "judge=rules", "logger=none",
                      f"data.root={data.root}", f"data.build_limit={data.build_limit}",
                      f"data.max_abc_chars={data.max_abc_chars}"]
        adapters[modality] = train_dir / "adapter"
        for name, extra in (("base", []), ("lora", [f"model.adapter={adapters[modality]}"])):
            run_dir = out / f"eval-{modality}-{name}"
            run("evaluate.py", [*evaluation, f"modality={modality}", *extra, f"hydra.run.dir={run_dir}"])
            run_dirs.append(run_dir)

    from scoreqa.report.render import build_report
    from scoreqa.report.runs import load_run, unique_labels

    runs = [load_run(d) for d in run_dirs]
    unique_labels(runs)
    report = build_report(runs, out / "report")
    if not args.no_probe:
        model_dir = OmegaConf.load(run_dirs[0] / "config.yaml").model.name_or_path
        probe = {"base": general_knowledge(model_dir, None)}
        probe.update({f"LoRA ({m})": general_knowledge(model_dir, a) for m, a in adapters.items()})
        with report.open("a", encoding="utf-8") as handle:
            handle.write("\n" + probe_section(probe))
    minutes = (time.perf_counter() - began) / 60
    with report.open("a", encoding="utf-8") as handle:
        handle.write(f"\nWall time of this invocation: {minutes:.1f} min (steps found done in --out are resumed, "
                     "not repeated).\n")
    print(f"report: {report}\nwall time: {minutes:.1f} min")


if __name__ == "__main__":
    main()
