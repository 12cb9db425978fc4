"""``evaladdon ingest LOGS... --store DIR``: keep the canonical table of each log in a store."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.cli.options import ENGINES, show_progress


def add_parser(sub: Any) -> None:
    p = sub.add_parser("ingest", help="store the canonical tables of logs in a Parquet dataset (DuckDB queries)")
    p.add_argument("paths", nargs="+", metavar="PATH", help="log or table files, or directories of them")
    p.add_argument("--store", metavar="DIR", required=True, help="the store (created when missing)")
    p.add_argument("--cluster", metavar="FIELD", help="column (tables) or metadata field (logs) to cluster on")
    p.add_argument("--workers", type=int, help="processes to parse with (default: one per core)")
    p.add_argument("--engine", choices=ENGINES, default="local", help="local processes (default) or a Dask cluster")
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --engine dask: the scheduler (default: local cluster)")
    p.add_argument("--wait", type=float, default=600.0, metavar="SECONDS",
                   help="how long to wait while another ingest writes the same store (default: 600)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from evaladdon.errors import EvalAddonError
    from evaladdon.report.escape import clean
    from evaladdon.routes.ingest import ingest

    if args.workers is not None and args.workers < 1:
        raise EvalAddonError("--workers must be at least 1")
    if not args.wait >= 0:  # NaN too
        raise EvalAddonError("--wait must be a number of seconds, 0 or more")

    def waiting() -> None:
        sys.stderr.write(f"{clean(str(args.store))}: another ingest is writing this store; waiting for it\n")

    on_wait = None if args.quiet else waiting
    if args.scheduler and args.engine != "dask":
        raise EvalAddonError("--scheduler needs --engine dask")
    if args.engine == "dask":
        from evaladdon.routes.dask import dask_client, submitter

        with dask_client(args.scheduler) as client:
            report = ingest(args.paths, args.store, cluster=args.cluster, progress=show_progress(args),
                            submit=submitter(client), wait=args.wait, on_wait=on_wait)
    else:
        report = ingest(args.paths, args.store, cluster=args.cluster, workers=args.workers,
                        progress=show_progress(args), wait=args.wait, on_wait=on_wait)
    if not args.quiet:
        for note in report.notes:
            sys.stderr.write(f"warning: {clean(note)}\n")
    for err in report.errors:
        sys.stderr.write(f"evaladdon: error: {clean(err)}\n")
    sys.stderr.write(f"{args.store}: {report.stored} log(s) stored, {report.replaced} replaced, "
                     f"{report.unchanged} unchanged, {len(report.errors)} refused"
                     f"{f', {report.repaired} repaired' if report.repaired else ''}\n")
    return 2 if report.errors else 0
