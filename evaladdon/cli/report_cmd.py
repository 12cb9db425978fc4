"""``evaladdon report RUN... -o report.html``: one self-contained HTML file."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any


from evaladdon.cli.compare_cmd import minimum_detectable
from evaladdon.cli.options import add_inputs, load_runs, show_progress
from evaladdon.comparison import choose_pairs, compare_table
from evaladdon.errors import EvalAddonError
from evaladdon.report.html import render_report
from evaladdon.summary import summarize_table


def add_parser(sub: Any) -> None:
    p = sub.add_parser("report", help="self-contained HTML report: tables, forest plot, power curve, epochs")
    p.add_argument("paths", nargs="+", metavar="RUN")
    p.add_argument("-o", "--output", required=True, help="the .html file to write")
    p.add_argument("--baseline", metavar="RUN", help="compare every run against this one")
    p.add_argument("--all-pairs", action="store_true")
    add_inputs(p)
    p.add_argument("--title", default="evaladdon report")
    p.add_argument("--power", type=float, default=0.8)
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    loaded = load_runs(args)
    notes = list(loaded.notes)
    summaries = summarize_table(loaded.table, metric=args.metric, level=args.level, notes=notes)
    comparisons = []
    n_runs = loaded.table["run"].nunique()
    if n_runs >= 2:
        try:
            pairs = choose_pairs(loaded.table, baseline=args.baseline, all_pairs=args.all_pairs or n_runs > 2
                                 and args.baseline is None)
            comparisons = compare_table(loaded.table, pairs, args.metric, level=args.level)
        except EvalAddonError as exc:
            notes.append(f"no comparison: {exc}")
        comparisons = [dataclasses.replace(r, mde=minimum_detectable(r, args.power, 1 - args.level))
                       for r in comparisons]
    from evaladdon.metrics import compute_metrics, has_metric_inputs
    from evaladdon.report.html import metrics_section

    sections = [metrics_section(compute_metrics(loaded.table, level=args.level, n_boot=1000, notes=notes))] \
        if has_metric_inputs(loaded.table) else []
    page = render_report(summaries, comparisons, notes, args.title, args.power, sections=sections)
    out = Path(args.output)
    out.write_text(page, encoding="utf-8")
    if not args.quiet:
        sys.stderr.write(f"wrote {out} ({len(summaries)} summaries, {len(comparisons)} comparisons)\n")
    return 0
