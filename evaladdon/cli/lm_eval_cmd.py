"""``evaladdon lm-eval-stderr RESULTS...``: corrected SEs written next to lm-eval results files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evaladdon.errors import InputError
from evaladdon.lm_eval_posthoc import write_posthoc


def add_parser(sub: Any) -> None:
    p = sub.add_parser("lm-eval-stderr",
                       help="write clustered / group-level SEs next to lm-eval results files (originals untouched)")
    p.add_argument("paths", nargs="+", metavar="RESULTS", help="results_<timestamp>.json files or directories")
    p.add_argument("--cluster", metavar="FIELD", help="doc field to cluster on (dotted paths allowed)")
    p.add_argument("--level", type=float, default=0.95)
    p.add_argument("-o", "--output", help="output file (only with a single results file)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    files: list[Path] = []
    for raw in args.paths:
        p = Path(raw)
        if not p.exists():
            raise InputError("no such file or directory", str(p))
        files.extend(sorted(p.rglob("results_*.json")) if p.is_dir() else [p])
    files = [f for f in files if not f.name.endswith(".evaladdon.json")]
    if not files:
        raise InputError("no results_*.json files found", " ".join(args.paths))
    if args.output and len(files) > 1:
        raise InputError("-o/--output needs exactly one results file")
    for f in files:
        out = write_posthoc(f, args.cluster, args.level, args.output)
        if not args.quiet:
            sys.stderr.write(f"wrote {out}\n")
    return 0
