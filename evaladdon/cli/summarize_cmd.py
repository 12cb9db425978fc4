"""``evaladdon summarize PATH...``: each run's score with the right error bar."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.cli.common import add_reporting, emit
from evaladdon.cli.options import add_inputs, add_output
from evaladdon.analysis.summarize import MISSING_FROM_LOG, incomplete_marks, marks_from  # noqa: F401 - old place
from evaladdon.report.text import console, fmt, markdown_table, table

from evaladdon.stats import MEAN_METHODS


def add_parser(sub: Any) -> None:
    p = sub.add_parser("summarize", help="score, SE and interval per run, task and metric")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="log or table files, or directories of them; NAME=PATH names a run")
    add_inputs(p)
    p.add_argument("--method", choices=MEAN_METHODS, default="auto", help="interval method (default: auto)")
    p.add_argument("--cluster-method", choices=("cr1", "cr2"), default="cr2",
                   help="clustered SE: cr2 (default; Bell-McCaffrey with Satterthwaite df) or cr1 (t on C-1 df)")
    add_output(p)
    add_reporting(p)
    p.set_defaults(run=run)


COLUMNS = ["run", "task/metric", "mean", "se", "CI", "naive se", "deff", "n", "method"]
DROP_ORDER = ("naive se", "deff", "method", "n")
"""Columns left out, in this order, when the table does not fit the terminal (``--wide`` keeps all)."""


def rows_of(summaries: list[Any], incomplete: dict[tuple[str, str, str], Any] | None = None) -> list[list[Any]]:
    """Table rows; a run whose log is incomplete is labelled ``[incomplete] RUN``."""
    rows = []
    for s in summaries:
        mark = "[incomplete] " if incomplete and (s.run, s.task, s.metric) in incomplete else ""
        e = s.estimate
        n = f"{e.n_items}" + (f"/{e.n_clusters}c" if e.n_clusters is not None else "") + (
            f"x{e.n_epochs_max}" if e.n_epochs_max > 1 else ""
        )
        ci = f"{fmt(e.ci_low, 3)}-{fmt(e.ci_high, 3)}"
        rows.append([mark + (s.label or s.run), f"{s.task}/{s.metric}", fmt(e.mean, 3), fmt(e.se, 4), ci, fmt(e.se_naive, 4),
                     fmt(e.deff, 2), n, e.method.replace("t-cluster-", "t ")])
    return rows


def warnings_of(summaries: list[Any]) -> list[str]:
    """Rows left out (by reason) and statistical notes, one line per run, task and metric."""
    out = []
    for s in summaries:
        label = f"{s.label or s.run} / {s.task} / {s.metric}"
        if s.n_dropped:
            reasons = ", ".join(f"{v} {k}" for k, v in s.dropped.items())
            out.append(f"warning: {label}: {s.n_dropped} row(s) left out ({reasons})")
        for note in s.estimate.notes:
            out.append(f"note: {label}: {note}")
    return out


def render(
    summaries: list[Any],
    stream: Any = None,
    quiet: bool = False,
    markdown: bool = False,
    notes: list[str] | None = None,
    wide: bool = False,
    warn_stream: Any = None,
    reported: list[Any] | None = None,
    incomplete: dict[tuple[str, str, str], dict[str, Any]] | None = None,
) -> None:
    """The table on ``stream``; with ``notes`` given, the warnings too (on ``warn_stream``,
    default stderr, or as a list after a markdown table)."""
    from evaladdon.report.text import markdown_list, warn

    con = console(stream)
    reported = list(reported or [])
    level = summaries[0].estimate.level if summaries else reported[0].level
    columns = [c if c != "CI" else f"{level:.0%} CI" for c in COLUMNS]
    rows = rows_of(summaries, incomplete or {}) + reported_rows(reported)
    if markdown:
        con.file.write(markdown_table(columns, rows))
    else:
        con.print(table(None, columns, rows, n_left=2, drop=DROP_ORDER, wide=wide))
    if notes is None:
        return
    lines = list(notes) + warnings_of(summaries)
    if markdown:
        con.file.write(markdown_list(lines))
    elif not quiet:
        warn(lines, warn_stream)


def run(args: argparse.Namespace) -> int:
    from evaladdon.cli.options import summarize_options
    from evaladdon.routes.plan import plan_summarize, run as run_routes

    opts = summarize_options(args)
    got = run_routes(plan_summarize(opts), opts.inputs.routes).value
    summaries, loaded, notes, marks, reported = got.summaries, got.loaded, got.notes, got.marks, got.reported
    if args.json:
        records = [dict(s.flat(), incomplete=marks.get((s.run, s.task, s.metric))) for s in summaries]
        emit(args, records + [r.flat() for r in reported], loaded, notes)
    else:
        render(summaries, sys.stdout, quiet=args.quiet, markdown=args.markdown, wide=args.wide, reported=reported,
               incomplete=marks)
        emit(args, [], loaded, notes + warnings_of(summaries) + reported_notes(reported))
    return 0


def reported_rows(reported: list[Any]) -> list[list[Any]]:
    """Table rows of harness-reported values (results-only inputs): no naive SE or deff to show."""
    return [[f"[reported] {r.run}", f"{r.task}/{r.metric}", fmt(r.value, 3), fmt(r.stderr, 4),
             f"{fmt(r.ci_low, 3)}-{fmt(r.ci_high, 3)}" if r.ci_low is not None else "-", "-", "-",
             "-" if r.n is None else str(r.n), "reported"] for r in reported]


def reported_notes(reported: list[Any]) -> list[str]:
    out = []
    if reported:
        out.append(f"note: {len(reported)} row(s) marked 'reported' are the harness's own values and stderr from "
                   "results files without samples: not clustered, not paired, not recomputed")
    by_text: dict[str, list[str]] = {}  # the same note on many rows is said once, with a count
    for r in reported:
        for n in r.notes:
            by_text.setdefault(n, []).append(f"{r.run} / {r.task} / {r.metric}")
    for text, where in by_text.items():
        out.append(f"note: {where[0]}: {text}" if len(where) == 1 else f"note: {len(where)} reported rows: {text}")
    return out
