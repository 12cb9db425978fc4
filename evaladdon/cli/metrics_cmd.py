"""``evaladdon metrics PATH...``: every metric family the inputs support (classification, ROC/PR,
calibration, pass@k, corpus-level), with intervals at the right unit."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.cli.decisions_opts import add_decisions, run_decisions
from evaladdon.cli.options import add_errors, add_inputs, add_output, load_runs
from evaladdon.report.metrics import COLUMNS, render, short_method  # noqa: F401 - old place
from evaladdon.report.text import write_json


def add_parser(sub: Any) -> None:
    p = sub.add_parser("metrics", help="classification, ROC/PR, calibration and pass@k metrics with intervals")
    p.add_argument("paths", nargs="+", metavar="PATH", help="log or table files, or directories of them")
    add_inputs(p, engine=False)  # reads every row: no Dask reduction (analysis.options.DASK_COMMANDS)
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--boot-method", choices=("percentile", "bca"), default="percentile",
                   help="bootstrap interval (default percentile)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    add_errors(p)
    p.add_argument("--beta", type=_beta, default=None, metavar="B",
                   help="add F-beta beside F1, per class and averaged (e.g. 2: misses weigh 4x false alarms)")
    add_decisions(p)
    add_output(p)
    p.set_defaults(run=run)


def _beta(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"--beta must be a positive number, got {text!r}")
    return value


_METRICS_HOW = {"exclude": "left out of every metric", "fail": "scored 0 (failed) where the metric lies in [0, 1]",
                "bounds": "left out of every metric (no worst/best case for metric families)"}


def error_notes(df: Any, policy: str, n_errors: int) -> list[str]:
    """Each group's error rate and the policy, in the one wording of :mod:`evaladdon.report.errors`."""
    from evaladdon.report.errors import policy_note, rate_line
    from evaladdon.table import run_labels
    from evaladdon.table.errored import errors_by_group

    labels = run_labels(df) if n_errors else {}
    lines = [rate_line(f"{labels.get(str(run), run)} / {task} / {metric}", n, tried, policy, _METRICS_HOW[policy])
             for run, task, metric, n, tried in errors_by_group(df)]
    return lines + [policy_note(policy, n_errors)]


def run(args: argparse.Namespace) -> int:
    from evaladdon.analysis.metrics import compute_metrics

    from evaladdon.table.errored import apply_policy_table

    _refuse_unread(args)
    loaded = load_runs(args)
    notes = list(loaded.notes)
    table, n_errors = apply_policy_table(loaded.table, args.errors)
    notes += error_notes(loaded.table, args.errors, n_errors)  # fail: pass@k counts errored attempts failed
    if run_decisions(args, table, notes):  # --threshold / --prevalence / --recalibrate
        return 0
    groups = compute_metrics(table, metric=args.metric, level=args.level, n_boot=args.n_boot, seed=args.seed,
                             method=args.boot_method, notes=notes, beta=args.beta)
    if args.json:
        write_json({"groups": [g.flat() for g in groups], "notes": notes})
    else:
        render(groups, sys.stdout, quiet=args.quiet, markdown=args.markdown, notes=notes)
    return 0


def _refuse_unread(args: argparse.Namespace) -> None:
    """Options metrics would not read are refused in one line, never silently ignored."""
    from evaladdon.errors import EvalAddonError

    if args.errors == "bounds":  # no worst/best case is defined for a metric family
        raise EvalAddonError("metrics --errors bounds: metric families have no worst/best case; use --errors "
                             "exclude (default) or fail (summarize and compare give bounds)")
    if args.beta is not None and (args.threshold is not None or args.prevalence is not None
                                  or args.recalibrate is not None):
        raise EvalAddonError("--beta adds F-beta to the classification metrics; with --threshold, --prevalence or "
                             "--recalibrate it is not read (run them separately)")
