"""``evaladdon compare PATH...``: paired comparison of runs on the items they share."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from evaladdon.cli.common import add_reporting, emit, gate_refuses_skips, load
from evaladdon.cli.options import add_inputs, add_output
from evaladdon.cli.units import describe, parse_effect
from evaladdon.analysis.results import RunComparison, Skipped
from evaladdon.errors import EvalAddonError
from evaladdon.report.text import console, fmt, markdown_table, signed_points, table, terminal_width, warn
from evaladdon.stats import ADJUST_METHODS, PAIRED_INTERVALS, PAIRED_TESTS
from evaladdon.table.scale import bounded_metric
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


def _family(metric: str) -> str | None:
    """The metric family ``metric`` names, if any (f1_macro, roc_auc, ece, pass@2 ...)."""
    from evaladdon.stats.metric_names import family_of

    return family_of(metric)


def run(args: argparse.Namespace) -> int:
    fast = _fast_store(args)
    if fast is not None:
        return _run(args, None, fast)
    grouped = _store_in_groups(args)
    if grouped is not None:
        from evaladdon.store.compare_groups import ManifestMismatch

        try:
            return _run(args, grouped)
        except ManifestMismatch:  # the manifest does not describe the stored rows: read them at once
            pass
    return _run(args, None)


def _run(args: argparse.Namespace, grouped: Any, fast: Any = None) -> int:
    if fast is not None:
        loaded, bounded = _StoreRows(notes=list(fast.notes)), fast.bounded
    elif grouped is None:
        loaded = load(args)
        df = loaded.table
        chosen = df if args.metric is None else df[df["metric"] == args.metric]
        bounded = bounded_metric(chosen)
    else:
        from evaladdon.table.loaded import Loaded
        from evaladdon.store.compare_groups import bounded as bounded_store
        from evaladdon.table import empty_table

        loaded, bounded = Loaded(empty_table(), list(grouped.notes)), bounded_store(grouped)
    margin = None
    if args.margin is not None or args.fail_on_regression:
        margin = args.margin.resolve(bounded, "--margin") if args.margin is not None else 0.0
        if margin < 0:
            raise EvalAddonError(f"--margin {args.margin.text}: the margin is a drop that does not matter; give it >= 0")
    skipped: list[Skipped] = []
    if fast is None and grouped is None and args.metric and _family(args.metric):  # --metric f1_macro, roc_auc, ece, pass@2 ...
        from evaladdon.analysis.metrics import compare_metric, metric_gates
        from evaladdon.report.metrics import write_metric_comparison
        from evaladdon.table import run_labels
        from evaladdon.table.names import choose_pairs_in

        pairs = choose_pairs_in(df, baseline=args.baseline, all_pairs=args.all_pairs)
        found = compare_metric(df, pairs, args.metric, level=args.level, n_boot=getattr(args, "n_boot", 2000),
                               seed=args.seed)
        gates = metric_gates(found, args.metric, args.margin, args.fail_on_regression)
        regression = args.fail_on_regression and any(g.is_regression for g in gates)
        write_metric_comparison(found, gates, run_labels(df), args.metric, loaded.notes, sys.stdout,
                                json=args.json, markdown=args.markdown, quiet=args.quiet,
                                regression=regression and not args.json)
        return EXIT_REGRESSION if regression else 0
    try:
        if fast is not None:
            results = fast.compare(args.baseline, args.all_pairs, level=args.level, test=args.test,
                                   interval=args.interval, cluster_method=args.cluster_method, strict=args.strict,
                                   adjust=args.adjust, margin=margin, seed=args.seed, skipped=skipped)
        elif grouped is not None:
            from evaladdon.store.compare_groups import compare_store

            results = compare_store(grouped, args.baseline, level=args.level, test=args.test, interval=args.interval,
                                    cluster_method=args.cluster_method, strict=args.strict, adjust=args.adjust,
                                    margin=margin, seed=args.seed, skipped=skipped)
        else:
            from evaladdon.analysis.compare_table import compare_table
            from evaladdon.table.names import choose_pairs_in

            pairs = choose_pairs_in(df, baseline=args.baseline, all_pairs=args.all_pairs)
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
                margin=margin,
                seed=args.seed,
                skipped=skipped,
            )
    except EvalAddonError as exc:
        if not loaded.skipped:
            raise
        first = loaded.skipped[0]
        raise EvalAddonError(f"{exc} ({len(loaded.skipped)} input(s) not read; first: {first['path']}: "
                             f"{first['reason']})") from None
    alpha = 1.0 - args.level
    results = [dataclasses.replace(r, mde=m, mde_note=why)
               for r in results for m, why in [mde_and_note(r, args.power, alpha)]]
    if args.json:
        emit(args, [r.flat() for r in results], loaded, loaded.notes, skipped)
    else:
        render(results, args.power, args.quiet, args.markdown, sys.stdout, None, args.wide, bounded)
        emit(args, [], loaded, list(loaded.notes) + warnings_of(results), skipped)
    refused = gate_refuses_skips(args, loaded, skipped)
    if refused:
        return refused
    if args.fail_on_regression and any(r.gate is not None and r.gate.is_regression for r in results):
        if not args.json:
            sys.stderr.write("evaladdon: regression shown\n")
        return EXIT_REGRESSION
    return 0


def _store_in_groups(args: argparse.Namespace) -> Any:
    """:func:`evaladdon.store.compare_groups.grouped_store` for ``--store`` with ``--baseline``
    on the local engine and a plain ``--metric`` (None otherwise: the selection is read at once)."""
    if not getattr(args, "store", None) or (getattr(args, "engine", "local") or "local") != "local":
        return None
    if args.baseline is None or (args.metric and _family(args.metric)):
        return None
    from evaladdon.table.checks import check_metric
    from evaladdon.store.compare_groups import grouped_store

    return grouped_store(str(args.store), getattr(args, "where", None), getattr(args, "cluster", None), args.metric,
                         args.baseline, check_metric)


@dataclasses.dataclass
class _StoreRows:
    """What the output needs of a :class:`evaladdon.adapters.Loaded` when the rows were read
    without a table (no file is skipped in a store; its notes are the logs' notes)."""

    notes: list[str]
    skipped: list[dict[str, str]] = dataclasses.field(default_factory=list)


def _fast_store(args: argparse.Namespace) -> Any:
    """:func:`evaladdon.store.fast_compare.fast_store` for ``--store`` on the local engine
    without ``--cluster`` or a metric family (None otherwise, or when it declines)."""
    if not getattr(args, "store", None) or (getattr(args, "engine", "local") or "local") != "local":
        return None
    if getattr(args, "cluster", None) is not None or (args.metric and _family(args.metric)):
        return None
    from evaladdon.table.checks import check_metric_name
    from evaladdon.store.fast_compare import fast_store

    return fast_store(str(args.store), getattr(args, "where", None), args.metric, check_metric_name)
