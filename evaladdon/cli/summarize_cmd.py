"""``evaladdon summarize PATH...``: each run's score with the right error bar."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.adapters import load
from evaladdon.report.text import console, fmt, table, write_json
from evaladdon.stats import MEAN_METHODS
from evaladdon.summary import GroupSummary, summarize_table


def add_parser(sub: Any) -> None:
    p = sub.add_parser("summarize", help="score, SE and interval per run, task and metric")
    p.add_argument("paths", nargs="+", metavar="PATH", help="log or table files, or directories of them")
    p.add_argument("--metric", help="only this metric")
    p.add_argument("--cluster", metavar="FIELD", help="column (tables) or metadata field (logs) to cluster on")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--method", choices=MEAN_METHODS, default="auto", help="interval method (default: auto)")
    p.add_argument("--cluster-method", choices=("cr1", "cr2"), default="cr1", help="clustered SE (default cr1)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def render(summaries: list[GroupSummary], stream: Any = None) -> None:
    con = console(stream)
    rows = []
    for s in summaries:
        e = s.estimate
        n = f"{e.n_items}" + (f"/{e.n_clusters}c" if e.n_clusters is not None else "") + (
            f"x{e.n_epochs_max}" if e.n_epochs_max > 1 else ""
        )
        ci = f"{fmt(e.ci_low, 3)}-{fmt(e.ci_high, 3)}"
        rows.append([s.run, f"{s.task}/{s.metric}", fmt(e.mean, 3), fmt(e.se, 4), ci, fmt(e.se_naive, 4),
                     fmt(e.deff, 2), n, e.method.replace("t-cluster-", "t ")])
    level = summaries[0].estimate.level
    con.print(table(None, ["run", "task/metric", "mean", "se", f"{level:.0%} CI", "naive se", "deff",
                           "n", "method"], rows, n_left=2))
    for s in summaries:
        label = f"{s.run} / {s.task} / {s.metric}"
        if s.n_dropped:
            reasons = ", ".join(f"{v} {k}" for k, v in s.dropped.items())
            con.print(f"warning: {label}: {s.n_dropped} row(s) left out ({reasons})")
        for note in s.estimate.notes:
            con.print(f"note: {label}: {note}")


def run(args: argparse.Namespace) -> int:
    df = load(args.paths, cluster=args.cluster)
    summaries = summarize_table(df, metric=args.metric, level=args.level, method=args.method,
                                cluster_method=args.cluster_method)
    if args.json:
        write_json([s.flat() for s in summaries])
    else:
        render(summaries, sys.stdout)
    return 0
