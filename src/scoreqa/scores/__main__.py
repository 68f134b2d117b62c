"""Command line for any user's MusicXML/MXL scores.

    python -m scoreqa.scores to-abc IN -o OUT.abc [--interleaved] [--no-validate]
    python -m scoreqa.scores render IN -o OUTDIR [--dpi 150] [--engraver verovio|musescore]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scoreqa.data.pages import RASTER_DPI


def _to_abc(args: argparse.Namespace) -> int:
    from scoreqa.scores.mxl import normalise, parse
    from scoreqa.scores.to_abc import convert_tree
    from scoreqa.scores.validate import validate

    root = normalise(parse(args.input))
    abc = convert_tree(root, source=str(args.input), interleaved=args.interleaved)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(abc.text, encoding="utf-8")
    counts = ", ".join(f"V:{v} {len(b)}" for v, b in abc.bars.items())
    print(f"wrote {args.output} ({counts} bars)")
    if args.validate:
        check = validate(abc, root)
        if not check.ok:
            print(f"VALIDATION FAILED for {args.input}: {check.reason}", file=sys.stderr)
            for bad in check.bad_bars:
                print(f"  {bad}", file=sys.stderr)
            return 2
        print("validated: abc2xml round trip has the source's bar counts and pitches in every bar")
    return 0


def _render(args: argparse.Namespace) -> int:
    if args.engraver == "musescore":
        from scoreqa.scores.musescore import render_musescore as render
    else:
        from scoreqa.scores.render import render
    result = render(args.input, args.output, dpi=args.dpi)
    print(f"wrote {result.pdf} and {len(result.pages)} page PNG(s) in {args.output}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoreqa.scores", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    to_abc = commands.add_parser("to-abc", help="MusicXML/MXL -> bar-numbered ABC (validated through abc2xml)")
    to_abc.add_argument("input", type=Path)
    to_abc.add_argument("-o", "--output", type=Path, required=True)
    to_abc.add_argument("--interleaved", action="store_true", help="bar by bar with [V:n] instead of V: blocks")
    to_abc.add_argument("--no-validate", dest="validate", action="store_false",
                        help="skip the abc2xml round-trip check (exit code 2 when it fails)")
    to_abc.set_defaults(run=_to_abc)
    render = commands.add_parser("render", help="MusicXML/MXL -> OUTDIR/score.pdf + OUTDIR/page-<n>.png")
    render.add_argument("input", type=Path)
    render.add_argument("-o", "--output", type=Path, required=True)
    render.add_argument("--dpi", type=int, default=RASTER_DPI)
    render.add_argument("--engraver", choices=("verovio", "musescore"), default="verovio",
                        help="musescore needs MuseScore 3 (Debian package musescore3) on PATH")
    render.set_defaults(run=_render)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (FileNotFoundError, ValueError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
