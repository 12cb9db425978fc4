"""``judge`` output: one row per run, task and metric (observed and corrected rate, interval,
the judge's sensitivity, specificity and kappa), and the rows left out and notes."""

from __future__ import annotations

from typing import Any

from evaladdon.report.text import console, fmt, markdown_table, table
from evaladdon.report.units import interval

__all__ = ["judge_warnings", "write_judge_table"]

COLUMNS = ["run", "task/metric", "observed", "corrected", "CI", "Se", "Sp", "kappa", "labelled"]


def judge_warnings(results: list[dict[str, Any]]) -> list[str]:
    """Rows left out (by reason) and notes, one line each."""
    dropped_lines = [f"warning: {r['label']} / {r['task']} / {r['metric']}: {r['n_dropped']} row(s) left out ("
                     + ", ".join(f"{v} {k}" for k, v in r["dropped"].items()) + ")" for r in results if r["n_dropped"]]
    note_lines = [f"note: {r['label']} / {r['task']} / {r['metric']}: {n}" for r in results for n in r["notes"]]
    return dropped_lines + note_lines


def write_judge_table(results: list[dict[str, Any]], *, markdown: bool = False, wide: bool = False) -> None:
    """The table on stdout (markdown, or a terminal table that drops columns to fit)."""
    rows = [[r["label"], f"{r['task']}/{r['metric']}", fmt(r["observed"], 3), fmt(r["corrected"], 3),
             interval(r['ci_low'], r['ci_high']), fmt(r["sensitivity"], 3), fmt(r["specificity"], 3),
             fmt(r["kappa"], 3), r["n_labelled"]] for r in results]
    con = console()
    if markdown:
        con.file.write(markdown_table(COLUMNS, rows))
    else:
        con.print(table(None, COLUMNS, rows, n_left=2, drop=("kappa", "Sp", "Se", "labelled"), wide=wide))
