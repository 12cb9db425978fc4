"""``evaladdon ci K N``: an interval for k successes out of n.

Kept light for start-up: the text table, the lazy :mod:`evaladdon.stats` and, for the Wilson,
Wald and Agresti-Coull intervals, no scipy.stats, pandas or rich (see benchmarks/bench_startup.py).
"""

from __future__ import annotations

import argparse
from typing import Any

from evaladdon.cli.options import level_type
from evaladdon.report.text import console, table, write_json
from evaladdon.stats import PROPORTION_METHODS, proportion_interval


def add_parser(sub: Any) -> None:
    p = sub.add_parser("ci", help="confidence interval for k successes out of n")
    p.add_argument("k", type=int, help="successes")
    p.add_argument("n", type=int, help="trials")
    p.add_argument("--method", choices=PROPORTION_METHODS, default="wilson", help="interval method (default wilson)")
    p.add_argument("--level", type=level_type, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--json", action="store_true", help="print JSON for machines")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    result = proportion_interval(args.k, args.n, args.method, args.level)
    if args.json:
        write_json(result.to_dict())
    else:
        console().print(
            table(
                None,
                ["k", "n", "estimate", "low", "high", "level", "method"],
                [[result.successes, result.n, result.estimate, result.low, result.high, result.level, result.method]],
            )
        )
    return 0
