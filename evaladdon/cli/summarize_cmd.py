"""``evaladdon summarize PATH...``: each run's score with the right error bar."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.cli.common import add_reporting, emit
from evaladdon.cli.options import add_by, add_errors, add_inputs, add_output
from evaladdon.analysis.summarize import MISSING_FROM_LOG, incomplete_marks, marks_from  # noqa: F401 - old place
from evaladdon.report.summarize import (COLUMNS, DROP_ORDER, render, reported_notes,  # noqa: F401 - old place
                                        reported_rows, rows_of, warnings_of)

from evaladdon.stats import MEAN_METHODS


def add_parser(sub: Any) -> None:
    p = sub.add_parser("summarize", help="score, SE and interval per run, task and metric")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="log or table files, or directories of them; NAME=PATH names a run")
    add_inputs(p)
    p.add_argument("--method", choices=MEAN_METHODS, default="auto", help="interval method (default: auto)")
    p.add_argument("--cluster-method", choices=("cr1", "cr2"), default="cr2",
                   help="clustered SE: cr2 (default; Bell-McCaffrey with Satterthwaite df) or cr1 (t on C-1 df)")
    add_by(p)
    add_errors(p)
    p.add_argument("--flaky", nargs="?", type=int, const=10, default=None, metavar="N",
                   help="runs with repeats (epochs): each item's pass rate over its repeats (Wilson interval), "
                        "flip rates, pass@k beside pass^k, and the N most unstable items (default 10; "
                        "--json lists all)")
    add_output(p)
    add_reporting(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from evaladdon.cli.options import summarize_options
    from evaladdon.routes.plan import plan_summarize, run as run_routes

    if args.flaky is not None and args.flaky < 0:
        from evaladdon.errors import EvalAddonError

        raise EvalAddonError(f"--flaky {args.flaky}: give how many unstable items to list per run (0: none)")
    opts = summarize_options(args)
    got = run_routes(plan_summarize(opts), opts.inputs.routes).value
    summaries, loaded, notes, marks, reported = got.summaries, got.loaded, got.notes, got.marks, got.reported
    flaky: dict[tuple[str, str, str], Any] = {}
    if args.flaky is not None:  # the table route answered (plan_summarize offers no other)
        from evaladdon.analysis.flaky import flaky_table
        from evaladdon.report.flaky import flaky_lines

        groups = flaky_table(loaded.table, opts.inputs.metric, opts.level, notes)
        flaky = {(g.run, g.task, g.metric): g for g in groups}
        notes = notes + flaky_lines(groups, args.flaky)
    if args.json:
        records = [dict(s.flat(), incomplete=marks.get((s.run, s.task, s.metric))) for s in summaries]
        if args.flaky is not None:
            records = [dict(r, flaky=flaky[key].flat() if (key := (r["run"], r["task"], r["metric"])) in flaky else None)
                       for r in records]
        if got.subgroups is not None:
            from evaladdon.report.subgroups import records as subgroup_records

            records += subgroup_records(got.subgroups)
        emit(args, records + [r.flat() for r in reported], loaded, notes)
    else:
        render(summaries, sys.stdout, quiet=args.quiet, markdown=args.markdown, wide=args.wide, reported=reported,
               incomplete=marks)
        if got.subgroups is not None:
            from evaladdon.report.subgroups import render_subgroups

            render_subgroups(summaries, got.subgroups, opts.min_size, sys.stdout, args.markdown, args.wide)
        emit(args, [], loaded, notes + warnings_of(summaries) + reported_notes(reported))
    return 0
