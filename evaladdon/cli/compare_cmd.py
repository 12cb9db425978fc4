"""``evaladdon compare PATH...``: paired comparison of runs on the items they share."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from evaladdon.cli.common import add_reporting, emit, gate_refuses_skips
from evaladdon.cli.options import add_better, add_by, add_errors, add_inputs, add_output
from evaladdon.cli.units import parse_effect
from evaladdon.report.errors import error_regressions
from evaladdon.report.compare import COLUMNS, DROP_ORDER, render, rows_of, verdict, warnings_of  # noqa: F401 - old place
from evaladdon.stats import ADJUST_METHODS, PAIRED_INTERVALS, PAIRED_TESTS, SEQUENCE_METHODS
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
    add_better(p)
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
    p.add_argument("--rules", metavar="R1,R2",
                   help="re-score from the logged answers under each rule (exact, normalized, numeric[:TOL], "
                        "regex:PATTERN) and compare under each, side by side (see `evaladdon rescore`)")
    p.add_argument("--flips", type=int, nargs="?", const=10, metavar="N",
                   help="list the items that flipped (right->wrong, wrong->right; graded scores: the largest "
                        "drops), worst first: N per comparison (default 10; 0: all)")
    add_by(p)
    p.add_argument("--sequential", action="store_true",
                   help="read the runs in their logged order with anytime-valid intervals: what an early stop "
                        "would have decided, and how many items it would have saved (docs/sequential.md)")
    p.add_argument("--sequence", choices=SEQUENCE_METHODS, default="betting",
                   help="with --sequential: the confidence sequence for scores in [0, 1] (default betting)")
    add_errors(p)
    p.add_argument("--max-flaky", type=float, metavar="SHARE",
                   help="exit 1 when a candidate run has more than SHARE (0.1 = 10%%) of its repeated items "
                        "unstable (neither always passed nor always failed over its epochs/repeats)")
    add_output(p)
    add_reporting(p, gate=True)
    p.set_defaults(run=run)


def _flaky(opts: Any, loaded: Any, results: list[Any]) -> tuple[dict[Any, Any], list[str], list[str]]:
    """``--max-flaky``: the candidates' flaky items by (run, task, metric), their lines, and the
    groups over the share (the table route answered: plan_compare offers no other)."""
    if opts.max_flaky is None:
        return {}, [], []
    from evaladdon.analysis.flaky import flaky_table
    from evaladdon.report.flaky import flaky_lines, flaky_over

    candidates = {r.run_b for r in results}
    said: list[str] = []  # e.g. no repeats: the gate says it had nothing to judge, never passes silently
    groups = [g for g in flaky_table(loaded.table, opts.inputs.metric, opts.level, said) if g.run in candidates]
    return ({(g.run, g.task, g.metric): g for g in groups}, said + flaky_lines(groups),
            flaky_over(groups, candidates, opts.max_flaky))


def run(args: argparse.Namespace) -> int:
    from evaladdon.cli.options import compare_options
    from evaladdon.routes.plan import MetricComparisons, plan_compare, run as run_routes

    from evaladdon.cli.compare_modes import refuse_unread

    refuse_unread(args)
    if args.rules:  # a different question (does the comparison depend on the scoring rule?): its own command
        from evaladdon.cli.rescore_cmd import run_rules

        return run_rules(args)
    if args.sequential:
        from evaladdon.cli.watch_cmd import run_sequential

        return run_sequential(args, live=False)
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
    flips = got.flips or []
    flaky, flaky_notes, too_flaky = _flaky(opts, loaded, results)
    equivalent = _equivalence(results, opts.equivalence)
    if args.json:
        records = [r.flat() | ({"equivalence": e.flat()} if e else {}) for r, e in zip(results, equivalent, strict=True)]
        if opts.max_flaky is not None:
            records = [dict(x, flaky_b=flaky[k].flat() if (k := (r.run_b, r.task, r.metric)) in flaky else None)
                       for x, r in zip(records, results, strict=True)]
        emit(args, records + _flip_records(flips, opts.flips) + _subgroup_records(got.subgroups),
             loaded, list(loaded.notes) + flaky_notes, skipped)
    else:
        render(results, opts.power, args.quiet, args.markdown, sys.stdout, None, args.wide)
        if opts.equivalence is not None:
            from evaladdon.report.equivalence import write as write_equivalence

            write_equivalence([e for e in equivalent if e], sys.stdout, markdown=args.markdown)
        if got.subgroups is not None:
            from evaladdon.report.subgroups import render_subgroups

            render_subgroups(results, got.subgroups, opts.min_size, sys.stdout, args.markdown, args.wide)
        if opts.flips is not None:
            from evaladdon.report.flips import render_flips

            render_flips(flips, opts.flips, sys.stdout, markdown=args.markdown, wide=args.wide)
        emit(args, [], loaded, list(loaded.notes) + warnings_of(results) + flaky_notes, skipped)
    refused = gate_refuses_skips(args, loaded, skipped)
    if refused:
        return refused
    return _gate_exit(args, opts, results, too_flaky)


def _gate_exit(args: argparse.Namespace, opts: Any, results: list[Any], too_flaky: list[str]) -> int:
    """Exit 1 on a regression shown, a candidate that errors significantly more (unless
    ``--errors fail``) or one over ``--max-flaky``; else 0."""
    if opts.gate.fail_on_regression and any(r.gate is not None and r.gate.is_regression for r in results):
        if not args.json:
            sys.stderr.write("evaladdon: regression shown\n")
        return EXIT_REGRESSION
    if too_flaky:
        if not args.json:
            sys.stderr.write("evaladdon: too many flaky items: " + "; ".join(too_flaky) + "\n")
        return EXIT_REGRESSION
    if opts.gate.fail_on_regression and error_regressions(results, opts.errors, 1.0 - opts.level):
        if not args.json:
            sys.stderr.write("evaladdon: regression shown (the candidate errors significantly more)\n")
        return EXIT_REGRESSION
    return 0


def _flip_records(flips: list[Any], n: int | None) -> list[dict[str, Any]]:
    """``--flips``' JSON records (none without it; imported only then: the fast store compare
    imports no pandas)."""
    if n is None:
        return []
    from evaladdon.report.flips import flip_records

    return flip_records(flips, n)


def _subgroup_records(found: Any) -> list[dict[str, Any]]:
    """``--by``'s JSON records (none without it)."""
    if found is None:
        return []
    from evaladdon.report.subgroups import records

    return records(found)


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
