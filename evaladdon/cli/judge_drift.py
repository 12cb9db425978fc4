"""``evaladdon judge drift A B``: the same outputs judged twice -- the judge's change, and the share
of the headline difference it explains (:mod:`evaladdon.analysis.judge_drift`)."""

from __future__ import annotations

import argparse
import sys

from evaladdon.cli.common import emit, load


def run(args: argparse.Namespace) -> int:
    from evaladdon.analysis.judge_drift import judge_drift
    from evaladdon.errors import EvalAddonError
    from evaladdon.report.judge_bias import render_drift
    from evaladdon.table import run_labels
    from evaladdon.table.names import choose_pairs_in, pairs_needed

    args.paths = args.paths[1:]
    loaded = load(args)
    df = loaded.table
    pairs = choose_pairs_in(df, getattr(args, "baseline", None), False, pairs_needed("judge drift", ("--baseline RUN",)))
    if not pairs:
        raise EvalAddonError("judge drift compares judge runs: name two, or --baseline RUN")
    reports = [r for run_a, run_b in pairs
               for r in judge_drift(df, run_a, run_b, metric=args.metric, level=args.level, seed=args.seed)]
    if args.json:
        emit(args, [r.flat() for r in reports], loaded, loaded.notes)
        return 0
    render_drift(reports, run_labels(df), sys.stdout, markdown=args.markdown)
    emit(args, [], loaded, list(loaded.notes))
    return 0
