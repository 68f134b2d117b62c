"""Sweep: convert every MusicXML/MXL piece of music21's corpus to ABC and validate it through abc2xml.

    python benchmarks/abc_roundtrip.py [--out FILE.jsonl] [--limit N] [--every K] [--timeout S]

One JSON line per piece (resumable: pieces already in FILE are skipped), then a summary: how many
convert, how many keep per-voice bar counts, how many also match pitch sets bar by bar, and the
failures grouped by reason. Too slow for the unit tests (minutes on a shared CPU); the tests cover
a few pieces. ``--every K`` measures a deterministic subset (every K-th file in sorted order).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import signal
import sys
import time
from pathlib import Path

from tqdm import tqdm

from scoreqa.corpus.catalog import corpus_root, musicxml_files
from scoreqa.scores.mxl import normalise, parse
from scoreqa.scores.to_abc import convert_tree
from scoreqa.scores.validate import validate


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def measure(path: Path, timeout: int) -> dict:
    """Convert + validate one file; never raises."""
    started = time.perf_counter()
    row: dict = {"file": str(path.relative_to(corpus_root()))}
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        root = normalise(parse(path))
        abc = convert_tree(root, source=str(path))
        row["voices"] = len(abc.bars)
        row["measures"] = len(root.find("part").findall("measure"))
        result = validate(abc, root)
        counts_ok = all(a == b for a, b in result.bar_counts.values()) and bool(result.bar_counts)
        row.update(converted=True, bar_counts_equal=counts_ok, pitches_equal=result.ok, reason=result.reason)
    except _Timeout:
        row.update(converted=False, bar_counts_equal=False, pitches_equal=False, reason=f"timeout after {timeout}s")
    except Exception as err:  # a sweep reports every failure instead of stopping
        row.update(converted=False, bar_counts_equal=False, pitches_equal=False,
                   reason=f"{type(err).__name__}: {str(err).splitlines()[0][:300]}")
    finally:
        signal.alarm(0)
    row["seconds"] = round(time.perf_counter() - started, 2)
    return row


def _reason_kind(reason: str) -> str:
    """Group reasons: drop numbers and paths so similar failures count together."""
    kind = re.sub(r"/\S+", "<file>", reason.split(", first:")[0])
    return re.sub(r"\d+", "N", kind)[:120]


def summarise(rows: list[dict]) -> dict:
    failures = [r for r in rows if not r["pitches_equal"]]
    return {
        "files": len(rows),
        "converted": sum(r["converted"] for r in rows),
        "bar_counts_equal": sum(r["bar_counts_equal"] for r in rows),
        "round_trip_equal": sum(r["pitches_equal"] for r in rows),
        "seconds_total": round(sum(r["seconds"] for r in rows), 1),
        "failure_kinds": collections.Counter(_reason_kind(r["reason"]) for r in failures).most_common(),
        "failures": [{"file": r["file"], "reason": r["reason"]} for r in failures],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path(".cache/benchmarks/abc_roundtrip.jsonl"))
    parser.add_argument("--limit", type=int, default=None, help="measure the first N files only")
    parser.add_argument("--every", type=int, default=1, help="measure every K-th file (deterministic subset)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per file before it counts as failed")
    args = parser.parse_args(argv)

    files = musicxml_files()[:: args.every][: args.limit]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = {}
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["file"]] = row
    with args.out.open("a") as sink:
        for path in tqdm(files, desc="abc round trip", unit="score"):
            key = str(path.relative_to(corpus_root()))
            if key in done:
                continue
            done[key] = measure(path, args.timeout)
            sink.write(json.dumps(done[key]) + "\n")
            sink.flush()
    wanted = {str(p.relative_to(corpus_root())) for p in files}
    summary = summarise([row for key, row in done.items() if key in wanted])
    summary_path = args.out.with_suffix(".summary.json")
    summary_path.write_text(json.dumps(summary, indent=2, ensure_ascii=False))
    print(json.dumps({k: v for k, v in summary.items() if k != "failures"}, indent=2, ensure_ascii=False))
    print(f"failures listed in {summary_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
