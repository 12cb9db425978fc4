"""``evaladdon metrics PATH...``: every metric family the inputs support (classification, ROC/PR,
calibration, pass@k, corpus-level), with intervals at the right unit."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.cli.options import add_inputs, add_output, load_runs
from evaladdon.report.escape import clean, markdown_cell
from evaladdon.report.text import console, fmt, table, write_json

COLUMNS = ["run", "task/metric", "name", "estimate", "CI", "n", "method"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("metrics", help="classification, ROC/PR, calibration and pass@k metrics with intervals")
    p.add_argument("paths", nargs="+", metavar="PATH", help="log or table files, or directories of them")
    add_inputs(p)
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--boot-method", choices=("percentile", "bca"), default="percentile",
                   help="bootstrap interval (default percentile)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    add_output(p)
    p.set_defaults(run=run)


def short_method(method: str) -> str:
    """The table's method column: the method without its parenthesised details."""
    return method.split(" (")[0].replace("bootstrap", "boot").replace("mean of per-item unbiased estimates, ", "")


def _rows(groups: list[Any], esc: Any) -> list[list[Any]]:
    rows = []
    for g in groups:
        for e in g.estimates:
            if "[" in e.name:  # per-class precision/recall/F1: in --json only
                continue
            n = f"{e.n_items}" + (f"/{e.n_clusters}c" if e.n_clusters is not None else "")
            rows.append([esc(g.label), esc(f"{g.task}/{g.metric}"), esc(e.name), fmt(e.estimate, 4),
                         f"{fmt(e.ci_low, 3)}-{fmt(e.ci_high, 3)}", n, short_method(e.method)])
    return rows


def render(groups: list[Any], stream: Any = None, quiet: bool = False, markdown: bool = False,
           notes: list[str] | None = None) -> None:
    con = console(stream)
    esc = markdown_cell if markdown else clean
    level = next((e.level for g in groups for e in g.estimates), 0.95)
    columns = [c if c != "CI" else f"{level:.0%} CI" for c in COLUMNS]
    if markdown:  # cells escaped here once (markdown_table would escape '|' a second time)
        head = "| " + " | ".join(columns) + " |\n|" + "|".join("---" if i < 3 else "---:" for i in range(len(columns)))
        body = "".join("\n| " + " | ".join(markdown_cell(v) if i >= 3 else str(v) for i, v in enumerate(r)) + " |"
                       for r in _rows(groups, esc))
        con.file.write(head + "|" + body + "\n")
    else:
        con.print(table(None, columns, _rows(groups, esc), n_left=3))
    for g in groups:  # rows left out are said in every mode
        label = esc(f"{g.label} / {g.task} / {g.metric}")
        if g.dropped:
            con.print(f"warning: {label}: {sum(g.dropped.values())} row(s) left out "
                      f"({esc(', '.join(f'{v} {k}' for k, v in g.dropped.items()))})")
        for family, dropped in g.family_dropped.items():
            con.print(f"warning: {label}: {family}: {sum(dropped.values())} row(s) left out "
                      f"({', '.join(f'{v} {k}' for k, v in dropped.items())})")
    if quiet:
        return
    con.print("per-class precision/recall/F1 and full method descriptions: --json")
    for note in notes or []:
        con.print(f"warning: {esc(note)}")
    for g in groups:
        label = esc(f"{g.label} / {g.task} / {g.metric}")
        for family, why in g.missing.items():
            con.print(f"missing: {label}: {family}: {esc(why)}")
        if g.confusion is not None:
            con.print(f"confusion {label} (rows true, columns predicted; {esc(', '.join(g.confusion['labels']))}): "
                      f"{g.confusion['matrix']}")
        seen: set[str] = set()
        for e in g.estimates:
            for n in e.notes:
                if n not in seen:
                    seen.add(n)
                    con.print(f"note: {label}: {esc(n)}")


def run(args: argparse.Namespace) -> int:
    from evaladdon.analysis.metrics import compute_metrics

    loaded = load_runs(args)
    notes = list(loaded.notes)
    groups = compute_metrics(loaded.table, metric=args.metric, level=args.level, n_boot=args.n_boot, seed=args.seed,
                             method=args.boot_method, notes=notes)
    if args.json:
        write_json({"groups": [g.flat() for g in groups], "notes": notes})
    else:
        render(groups, sys.stdout, quiet=args.quiet, markdown=args.markdown, notes=notes)
    return 0
