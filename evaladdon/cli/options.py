"""Flags shared by several subcommands, so they mean the same everywhere."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.adapters import Loaded


def add_output(p: argparse.ArgumentParser, markdown: bool = True) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="print JSON for machines")
    if markdown:
        g.add_argument("--markdown", action="store_true", help="print a markdown table (PR comments)")
    p.add_argument("--quiet", action="store_true", help="print only the table (no warnings or notes)")


def add_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--metric", help="only this metric")
    p.add_argument("--cluster", metavar="FIELD", help="column (tables) or metadata field (logs) to cluster on")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")


def show_progress(args: argparse.Namespace) -> bool:
    """A progress bar only for people: not with --quiet/--json, nor when stderr is no terminal."""
    import sys

    return not getattr(args, "quiet", False) and not getattr(args, "json", False) and sys.stderr.isatty()


def load_runs(args: argparse.Namespace) -> "Loaded":
    """The canonical table for a command's inputs (``args.paths``), with notes on what was skipped.

    Every command that reads runs goes through here, so input options (``--cluster``, and
    later sources such as a store) mean the same everywhere.
    """
    from evaladdon.adapters import read_runs

    return read_runs(args.paths, cluster=getattr(args, "cluster", None), progress=show_progress(args))
