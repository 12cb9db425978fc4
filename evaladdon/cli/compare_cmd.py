"""``evaladdon compare PATH...``: paired comparison of runs on the items they share."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from evaladdon.cli.common import add_reporting, emit, gate_refuses_skips
from evaladdon.cli.options import add_inputs, add_output
from evaladdon.cli.units import parse_effect
from evaladdon.report.compare import COLUMNS, DROP_ORDER, render, rows_of, verdict, warnings_of  # noqa: F401 - old place
from evaladdon.stats import ADJUST_METHODS, PAIRED_INTERVALS, PAIRED_TESTS
from evaladdon.analysis.power import mde_and_note, mde_note, minimum_detectable  # noqa: F401 - old place

EXIT_REGRESSION = 1


def add_parser(sub: Any) -> None:
    p = sub.add_parser("compare", help="paired comparison of two or more runs on shared items")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="run files or directories (A then B); NAME=PATH names a run")
    p.add_argument("--baseline", metavar="RUN",
                   help="compare every run against this one: its label, model, file, eval id or a unique prefix")
    p.add_argument("--all-pairs", action="store_true", help="compare every pair of runs")
    add_inputs(p)
    p.add_argument("--test", choices=PAIRED_TESTS, default="auto", help="test for the p-value (default auto)")
    p.add_argument("--interval", choices=PAIRED_INTERVALS, default="auto", help="interval of the difference")
    p.add_argument("--cluster-method", choices=("cr1", "cr2"), default="cr2",
                   help="clustered SE of the difference: cr2 (default; Bell-McCaffrey df) or cr1 (t on C-1 df)")
    p.add_argument("--adjust", choices=ADJUST_METHODS, default="holm", help="p-value adjustment over comparisons")
    p.add_argument("--strict", action="store_true", help="refuse to pair items whose content hashes differ")
    p.add_argument("--fail-on-regression", action="store_true",
                   help="exit 1 when a regression is shown; exit 2 when an input or comparison was skipped")
    p.add_argument("--margin", type=parse_effect, metavar="M",
                   help="largest drop that does not count as a regression, in the units shown: 2pt (points) or "
                        "0.02 on a metric in [0, 1], the metric's own units otherwise (default 0)")
    p.add_argument("--equivalence", type=parse_effect, metavar="M",
                   help="also test each comparison for equivalence within +/-M (TOST; 2pt, 0.02, or the metric's "
                        "own units): 'equivalent' or 'not shown equivalent'")
    p.add_argument("--power", type=float, default=0.8, help="power for the minimum detectable effect (default 0.8)")
    p.add_argument("--seed", type=int, default=0, help="seed for permutation and bootstrap")
    p.add_argument("--n-boot", type=int, default=2000, metavar="N",
                   help="bootstrap replicates for --metric f1_macro, ece, average_precision ... (default 2000)")
    add_output(p)
    add_reporting(p, gate=True)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from evaladdon.cli.options import compare_options
    from evaladdon.routes.plan import MetricComparisons, plan_compare, run as run_routes

    opts = compare_options(args)
    _check_equivalence(opts)
    got = run_routes(plan_compare(opts), opts.inputs.routes).value
    if isinstance(got, MetricComparisons):  # --metric f1_macro, roc_auc, ece, pass@2 ...
        from evaladdon.report.metrics import write_metric_comparison

        write_metric_comparison(got.results, got.gates, got.labels, str(opts.inputs.metric), got.loaded.notes,
                                sys.stdout, json=args.json, markdown=args.markdown, quiet=args.quiet,
                                regression=got.regression and not args.json)
        return EXIT_REGRESSION if got.regression else 0
    loaded, skipped = got.loaded, got.skipped
    alpha = 1.0 - opts.level
    results = [dataclasses.replace(r, mde=m, mde_note=why)
               for r in got.results for m, why in [mde_and_note(r, opts.power, alpha)]]
    equivalent = _equivalence(results, opts.equivalence)
    if args.json:
        emit(args, [r.flat() | ({"equivalence": e.flat()} if e else {}) for r, e in zip(results, equivalent, strict=True)],
             loaded, loaded.notes, skipped)
    else:
        render(results, opts.power, args.quiet, args.markdown, sys.stdout, None, args.wide)
        if opts.equivalence is not None:
            from evaladdon.report.equivalence import write as write_equivalence

            write_equivalence([e for e in equivalent if e], sys.stdout, markdown=args.markdown)
        emit(args, [], loaded, list(loaded.notes) + warnings_of(results), skipped)
    refused = gate_refuses_skips(args, loaded, skipped)
    if refused:
        return refused
    if opts.gate.fail_on_regression and any(r.gate is not None and r.gate.is_regression for r in results):
        if not args.json:
            sys.stderr.write("evaladdon: regression shown\n")
        return EXIT_REGRESSION
    return 0


def _check_equivalence(opts: Any) -> None:
    """``--equivalence`` tests a difference of per-item means: refused up front with a metric family."""
    if opts.equivalence is not None and opts.inputs.metric:
        from evaladdon.stats.families.names import family_of

        if family_of(opts.inputs.metric):
            raise ValueError(f"--equivalence tests a difference of means; not with --metric {opts.inputs.metric}")


def _equivalence(results: list[Any], margin: Any) -> list[Any]:
    """``--equivalence M``: each comparison's TOST row (None for each without the flag)."""
    if margin is None:
        return [None] * len(results)
    from evaladdon.analysis.equivalence import equivalence_rows

    return list(equivalence_rows(results, margin))
