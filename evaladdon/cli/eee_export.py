"""``export --format every-eval-ever -o FOLDER``: Every Eval Ever records with our estimates
(:mod:`evaladdon.report.every_eval_ever`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evaladdon.cli.options import load_runs
from evaladdon.errors import EvalAddonError


def run_eee(args: argparse.Namespace, out: Path) -> int:
    """Summaries of every (run, task, metric) at 95 %, written as Every Eval Ever records under ``out``."""
    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.report.escape import clean
    from evaladdon.report.every_eval_ever import write_eee

    if out.exists() and not out.is_dir():
        raise EvalAddonError("--format every-eval-ever writes a folder; this is a file", str(out))
    loaded = load_runs(args)
    notes: list[str] = list(loaded.notes)
    summaries = summarize_table(loaded.table, notes=notes)
    written = write_eee(loaded.table, summaries, out)
    if not args.quiet:
        dropped = sum(s.n_dropped for s in summaries)
        for note in notes:  # names from the inputs: never a control character on the terminal
            sys.stderr.write(clean(f"warning: {note}") + "\n")
        sys.stderr.write(clean(f"wrote {len(written)} Every Eval Ever record(s) ({len(summaries)} result(s); "
                               f"{dropped} row(s) with an error reason left out of the instance records, counted "
                               f"in score_details.details) under {out}") + "\n")
    return 0
