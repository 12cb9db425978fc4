"""``evaladdon compare PATH...``: paired comparison of runs on the items they share."""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from typing import Any


from evaladdon.cli.options import add_inputs, add_output, load_runs, show_progress
from evaladdon.comparison import RunComparison, choose_pairs, compare_table
from evaladdon.report.text import console, fmt, markdown_table, signed_points, table, write_json
from evaladdon.stats import ADJUST_METHODS, PAIRED_INTERVALS, PAIRED_TESTS, plan

EXIT_REGRESSION = 1


def add_parser(sub: Any) -> None:
    p = sub.add_parser("compare", help="paired comparison of two or more runs on shared items")
    p.add_argument("paths", nargs="+", metavar="PATH", help="run files or directories (A then B)")
    p.add_argument("--baseline", metavar="RUN", help="compare every run against this run id (or file)")
    p.add_argument("--all-pairs", action="store_true", help="compare every pair of runs")
    add_inputs(p)
    p.add_argument("--test", choices=PAIRED_TESTS, default="auto", help="test for the p-value (default auto)")
    p.add_argument("--interval", choices=PAIRED_INTERVALS, default="auto", help="interval of the difference")
    p.add_argument("--cluster-method", choices=("cr1", "cr2"), default="cr2",
                   help="clustered SE of the difference: cr2 (default; Bell-McCaffrey df) or cr1 (t on C-1 df)")
    p.add_argument("--adjust", choices=ADJUST_METHODS, default="holm", help="p-value adjustment over comparisons")
    p.add_argument("--strict", action="store_true", help="refuse to pair items whose content hashes differ")
    p.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a regression is shown")
    p.add_argument("--margin", type=float, help="regression margin for the gate (default 0)")
    p.add_argument("--power", type=float, default=0.8, help="power for the minimum detectable effect")
    p.add_argument("--seed", type=int, default=0, help="seed for permutation and bootstrap")
    add_output(p)
    p.set_defaults(run=run)


def _mde_and_note(r: RunComparison, power: float, alpha: float) -> tuple[float | None, str | None]:
    """Paired MDE at this n and, when there is none, why (never omitted silently).

    0/1 single-epoch data without clusters: the exact-McNemar MDE from the observed
    discordance psi (the test compare runs); otherwise the normal-approximation MDE from the
    SE used.  For 0/1 single-epoch data an MDE above psi is impossible (|delta| <= psi) and
    is reported as "no effect of this design is detectable".
    """
    c = r.comparison
    psi = c.discordance.n_discordant / c.n if c.discordance is not None else None
    if psi == 0:
        return None, "no MDE: the runs agree on every item (no discordant pairs to estimate the variance from)"
    try:
        if c.binary and c.n_clusters is None and psi is not None:
            p = plan(n=c.n, discordance=psi, power=power, alpha=alpha)
        elif c.se > 0 and math.isfinite(c.se) and not any("zero-SE" in n for n in c.notes):
            p = plan(n=c.n, variance=c.se * c.se * c.n, power=power, alpha=alpha)
        else:
            return None, "no MDE: the SE of the difference is 0 or undefined"
    except ValueError as exc:
        return None, f"no MDE: {exc}"
    if p.mde is None or (psi is not None and p.mde > psi):
        return None, (f"no effect of this design is detectable at {power:.0%} power: only {psi:.1%} of items "
                      "disagree" if psi is not None else p.notes[0] if p.notes else "no MDE")
    return p.mde, None


def minimum_detectable(r: RunComparison, power: float, alpha: float) -> float | None:
    """Paired MDE at this n (None when nothing is detectable; :func:`mde_note` says why)."""
    return _mde_and_note(r, power, alpha)[0]


def mde_note(r: RunComparison, power: float, alpha: float) -> str | None:
    """Why :func:`minimum_detectable` gives no number (None when it gives one)."""
    return _mde_and_note(r, power, alpha)[1]


