"""``evaladdon compare PATH...``: paired comparison of runs on the items they share."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from evaladdon.cli.common import add_reporting, emit, gate_refuses_skips
from evaladdon.cli.options import add_inputs, add_output
from evaladdon.cli.units import describe, parse_effect
from evaladdon.analysis.results import RunComparison
from evaladdon.report.text import console, fmt, markdown_table, signed_points, table, terminal_width, warn
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
                   help="largest drop that does not count as a regression: 2pt (points) or 0.02 (default 0)")
    p.add_argument("--power", type=float, default=0.8, help="power for the minimum detectable effect (default 0.8)")
    p.add_argument("--seed", type=int, default=0, help="seed for permutation and bootstrap")
    p.add_argument("--n-boot", type=int, default=2000, metavar="N",
                   help="bootstrap replicates for --metric f1_macro, ece, average_precision ... (default 2000)")
    add_output(p)
    add_reporting(p, gate=True)
    p.set_defaults(run=run)


def verdict(r: RunComparison, power: float, bounded: bool = True) -> str:
    c = r.comparison
    mde = (f"; this set can detect {100 * r.mde:.1f} points at {power:.0%} power" if r.mde is not None
           else f"; {r.mde_note}" if r.mde_note else "")
    p = f"p = {c.p_value:.3g} ({c.test})" + (f", adjusted {r.p_adjusted:.3g}" if r.p_adjusted is not None else "")
    gate = ""
    if r.gate:
        gate = f"; gate: {r.gate.decision}" + (" = " if r.gate.decision.endswith(" m") else ", m = ")
        gate += describe(r.gate.margin, bounded)
    return (
        f"{r.label_b or r.run_b} vs {r.label_a or r.run_a} on {r.task}/{r.metric}: {signed_points(c.delta)} points, "
        f"{c.level:.0%} CI {signed_points(c.ci_low)} to {signed_points(c.ci_high)}; {p}{mde}{gate}"
    )


COLUMNS = ["task/metric", "A", "B", "delta", "CI", "p", "se pair", "se unpair", "n", "n10/n01"]
DROP_ORDER = ("se unpair", "n10/n01", "se pair", "n", "A", "B")
"""Columns left out, in this order, when a table does not fit the terminal (``--wide`` keeps all)."""


def rows_of(results: list[RunComparison]) -> list[list[Any]]:
    """Table rows (delta and CI in points); one table per pair of runs."""
    rows = []
    for r in results:
        c = r.comparison
        disc = f"{c.discordance.n10}/{c.discordance.n01}" if c.discordance else "-"
        p = c.p_value if r.p_adjusted is None else r.p_adjusted
        n = f"{c.n}" + (f"/{c.n_clusters}c" if c.n_clusters else "")
        rows.append([f"{r.task}/{r.metric}", fmt(c.mean_a, 3), fmt(c.mean_b, 3),
                     signed_points(c.delta), f"{signed_points(c.ci_low)},{signed_points(c.ci_high)}",
                     f"{p:.2g}", fmt(c.se, 4), fmt(c.se_unpaired, 4), n, disc])
    return rows


def warnings_of(results: list[RunComparison]) -> list[str]:
    """Items left out of each pairing, hash mismatches and statistical notes, one line each."""
    out = []
    for r in results:
        al, label = r.alignment, f"{r.label_b or r.run_b} vs {r.label_a or r.run_a} / {r.task} / {r.metric}"
        if al.only_a or al.only_b:
            out.append(f"warning: {label}: {al.only_a} item(s) only in A, {al.only_b} only in B (left out)")
        if al.hash_mismatch:
            out.append(f"warning: {label}: {al.hash_mismatch} paired item(s) have different content hashes "
                       f"(e.g. {', '.join(al.hash_mismatch_examples)}); --strict refuses them")
        for side, dropped in (("A", al.dropped_a), ("B", al.dropped_b)):
            if dropped:
                out.append(f"warning: {label}: {sum(dropped.values())} row(s) of {side} left out "
                           f"({', '.join(f'{v} {k}' for k, v in dropped.items())})")
        for note in r.comparison.notes:
            out.append(f"note: {label}: {note}")
    return out


def render(
    results: list[RunComparison],
    power: float,
    quiet: bool,
    markdown: bool,
    stream: Any = None,
    notes: list[str] | None = None,
    wide: bool = False,
    bounded: bool = True,
) -> None:
    """Tables and verdict lines on ``stream``; with ``notes`` given, warnings too (stderr, or
    a list after a markdown table)."""
    import textwrap

    from evaladdon.report.escape import markdown_cell
    from evaladdon.report.text import markdown_list

    con = console(stream)
    width = terminal_width(con.file)
    pairs = list(dict.fromkeys((r.run_a, r.run_b) for r in results))
    for run_a, run_b in pairs:
        group = [r for r in results if (r.run_a, r.run_b) == (run_a, run_b)]
        title = f"B = {group[0].label_b or run_b}  vs  A = {group[0].label_a or run_a}"
        if markdown:
            con.file.write(f"**{markdown_cell(title)}**\n\n" + markdown_table(COLUMNS, rows_of(group)) + "\n")
        else:
            con.print(table(title, COLUMNS, rows_of(group), n_left=1, drop=DROP_ORDER, wide=wide))
    lines = []
    if any(r.p_adjusted is not None for r in results):
        lines.append(f"p: {results[0].adjust_method}-adjusted over {len(results)} comparisons; delta and CI in points")
    lines += [verdict(r, power, bounded) for r in results]
    for line in lines:
        if markdown:
            con.file.write(markdown_cell(line) + "\n\n")
        elif wide:
            con.print(line)
        else:
            con.print(textwrap.fill(line, width=max(width, 20), subsequent_indent="  ", break_on_hyphens=False))
    if notes is None:
        return
    extra = list(notes) + warnings_of(results)
    if markdown:
        con.file.write(markdown_list(extra))
    elif not quiet:
        warn(extra)


def run(args: argparse.Namespace) -> int:
    from evaladdon.cli.options import compare_options
    from evaladdon.routes.plan import MetricComparisons, plan_compare, run as run_routes

    opts = compare_options(args)
    got = run_routes(plan_compare(opts), opts.inputs.routes).value
    if isinstance(got, MetricComparisons):  # --metric f1_macro, roc_auc, ece, pass@2 ...
        from evaladdon.report.metrics import write_metric_comparison

        write_metric_comparison(got.results, got.gates, got.labels, str(opts.inputs.metric), got.loaded.notes,
                                sys.stdout, json=args.json, markdown=args.markdown, quiet=args.quiet,
                                regression=got.regression and not args.json)
        return EXIT_REGRESSION if got.regression else 0
    loaded, skipped, bounded = got.loaded, got.skipped, got.bounded
    alpha = 1.0 - opts.level
    results = [dataclasses.replace(r, mde=m, mde_note=why)
               for r in got.results for m, why in [mde_and_note(r, opts.power, alpha)]]
    if args.json:
        emit(args, [r.flat() for r in results], loaded, loaded.notes, skipped)
    else:
        render(results, opts.power, args.quiet, args.markdown, sys.stdout, None, args.wide, bounded)
        emit(args, [], loaded, list(loaded.notes) + warnings_of(results), skipped)
    refused = gate_refuses_skips(args, loaded, skipped)
    if refused:
        return refused
    if opts.gate.fail_on_regression and any(r.gate is not None and r.gate.is_regression for r in results):
        if not args.json:
            sys.stderr.write("evaladdon: regression shown\n")
        return EXIT_REGRESSION
    return 0
