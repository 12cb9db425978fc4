"""``evaladdon power --judge``: how many human labels a judge correction needs for a target
interval width, and the width a given number of labels buys (:mod:`evaladdon.stats.judge_budget`).

The judge's accuracy comes from ``--sensitivity``/``--specificity``/``--judge-rate``, or is
measured with ``--pilot RUN --labels FILE`` (a judge-scored run and human 0/1 labels)."""

from __future__ import annotations

import argparse
from typing import Any

from evaladdon.errors import EvalAddonError

FLAGS_OF_COMPARISONS = ("delta", "discordance", "p_a", "p_b", "sd", "icc", "cluster")


def add_arguments(p: Any) -> None:
    """The ``--judge`` flags of ``power`` (one argument group)."""
    g = p.add_argument_group("judge label budget (--judge)")
    g.add_argument("--judge", action="store_true",
                   help="plan the human labels of a judge correction (Rogan–Gladen and PPI) instead of a comparison; "
                        "--n is then the number of items the judge scores (default: unlimited)")
    g.add_argument("--sensitivity", type=float, metavar="SE", help="--judge: P(judge passes | human passes)")
    g.add_argument("--specificity", type=float, metavar="SP", help="--judge: P(judge fails | human fails)")
    g.add_argument("--judge-rate", type=float, metavar="Q", help="--judge: the judge's pass rate")
    g.add_argument("--width", metavar="EFFECT", help="--judge: target full width of the interval, e.g. 10pt or 0.1")
    g.add_argument("--labelled", type=int, metavar="K", help="--judge: human labels you can afford: the width they buy")
    g.add_argument("--labels", metavar="FILE", help="--judge with --pilot: human 0/1 labels (item, label columns)")


def run(args: argparse.Namespace) -> int:
    from evaladdon.analysis.judge_budget import measure_judge
    from evaladdon.cli.units import parse_effect
    from evaladdon.report.judge_budget import budget_json, write_budget
    from evaladdon.report.text import write_json
    from evaladdon.stats.judge_budget import label_budget

    used = [f"--{f.replace('_', '-')}" for f in FLAGS_OF_COMPARISONS if getattr(args, f, None) is not None]
    if used or args.paired or args.epochs != 1 or args.deff != 1.0:
        raise EvalAddonError(f"{', '.join(used) or '--paired/--epochs/--deff'}: comparison design flags; "
                             "--judge plans human labels (see --sensitivity, --specificity, --judge-rate, --width, --labelled)")
    width = parse_effect(args.width).resolve(bounded=True, flag="--width") if args.width else None
    pilot = None
    if args.pilot:
        if any(v is not None for v in (args.sensitivity, args.specificity, args.judge_rate)):
            raise EvalAddonError("--pilot measures the judge; do not also give --sensitivity, --specificity or --judge-rate")
        if not args.labels:
            raise EvalAddonError("--judge --pilot RUN needs --labels FILE (human 0/1 labels of some items)")
        from evaladdon.adapters import load
        from evaladdon.cli.judge_cmd import read_labels

        pilot = measure_judge(load(args.pilot), read_labels(args.labels, None), args.metric)
        se, sp, q = pilot.sensitivity, pilot.specificity, pilot.judge_rate
        n_judged = args.n if args.n is not None else pilot.n_judged
    else:
        if args.labels:
            raise EvalAddonError("--labels goes with --pilot RUN (to measure the judge)")
        missing = [f for f, v in (("--sensitivity", args.sensitivity), ("--specificity", args.specificity),
                                  ("--judge-rate", args.judge_rate)) if v is None]
        if missing:
            raise EvalAddonError(f"--judge needs {', '.join(missing)} (or --pilot RUN --labels FILE)")
        se, sp, q, n_judged = args.sensitivity, args.specificity, args.judge_rate, args.n
    try:
        plans = label_budget(se, sp, q, n_judged=n_judged, width=width, labels=args.labelled, level=1.0 - args.alpha)
    except ValueError as exc:
        raise EvalAddonError(str(exc)) from None
    if args.json:
        write_json(budget_json(plans, pilot))
        return 0
    write_budget(plans, pilot)
    return 0
