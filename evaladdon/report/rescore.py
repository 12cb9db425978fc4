"""Scoring-rule sensitivity in text and markdown: a comparison under the logged scorer and under
each rule, side by side (:func:`evaladdon.analysis.rescore.compare_rules`), with the rules'
normalisation stated and a flag when the ranking reverses or the significance depends on the rule."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.analysis.rescore import Rule, RuleComparison
from evaladdon.report.escape import clean, markdown_cell
from evaladdon.report.text import console, markdown_table, table
from evaladdon.report.units import difference, interval, number

COLUMNS = ("rule", "n", "A", "B", "B - A", "CI", "test", "p", "A only right", "B only right")


def _row(rule: str, c: Any) -> list[Any]:
    if isinstance(c, str):
        return [rule, "-", "-", "-", "-", "-", "-", "-", "-", c]
    f, pts = c.flat(), c.points
    return [rule, f["n"], number(f["mean_a"], 3), number(f["mean_b"], 3), difference(f["delta"], pts),
            interval(f["ci_low"], f["ci_high"], pts), f["test"], number(f["p_value"], 4),
            "-" if f["n10"] is None else f["n10"], "-" if f["n01"] is None else f["n01"]]


def render_rules(found: Sequence[RuleComparison], rules: Sequence[Rule], labels: dict[str, str],
                 stream: Any = None, markdown: bool = False) -> None:
    """One table per (pair, task, metric); differences in points for 0/1 scores."""
    con = console(stream)
    esc = markdown_cell if markdown else clean
    for rc in found:
        title = (f"B = {labels.get(rc.run_b, rc.run_b)} vs A = {labels.get(rc.run_a, rc.run_a)}, "
                 f"{rc.task} / {rc.metric}")
        cell = (lambda v: v) if markdown else clean  # markdown_table escapes its cells itself
        rows = [[cell(r), *cells[1:-1], cell(cells[-1])] for r, c in rc.rows for cells in [_row(r, c)]]
        if markdown:
            con.file.write(f"**{markdown_cell(title)}**\n\n" + markdown_table(COLUMNS, rows) + "\n")
        else:
            con.print(table(esc(title), COLUMNS, rows, n_left=1))
        for flag in rc.flags:
            con.print(f"warning: {esc(title)}: {esc(flag)}")
    con.print("differences in points for 0/1 scores; 'A only right' and 'B only right' count the discordant "
              "items (0/1 items without epochs)")
    for rule in rules:
        con.print(f"rule {esc(rule.describe())}")
