"""``evaladdon watch RUN [--baseline RUN] --margin M``: follow a log that is still being written.

Each poll re-reads RUN (and the baseline) through :func:`evaladdon.routes.plan.load_table` -- an
Inspect ``.eval`` log is readable while Inspect writes it (its samples and ``_journal/start.json``),
an lm-eval samples file as it grows -- and prints the anytime-valid interval and the gate's
decision so far (:mod:`evaladdon.analysis.sequential`).  Because the interval is a confidence
sequence, reading it after every poll keeps its level.  ``--once`` reads once (tests, cron);
otherwise it polls every ``--interval`` seconds until every comparison is decided, or a log that
declares no missing samples gave no new item between two reads, or ``--max-polls``, or Ctrl-C.  Exit codes are the gate's: 0 no regression shown or undecided, 1 a regression
decided, 2 bad input.  Also serves ``compare --sequential`` (:func:`run_sequential`).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

from evaladdon.cli.common import add_reporting
from evaladdon.cli.options import add_better, add_output, level_type
from evaladdon.cli.units import parse_effect

EXIT_REGRESSION = 1


def add_parser(sub: Any) -> None:
    from evaladdon.stats import SEQUENCE_METHODS

    p = sub.add_parser("watch", help="anytime-valid interval and decision of a run still being written")
    p.add_argument("paths", nargs=1, metavar="RUN", help="the log being written (Inspect .eval/.json, lm-eval samples)")
    p.add_argument("--baseline", metavar="RUN", help="a finished log of the baseline run, paired on items")
    p.add_argument("--margin", type=parse_effect, metavar="M",
                   help="largest drop that does not count as a regression: 2pt or 0.02 (default 0)")
    p.add_argument("--metric", help="only this metric")
    add_better(p)
    p.add_argument("--level", type=level_type, default=0.95, help="confidence level of the sequence (default 0.95)")
    p.add_argument("--sequence", choices=SEQUENCE_METHODS, default="betting",
                   help="the confidence sequence for scores in [0, 1] (default betting)")
    p.add_argument("--once", action="store_true", help="read once, print, and exit")
    p.add_argument("--interval", type=float, default=10.0, metavar="SECONDS", help="seconds between reads (default 10)")
    p.add_argument("--max-polls", type=int, default=None, metavar="N", help="stop after N reads")
    add_output(p)
    add_reporting(p)
    p.set_defaults(run=run, cluster=None)


def _read(args: argparse.Namespace, live: bool) -> tuple[list[Any], Any, list[str]]:
    from evaladdon.analysis.sequential import sequential_results
    from evaladdon.cli.options import sequential_options
    from evaladdon.routes.plan import load_table

    opts = sequential_options(args, live)
    loaded = load_table(opts.inputs, check_names=False)
    results, notes = sequential_results(loaded.table, opts)
    return results, loaded, notes


def _show(args: argparse.Namespace, results: list[Any], loaded: Any, notes: list[str]) -> None:
    from evaladdon.cli.common import emit
    from evaladdon.report.sequential import left_out_lines, records, write_sequential

    if args.json:
        emit(args, records(results), loaded, list(loaded.notes) + notes)
        return
    write_sequential(results, sys.stdout, markdown=args.markdown, wide=args.wide)
    said = [] if args.markdown else left_out_lines(results)  # markdown keeps every column
    emit(args, [], loaded, list(loaded.notes) + notes + said)


def run_sequential(args: argparse.Namespace, live: bool) -> int:
    """One read and print: ``compare --sequential`` (``live`` False) or one poll of ``watch``."""
    from evaladdon.cli.common import gate_refuses_skips

    results, loaded, notes = _read(args, live)
    _show(args, results, loaded, notes)
    refused = gate_refuses_skips(args, loaded)
    if refused:
        return refused
    regression = any(r.is_regression for r in results)
    if regression and not args.json:
        sys.stderr.write("evaladdon: regression decided\n")
    gate = getattr(args, "fail_on_regression", True)  # watch always gates; compare with --fail-on-regression
    return EXIT_REGRESSION if regression and gate else 0


def run(args: argparse.Namespace) -> int:
    if not 0 < args.interval < math.inf:  # NaN and inf too (time.sleep's own error named the log)
        raise ValueError(f"--interval must be > 0 seconds, got {args.interval}")
    if args.max_polls is not None and args.max_polls < 1:
        raise ValueError(f"--max-polls must be at least 1, got {args.max_polls}")
    if args.margin is not None and args.baseline is None:  # a single run has no drop to allow
        raise ValueError("--margin needs --baseline RUN (the margin is the drop allowed against it)")
    if args.baseline is not None:
        args.paths = [*args.paths, args.baseline]
    polls, seen = 0, None
    while True:
        results, loaded, notes = _read(args, live=True)
        polls += 1
        sizes = [r.n for r in results]
        done = (args.once or (args.max_polls is not None and polls >= args.max_polls)
                or _finished(results, loaded, sizes == seen))
        seen = sizes
        if done:
            _show(args, results, loaded, notes)
            regression = any(r.is_regression for r in results)
            if regression and not args.json:
                sys.stderr.write("evaladdon: regression decided\n")
            return EXIT_REGRESSION if regression else 0
        if not args.json and not args.quiet:
            _show(args, results, loaded, notes)
        time.sleep(args.interval)


def _finished(results: list[Any], loaded: Any, unchanged: bool) -> bool:
    """Stop polling once every comparison is decided, or once a log that no longer declares
    missing samples (an lm-eval file declares none) gave no new item since the last read."""
    if results and all(r.margin is not None and r.decided_at is not None for r in results):
        return True
    return unchanged and not loaded.incomplete
