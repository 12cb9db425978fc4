"""``evaladdon runs --store DIR``: what a store holds."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.cli.options import add_output

COLUMNS = ["run", "model", "task", "metrics", "n items", "source", "ingested at"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("runs", help="list the runs kept in a store")
    p.add_argument("--store", metavar="DIR", required=True)
    add_output(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from evaladdon.report.escape import clean, markdown_cell
    from evaladdon.report.text import console, markdown_table, table, write_json
    from evaladdon.store.runs import list_runs

    records = list_runs(args.store)
    if args.json:
        write_json(records)
        return 0
    rows = [[r["run"], r["model"], r["task"], r["metrics"], str(r["n_items"]), r["source"], r["ingested_at"]]
            for r in records]
    con = console(sys.stdout)
    if args.markdown:
        con.file.write(markdown_table(COLUMNS, [[markdown_cell(str(v)) for v in r] for r in rows]))
    else:
        con.print(table(None, COLUMNS, [[clean(str(v)) for v in r] for r in rows], n_left=6))
        if not args.quiet:
            con.print(f"{len(records)} run(s) from {len({r['source'] for r in records})} log(s) in {args.store}")
    return 0
