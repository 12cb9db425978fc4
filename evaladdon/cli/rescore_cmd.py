"""``evaladdon rescore RUN... --rule R``: re-score stored runs from their logged answers and
targets under another scoring rule (no model is called), shown beside the logged scores; and
``compare --rules R1,R2 A B`` (:func:`run_rules`): a comparison under each rule, side by side."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.cli.common import add_reporting, emit, load
from evaladdon.cli.options import add_inputs, add_output

RULE_HELP = "exact | normalized | numeric[:TOL] | regex:PATTERN"


def add_parser(sub: Any) -> None:
    p = sub.add_parser("rescore", help="re-score runs from their logged answers under another scoring rule")
    p.add_argument("paths", nargs="+", metavar="RUN", help="log files or directories; NAME=PATH names a run")
    p.add_argument("--rule", action="append", required=True, metavar="RULE",
                   help=f"scoring rule ({RULE_HELP}); repeat for several")
    add_inputs(p, engine=False)  # reads every row: no Dask reduction (analysis.options.DASK_COMMANDS)
    add_output(p)
    add_reporting(p)
    p.set_defaults(run=run)


def _rules(texts: list[str], flag: str) -> list[Any]:
    from evaladdon.analysis.rescore import parse_rule
    from evaladdon.errors import EvalAddonError

    try:
        return [parse_rule(t) for t in texts]
    except EvalAddonError as exc:  # an error about a flag names the flag, not the input
        raise EvalAddonError(f"{flag}: {exc.message}") from None


def _say_rules(rules: list[Any], markdown: bool) -> None:
    from evaladdon.report.escape import clean, markdown_cell

    esc = markdown_cell if markdown else clean
    for rule in rules:
        print(f"rule {esc(rule.describe())}")


def run(args: argparse.Namespace) -> int:
    from evaladdon.analysis.rescore import rescore_table
    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.report.summarize import render, warnings_of

    rules = _rules(args.rule, "--rule")
    loaded = load(args)
    notes: list[str] = list(loaded.notes)
    summaries = summarize_table(rescore_table(loaded.table, rules, args.metric), level=args.level, notes=notes)
    said = [f"rule {r.describe()}" for r in rules]
    if args.json:
        emit(args, [dict(s.flat(), rule=_rule_of(s.metric)) for s in summaries], loaded, notes + said)
        return 0
    render(summaries, sys.stdout, quiet=args.quiet, markdown=args.markdown, wide=args.wide)
    _say_rules(rules, args.markdown)
    emit(args, [], loaded, notes + warnings_of(summaries))
    return 0


def _rule_of(metric: str) -> str:
    return metric[metric.rindex("[") + 1:-1] if metric.endswith("]") and " [" in metric else "logged"


def run_rules(args: argparse.Namespace) -> int:
    """``compare --rules``: the pairs ``compare`` would make, under the logged scorer and each rule."""
    from evaladdon.analysis.rescore import compare_rules
    from evaladdon.report.rescore import render_rules
    from evaladdon.table import run_labels
    from evaladdon.table.names import choose_pairs_in

    rules = _rules([t for t in args.rules.split(",") if t.strip()], "--rules")
    loaded = load(args)
    df = loaded.table
    pairs = choose_pairs_in(df, args.baseline, args.all_pairs)
    found = compare_rules(df, pairs, rules, args.metric, level=args.level, seed=args.seed)
    said = [f"rule {r.describe()}" for r in rules]
    if args.json:
        emit(args, [rc.flat() for rc in found], loaded, list(loaded.notes) + said)
        return 0
    render_rules(found, rules, run_labels(df), sys.stdout, markdown=args.markdown)
    emit(args, [], loaded, list(loaded.notes) + _left_out_lines(found))
    return 0


def _left_out_lines(found: list[Any]) -> list[str]:
    """The rows left out of each rule's comparison, by reason (JSON has them per row: ``dropped_a`` /
    ``dropped_b``), and the errored-samples policy once, counted on the logged scorer's comparisons
    (each rule pairs the same items: summed over rules they would be counted once per rule)."""
    from evaladdon.report.compare import warnings_of
    from evaladdon.report.errors import error_policy_line

    every = [c for rc in found for _, c in rc.rows if not isinstance(c, str)]
    logged = [c for rc in found for rule, c in rc.rows if rule == "logged" and not isinstance(c, str)]
    lines = warnings_of(every)
    return lines[:len(lines) - len(error_policy_line(every))] + error_policy_line(logged)
