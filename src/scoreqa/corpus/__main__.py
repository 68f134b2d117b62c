"""``python -m scoreqa.corpus --out DIR [--limit N] [--seed S] [--max-abc-chars C]``: build the public-domain corpus."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from scoreqa.corpus import DEFAULT_LIMIT, DEFAULT_MAX_ABC_CHARS
from scoreqa.corpus.build import build_corpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoreqa.corpus", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="corpus directory (created; reused if present)")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT,
                        help=f"number of scores (default {DEFAULT_LIMIT}); 0 = every usable piece")
    parser.add_argument("--seed", type=int, default=0, help="seed of the question choice")
    parser.add_argument("--max-abc-chars", type=int, default=DEFAULT_MAX_ABC_CHARS,
                        help=f"leave out pieces whose ABC is longer (default {DEFAULT_MAX_ABC_CHARS}, as data=corpus: "
                             "fits SmolLM2's window); 0 = any length")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    manifest = build_corpus(args.out, limit=args.limit or None, seed=args.seed, max_abc_chars=args.max_abc_chars or None)
    print(json.dumps({k: v for k, v in manifest.items() if k not in ("score_ids", "too_long")}, indent=2,
                     ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
