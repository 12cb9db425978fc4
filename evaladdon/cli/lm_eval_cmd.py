"""``evaladdon lm-eval-stderr RESULTS...``: corrected SEs written next to lm-eval results files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evaladdon.cli.options import level_type
from evaladdon.errors import InputError


def add_parser(sub: Any) -> None:
    p = sub.add_parser("lm-eval-stderr",
                       help="write clustered / group-level SEs next to lm-eval results files (originals untouched)")
    p.add_argument("paths", nargs="+", metavar="RESULTS", help="results_<timestamp>.json files or directories")
    p.add_argument("--cluster", metavar="FIELD", help="doc field to cluster on (dotted paths allowed)")
    p.add_argument("--level", type=level_type, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("-o", "--output",
                   help="output file (only with a single results file; default <results>.evaladdon.json)")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json

    from evaladdon._util.safe_write import atomic_write_text, check_destination
    from evaladdon.adapters.common.guard import check_regular
    from evaladdon.integrations.lm_eval_posthoc import posthoc, samples_for
    from evaladdon.report.escape import clean
    from evaladdon.stats._base.result import json_safe

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
        for given in (f, *samples_for(f)):
            check_regular(given)  # a FIFO or a device would be read forever: refused before it is opened
        out = Path(args.output) if args.output else f.with_name(f.stem + ".evaladdon.json")
        # the results file, every samples file beside it and every input: never overwritten
        inputs = [f, *f.parent.glob("samples_*"), *args.paths]
        check_destination(out, inputs)
        report = posthoc(f, args.cluster, args.level)
        atomic_write_text(out, json.dumps(json_safe(report), indent=2, allow_nan=False) + "\n", inputs)
        if not args.quiet:
            sys.stderr.write(clean(f"wrote {out}") + "\n")
    return 0
