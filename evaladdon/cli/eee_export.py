"""``export --format every-eval-ever -o FOLDER``: Every Eval Ever records with our estimates
(:mod:`evaladdon.report.every_eval_ever`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

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
    corpus = _corpus_level(loaded.table, notes)
    try:
        summaries = summarize_table(loaded.table, notes=notes)
    except EvalAddonError:
        if not corpus:  # nothing at all to write
            raise
        summaries = []  # only corpus-level metrics
    written = write_eee(loaded.table, summaries, out, corpus=corpus)
    if not args.quiet:
        dropped = sum(s.n_dropped for s in summaries)
        for note in notes:  # names from the inputs: never a control character on the terminal
            sys.stderr.write(clean(f"warning: {note}") + "\n")
        sys.stderr.write(clean(f"wrote {len(written)} Every Eval Ever record(s) ({len(summaries) + len(corpus)} result(s); "
                               f"{dropped} row(s) with an error reason left out of the instance records, kept "
                               f"in score_details.details) under {out}") + "\n")
    return 0


def _corpus_level(table: Any, notes: list[str]) -> list[tuple[str, str, Any]]:
    """The corpus-level metrics' estimates (lm-eval f1, bleu ...: :mod:`evaladdon.analysis.corpus`),
    each an ``evaluation_results`` entry of its own; what cannot be recomputed is a note."""
    from evaladdon.table.usable import CORPUS_LEVEL_PREFIX

    errors = table["error"]
    if not errors.notna().any() or not errors.astype("string").str.startswith(CORPUS_LEVEL_PREFIX).fillna(False).any():
        return []
    try:
        from evaladdon.analysis.corpus import corpus_level_estimates  # type: ignore[import-not-found]
    except ImportError:
        notes.append("corpus-level metrics not exported: evaladdon's lm-eval helper is not installed")
        return []
    skipped: list[str] = []
    try:
        found = corpus_level_estimates(table, skipped=skipped)
    except (ValueError, EvalAddonError) as exc:
        notes.append(f"corpus-level metrics not exported: {exc}")
        return []
    notes.extend(f"corpus-level metric not exported: {s}" for s in skipped)
    return found
