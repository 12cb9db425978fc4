"""``evaladdon summarize PATH...``: each run's score with the right error bar."""

from __future__ import annotations

import argparse
import sys
from typing import Any


from evaladdon.cli.options import add_inputs, add_output, load_runs, show_progress
from evaladdon.report.text import console, fmt, markdown_table, table, write_json
from evaladdon.stats import MEAN_METHODS
from evaladdon.summary import GroupSummary, summarize_table


def add_parser(sub: Any) -> None:
    p = sub.add_parser("summarize", help="score, SE and interval per run, task and metric")
    p.add_argument("paths", nargs="+", metavar="PATH", help="log or table files, or directories of them")
    add_inputs(p)
    p.add_argument("--method", choices=MEAN_METHODS, default="auto", help="interval method (default: auto)")
    p.add_argument("--cluster-method", choices=("cr1", "cr2"), default="cr2",
                   help="clustered SE: cr2 (default; Bell-McCaffrey with Satterthwaite df) or cr1 (t on C-1 df)")
    add_output(p)
    p.set_defaults(run=run)


COLUMNS = ["run", "task/metric", "mean", "se", "CI", "naive se", "deff", "n", "method"]


def rows_of(summaries: list[GroupSummary]) -> list[list[Any]]:
    rows = []
    for s in summaries:
        e = s.estimate
        n = f"{e.n_items}" + (f"/{e.n_clusters}c" if e.n_clusters is not None else "") + (
            f"x{e.n_epochs_max}" if e.n_epochs_max > 1 else ""
        )
        ci = f"{fmt(e.ci_low, 3)}-{fmt(e.ci_high, 3)}"
        rows.append([s.label or s.run, f"{s.task}/{s.metric}", fmt(e.mean, 3), fmt(e.se, 4), ci, fmt(e.se_naive, 4),
                     fmt(e.deff, 2), n, e.method.replace("t-cluster-", "t ")])
    return rows


def render(
    summaries: list[GroupSummary],
    stream: Any = None,
    quiet: bool = False,
    markdown: bool = False,
    notes: list[str] | None = None,
) -> None:
    con = console(stream)
    level = summaries[0].estimate.level
    columns = [c if c != "CI" else f"{level:.0%} CI" for c in COLUMNS]
    if markdown:
        con.file.write(markdown_table(columns, rows_of(summaries)))
    else:
        con.print(table(None, columns, rows_of(summaries), n_left=2))
    if quiet:
        return
    for note in notes or []:
        con.print(f"warning: {note}")
    for s in summaries:
        label = f"{s.label or s.run} / {s.task} / {s.metric}"
        if s.n_dropped:
            reasons = ", ".join(f"{v} {k}" for k, v in s.dropped.items())
            con.print(f"warning: {label}: {s.n_dropped} row(s) left out ({reasons})")
        for note in s.estimate.notes:
            con.print(f"note: {label}: {note}")


def run(args: argparse.Namespace) -> int:
    loaded = load_runs(args)
    notes = list(loaded.notes)
    summaries = summarize_table(loaded.table, metric=args.metric, level=args.level, method=args.method,
                                cluster_method=args.cluster_method, notes=notes)
    if args.json:
        write_json([s.flat() for s in summaries])
    else:
        render(summaries, sys.stdout, quiet=args.quiet, markdown=args.markdown, notes=notes)
    return 0
