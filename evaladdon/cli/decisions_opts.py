"""The decision options of ``evaladdon metrics``: ``--threshold RULE --validation RUN_OR_SPLIT``
and ``--prevalence P`` (:mod:`evaladdon.analysis.decisions`)."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

__all__ = ["add_decisions", "run_decisions"]


def _rule(text: str) -> Any:
    from evaladdon.stats.families.threshold import parse_rule

    try:
        return parse_rule(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _prevalence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"--prevalence must lie strictly between 0 and 1, got {text!r}")
    return value


def add_decisions(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("decisions from scores (docs/metrics.md)")
    g.add_argument("--threshold", type=_rule, default=None, metavar="RULE",
                   help="choose a threshold on the --validation rows: cost:FP=1,FN=5 | tpr@fpr=0.01 | "
                        "precision@recall=0.9; then report the test rows at it")
    g.add_argument("--validation", default=None, metavar="RUN_OR_SPLIT",
                   help="the validation rows: a run (label, id, file) or FIELD=VALUE (e.g. split=validation); "
                        "they must be other items than the test rows")
    g.add_argument("--recalibrate", choices=("temperature", "platt", "isotonic"), default=None,
                   help="fit a recalibration on the --validation rows and report calibration on the test rows "
                        "before and after (temperature: Guo et al. 2017)")
    g.add_argument("--prevalence", type=_prevalence, default=None, metavar="P",
                   help="also report precision and F1 at base rate P (Bayes' rule on TPR and FPR)")


def run_decisions(args: argparse.Namespace, df: Any, notes: list[str]) -> bool:
    """Run the decision path when one of its options is given (True), else leave (False)."""
    from evaladdon.errors import EvalAddonError

    if getattr(args, "metric", None) and (args.recalibrate or args.threshold or args.prevalence):
        from evaladdon.table.checks import rows_of_metric

        df = rows_of_metric(df, args.metric)  # --metric SCORER: that scorer's rows only
    if args.recalibrate is not None:
        if args.threshold is not None or args.prevalence is not None:
            raise EvalAddonError("--recalibrate runs alone: drop --threshold/--prevalence (or run them separately)")
        if args.validation is None:
            raise EvalAddonError("--recalibrate needs --validation RUN_OR_SPLIT: a map fitted on the test rows "
                                 "is not tested by them")
        from evaladdon.analysis.recalibration import recalibrate
        from evaladdon.report.recalibration import render_recalibration

        got = recalibrate(df, args.recalibrate, args.validation, level=args.level, n_boot=args.n_boot,
                          seed=args.seed, notes=notes)
        render_recalibration(got, sys.stdout, json=args.json, markdown=args.markdown, quiet=args.quiet, notes=notes)
        return True
    if args.threshold is None and args.prevalence is None:
        if args.validation is not None:
            raise EvalAddonError("--validation needs --threshold (or --recalibrate)")
        return False
    from evaladdon.analysis.decisions import DecisionOptions, decide
    from evaladdon.report.decisions import render_decisions

    opts = DecisionOptions(rule=args.threshold, validation=args.validation, prevalence=args.prevalence,
                           level=args.level)
    results = decide(df, opts, notes)
    render_decisions(results, sys.stdout, json=args.json, markdown=args.markdown, quiet=args.quiet, notes=notes)
    return True
