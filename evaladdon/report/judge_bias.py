"""Judge-bias diagnostics in text and markdown: one line per bias with its effect, interval, p and
Holm-adjusted p (:func:`evaladdon.analysis.judge_bias.judge_bias`)."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.report.escape import clean, markdown_cell
from evaladdon.report.text import console, markdown_table, table
from evaladdon.report.units import interval, number

COLUMNS = ("bias", "effect", "CI", "p", "p (Holm)", "SE")
_UNIT = {"length": "per doubling of length", "headers": "with a header", "lists": "with a list",
         "bold": "with bold text", "self-preference": "judge's own family"}


def render_bias(reports: Sequence[Any], dropped: dict[str, int], stream: Any = None, markdown: bool = False) -> None:
    con = console(stream)
    esc = markdown_cell if markdown else clean
    for r in reports:
        unit = f"SE {r.biases[0][0].method}" if r.biases else ""
        title = f"{r.task} / {r.metric}: {r.outcome}, {r.n_rows} rows" + (
            f", {r.n_clusters} clusters" if r.n_clusters else "")
        rows = [[esc(f"{c.name} ({_UNIT.get(c.name, '')})"), number(c.estimate, 3, signed=True),
                 interval(c.ci_low, c.ci_high), number(c.p_value, 4), number(p, 4), number(c.se, 3)]
                for c, p in r.biases]
        if markdown:
            con.file.write(f"**{markdown_cell(title)}**\n\n" + markdown_table(COLUMNS, rows) + "\n")
        else:
            con.print(table(esc(title), COLUMNS, rows, n_left=1))
        if unit:
            con.print(f"effects on the {esc(r.outcome)} (0/1 verdicts: a share); {esc(unit)}")
        for note in r.notes:
            con.print(f"note: {esc(r.task)} / {esc(r.metric)}: {esc(note)}")
        if r.outcome == "verdict":
            con.print("note: without human labels an association is not proof of bias (longer answers may be "
                      "better); --labels regresses the judge's error instead")
    if dropped:
        con.print("left out: " + esc(", ".join(f"{v} {k}" for k, v in sorted(dropped.items()))))
