"""Flags shared by several subcommands, so they mean the same everywhere."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.table.loaded import Loaded

ENGINES = ("local", "dask")
DASK_COMMANDS = ("summarize", "compare", "report", "ingest")


def add_output(p: argparse.ArgumentParser, markdown: bool = True) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="print JSON for machines")
    if markdown:
        g.add_argument("--markdown", action="store_true", help="print a markdown table (PR comments)")
    p.add_argument("--quiet", action="store_true", help="print only the table (no warnings or notes)")


def add_store(p: argparse.ArgumentParser, engine: bool = False) -> None:
    """``--store DIR --where SQL`` (and ``--engine``/``--scheduler`` when ``engine``).

    The command's ``paths`` positional becomes optional: with ``--store`` the runs come from
    the store.  (argparse reads ``nargs`` when it parses, so changing it here is enough.)
    """
    for action in p._actions:  # noqa: SLF001 - argparse has no public way to relax nargs
        if action.dest == "paths" and action.nargs == "+":
            action.nargs = "*"
    g = p.add_argument_group("store of runs")
    g.add_argument("--store", metavar="DIR", help="read runs from this store (see `evaladdon ingest`)")
    g.add_argument("--where", metavar="SQL",
                   help="with --store: which rows, a DuckDB expression, e.g. \"model LIKE 'ckpt-%%' AND task = 'gsm8k'\"")
    if engine:
        g.add_argument("--engine", choices=ENGINES, default="local",
                       help="local (default) or dask: parse and reduce on a Dask cluster")
        g.add_argument("--scheduler", metavar="ADDRESS",
                       help="with --engine dask: the scheduler (default: start a local cluster)")


def add_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--metric", help="only this metric")
    p.add_argument("--cluster", metavar="FIELD", help="column (tables) or metadata field (logs) to cluster on")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    add_store(p, engine=True)


def show_progress(args: argparse.Namespace) -> bool:
    """A progress bar only for people: not with --quiet/--json, nor when stderr is no terminal."""
    import sys

    return not getattr(args, "quiet", False) and not getattr(args, "json", False) and sys.stderr.isatty()


def input_paths(args: argparse.Namespace) -> list[str]:
    """Every file a command reads (for the never-overwrite-an-input check of writers)."""
    paths = [str(p) for p in (getattr(args, "paths", None) or [])]
    store = getattr(args, "store", None)
    if store:
        paths.append(str(store))
    return paths


def load_runs(args: argparse.Namespace) -> "Loaded":
    """The canonical table for a command's inputs, with notes on what was skipped.

    Every command that reads runs goes through here, so input options mean the same
    everywhere: ``args.paths`` (files and directories), or ``--store DIR`` with an optional
    ``--where`` filter (DuckDB), and ``--engine dask`` for summaries and comparisons
    reduced on a Dask cluster.  Running out of memory is one line, exit 2.
    """
    from evaladdon.errors import EvalAddonError

    paths = list(getattr(args, "paths", None) or [])
    store = getattr(args, "store", None)
    where = getattr(args, "where", None)
    engine = getattr(args, "engine", "local") or "local"
    cluster = getattr(args, "cluster", None)
    if store and paths:
        raise EvalAddonError("give PATHs or --store DIR, not both (ingest the paths into the store first)")
    if where and not store:
        raise EvalAddonError("--where filters a store: add --store DIR")
    if not store and not paths:
        raise EvalAddonError("nothing to read: the following arguments are required: PATH (or --store DIR)")
    if getattr(args, "scheduler", None) and engine != "dask":
        raise EvalAddonError("--scheduler needs --engine dask")
    try:
        if engine == "dask":
            command = getattr(args, "command", None)
            if command not in DASK_COMMANDS:
                raise EvalAddonError(f"--engine dask works with {', '.join(DASK_COMMANDS)}, not {command}")
            from evaladdon.engine.dask_engine import load_reduced

            return load_reduced(paths=paths, store=store, where=where, cluster=cluster,
                                scheduler=getattr(args, "scheduler", None))
        if store:
            from evaladdon.store.query import load_store

            return load_store(store, where=where, cluster=cluster)
        from evaladdon.adapters import read_runs

        # summarize also shows results-only lm-eval files, as harness-reported values
        return read_runs(paths, cluster=cluster, progress=show_progress(args),
                         results_only=getattr(args, "command", None) == "summarize")
    except MemoryError:
        raise EvalAddonError("not enough memory to read these inputs; filter them (--store with --where) "
                             "or use --engine dask") from None
