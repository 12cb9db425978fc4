"""``compare --equivalence M`` output: one row per comparison with the TOST's interval, p and
verdict ("equivalent" / "not shown equivalent"), on the comparison's scale (points or the
metric's own units, :mod:`evaladdon.report.units`); text and markdown from the same rows (every
name from a log escaped by :mod:`evaladdon.report.text`)."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.analysis.equivalence import EquivalenceRow
from evaladdon.report.escape import clean
from evaladdon.report.text import console, markdown_cell, markdown_table, table
from evaladdon.report.units import column_unit, describe, difference, interval, level_text

__all__ = ["COLUMNS", "rows_of", "title_of", "write"]

COLUMNS = ["task/metric", "B vs A", "delta", "CI", "margin", "p (TOST)", "verdict"]


def rows_of(rows: Sequence[EquivalenceRow]) -> list[list[Any]]:
    """One row per comparison: the TOST's ``1 - 2 alpha`` interval, ``+/- m``, p and verdict."""
    out = []
    for row in rows:
        r, e = row.comparison, row.result
        p = "-" if e.p_value != e.p_value else f"{e.p_value:.3g}"
        out.append([f"{r.task}/{r.metric}", f"{r.label_b or r.run_b} vs {r.label_a or r.run_a}",
                    difference(e.delta, r.points), interval(e.ci_low, e.ci_high, r.points),
                    "±" + describe(e.margin, r.points).split(" (")[0], p, e.verdict])
    return out


def title_of(rows: Sequence[EquivalenceRow]) -> str:
    """What the table shows: the margin as given, alpha and the interval's level, the unit."""
    e = rows[0].result
    levels = sorted({row.result.alpha for row in rows})
    ci = level_text(1 - 2 * levels[0]) if len(levels) == 1 else "1 - 2 alpha"
    unit = column_unit([row.comparison.points for row in rows])
    return f"equivalence within ±{rows[0].margin_text} (TOST at alpha {e.alpha:.3g}: the {ci} CI inside ±m; {unit})"


def write(rows: Sequence[EquivalenceRow], stream: Any, markdown: bool = False) -> None:
    """The equivalence table after the comparison's own output, with the notes of zero-SE cases."""
    if not rows:
        return
    notes = [f"{row.comparison.task}/{row.comparison.metric}: {row.result.note}" for row in rows if row.result.note]
    if markdown:
        stream.write(f"\n**{markdown_cell(title_of(rows))}**\n\n")
        stream.write(markdown_table(COLUMNS, rows_of(rows)))
        for line in notes:
            stream.write(f"\n- {markdown_cell(line)}\n")
        return
    stream.write("\n")
    console(stream).print(table(title_of(rows), COLUMNS, rows_of(rows), n_left=2, drop=("B vs A", "margin")))
    for line in notes:
        stream.write(clean(line) + "\n")