def verdict(r: RunComparison, power: float) -> str:
    c = r.comparison
    mde = (f"; this set can detect {100 * r.mde:.1f} points at {power:.0%} power" if r.mde is not None
           else f"; {r.mde_note}" if r.mde_note else "")
    p = f"p = {c.p_value:.3g} ({c.test})" + (f", adjusted {r.p_adjusted:.3g}" if r.p_adjusted is not None else "")
    gate = f"; gate: {r.gate.decision}" if r.gate else ""
    return (
        f"{r.label_b or r.run_b} vs {r.label_a or r.run_a} on {r.task}/{r.metric}: {signed_points(c.delta)} points, "
        f"{c.level:.0%} CI {signed_points(c.ci_low)} to {signed_points(c.ci_high)}; {p}{mde}{gate}"
    )


COLUMNS = ["task/metric", "A", "B", "delta", "CI", "p", "se pair", "se unpair", "n", "n10/n01"]


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


def render(
    results: list[RunComparison],
    power: float,
    quiet: bool,
    markdown: bool,
    stream: Any = None,
    notes: list[str] | None = None,
) -> None:
    con = console(stream)
    pairs = list(dict.fromkeys((r.run_a, r.run_b) for r in results))
    for run_a, run_b in pairs:
        group = [r for r in results if (r.run_a, r.run_b) == (run_a, run_b)]
        title = f"B = {group[0].label_b or run_b}  vs  A = {group[0].label_a or run_a}"
        if markdown:
            con.file.write(f"**{title}**\n\n" + markdown_table(COLUMNS, rows_of(group)) + "\n")
        else:
            con.print(table(title, COLUMNS, rows_of(group), n_left=1))
    if any(r.p_adjusted is not None for r in results):
        con.print(f"p: {results[0].adjust_method}-adjusted over {len(results)} comparisons; delta and CI in points")
    for r in results:
        con.print(verdict(r, power))
    if quiet:
        return
    for note in notes or []:
        con.print(f"warning: {note}")
    for r in results:
        al, label = r.alignment, f"{r.label_b or r.run_b} vs {r.label_a or r.run_a} / {r.task} / {r.metric}"
        if al.only_a or al.only_b:
            con.print(f"warning: {label}: {al.only_a} item(s) only in A, {al.only_b} only in B (left out)")
        if al.hash_mismatch:
            con.print(f"warning: {label}: {al.hash_mismatch} paired item(s) have different content hashes "
                      f"(e.g. {', '.join(al.hash_mismatch_examples)}); --strict refuses them")
        for side, dropped in (("A", al.dropped_a), ("B", al.dropped_b)):
            if dropped:
                con.print(f"warning: {label}: {sum(dropped.values())} row(s) of {side} left out "
                          f"({', '.join(f'{v} {k}' for k, v in dropped.items())})")
        for note in r.comparison.notes:
            con.print(f"note: {label}: {note}")


def run(args: argparse.Namespace) -> int:
    loaded = load_runs(args)
    df = loaded.table
    pairs = choose_pairs(df, baseline=args.baseline, all_pairs=args.all_pairs)
    results = compare_table(
        df,
        pairs,
        args.metric,
        level=args.level,
        test=args.test,
        interval=args.interval,
        cluster_method=args.cluster_method,
        strict=args.strict,
        adjust=args.adjust,
        margin=(args.margin or 0.0) if args.fail_on_regression or args.margin is not None else None,
        seed=args.seed,
    )
    alpha = 1.0 - args.level
    results = [dataclasses.replace(r, mde=m, mde_note=why)
               for r in results for m, why in [_mde_and_note(r, args.power, alpha)]]
    if args.json:
        write_json([r.flat() for r in results])
    else:
        render(results, args.power, args.quiet, args.markdown, sys.stdout, loaded.notes)
    if args.fail_on_regression and any(r.gate is not None and r.gate.is_regression for r in results):
        if not args.json:
            sys.stderr.write("evaladdon: regression shown\n")
        return EXIT_REGRESSION
    return 0
