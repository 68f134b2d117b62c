"""Peak memory and seconds per optimizer step of LoRA training on SmolLM2-135M, today's path against the lean one.

    python benchmarks/train_memory.py [--tokens 1024 2048 4096 8192] [--limit-gb 9] [--steps 2]

``full``: the loss from the model's own ``labels`` (logits for every position, float32), no gradient
checkpointing (the behaviour before the lean path). ``lean``: ``scoreqa.training.loss.answer_loss`` (LM head on
the answer positions only) with gradient checkpointing and glibc's mmap threshold pinned
(``scoreqa.training.host_memory``: freed activations leave resident memory), as ``train.py`` runs long inputs.
Each measurement runs in its own process, so peaks never
mix; a process above ``--limit-gb`` resident memory is killed and reported as "OOM > X GB" instead of taking
the shared machine down. Peak = the process's max RSS on a CPU,
``torch.cuda.max_memory_allocated`` on a GPU. The example is random token ids with a 16-token answer at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ANSWER_TOKENS = 16


def worker(path: str, tokens: int, steps: int, model_dir: str) -> dict:
    """One measurement: build LoRA on the model, train ``steps`` optimizer steps on one ``tokens``-long example."""
    import resource

    import torch
    from peft import get_peft_model
    from transformers import AutoModelForCausalLM

    from scoreqa.training.encoding import IGNORE_INDEX
    from scoreqa.training.host_memory import pin_mmap_threshold
    from scoreqa.training.lora import lora_config
    from scoreqa.training.loss import answer_loss

    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    base = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).to(device)
    if path == "lean":
        pin_mmap_threshold()
        base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        base.enable_input_require_grads()
    lora = {"r": 8, "alpha": 16, "dropout": 0.05,
            "language_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]}
    model = get_peft_model(base, lora_config(lora, adapt_vision=False)).train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-5)
    ids = torch.randint(10, model.config.vocab_size, (1, tokens), device=device)
    labels = torch.full_like(ids, IGNORE_INDEX)
    labels[:, -ANSWER_TOKENS:] = ids[:, -ANSWER_TOKENS:]
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels}
    seconds = []
    for _ in range(steps):
        start = time.perf_counter()
        loss = answer_loss(model, batch) if path == "lean" else model(**batch, use_cache=False).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        seconds.append(time.perf_counter() - start)
    if device.type == "cuda":
        peak_gb = torch.cuda.max_memory_allocated() / 2**30
    else:
        peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB on Linux
    timed = seconds[1:] or seconds  # the first step pays one-off allocations
    return {"path": path, "tokens": tokens, "peak_gb": peak_gb, "s_per_step": sum(timed) / len(timed),
            "loss": float(loss)}


def measure(path: str, tokens: int, steps: int, model_dir: str, limit_gb: float) -> dict:
    """Run ``worker`` in a child process, killed when its resident memory passes ``limit_gb``."""
    import psutil

    command = [sys.executable, __file__, "--worker", path, "--tokens", str(tokens), "--steps", str(steps),
               "--model-dir", model_dir]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    process = psutil.Process(child.pid)
    while child.poll() is None:
        try:
            if process.memory_info().rss > limit_gb * 2**30:
                child.kill()
                child.wait()
                return {"path": path, "tokens": tokens, "oom": f"OOM > {limit_gb:g} GB"}
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    output = child.stdout.read()
    if child.returncode != 0:
        return {"path": path, "tokens": tokens, "oom": f"failed (exit {child.returncode})"}
    return json.loads(output.strip().splitlines()[-1])


def cell(result: dict) -> str:
    return result["oom"] if "oom" in result else f"{result['peak_gb']:.2f} GB, {result['s_per_step']:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, nargs="+", default=[1024, 2048, 4096, 8192])
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--limit-gb", type=float, default=9.0)
    parser.add_argument("--model-dir", default=str(Path(os.environ.get("SCOREQA_CACHE_DIR", ".cache"))
                                                   / "models" / "smollm2-135m-instruct"))
    parser.add_argument("--paths", nargs="+", default=["full", "lean"])
    parser.add_argument("--out", type=Path, default=None, help="also write the results as JSON here")
    parser.add_argument("--worker", choices=["full", "lean"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.tokens[0], args.steps, args.model_dir)))
        return
    results = []
    print(f"| tokens | {' | '.join(args.paths)} | peak ratio full/lean |\n|---|{'---|' * len(args.paths)}---|", flush=True)
    for tokens in args.tokens:
        row = {p: measure(p, tokens, args.steps, args.model_dir, args.limit_gb) for p in args.paths}
        results.extend(row.values())
        full, lean = row.get("full", {}), row.get("lean", {})
        if "peak_gb" in full and "peak_gb" in lean:
            ratio = f"{full['peak_gb'] / lean['peak_gb']:.2f}x"
        elif "peak_gb" in lean:
            ratio = f"> {args.limit_gb / lean['peak_gb']:.2f}x"
        else:
            ratio = "n/a"
        print(f"| {tokens} | {' | '.join(cell(row[p]) for p in args.paths)} | {ratio} |", flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
