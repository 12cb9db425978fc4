"""Judge-bias diagnostics in text and markdown: one line per bias with its effect, interval, p and
Holm-adjusted p (:func:`evaladdon.analysis.judge_bias.judge_bias`)."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.report.escape import clean, markdown_cell
from evaladdon.report.text import console, markdown_table, table
from evaladdon.report.units import interval, number

COLUMNS = ("bias", "effect", "CI", "p", "p (Holm)", "SE")
_UNIT = {"position": "first shown", "length": "per doubling of length", "headers": "with a header", "lists": "with a list",
         "bold": "with bold text", "self-preference": "judge's own family"}


def render_bias(reports: Sequence[Any], dropped: dict[str, int], stream: Any = None, markdown: bool = False) -> None:
    con = console(stream)
    esc = markdown_cell if markdown else clean
    for r in reports:
        unit = r.biases[0][0].method if r.biases else ""
        title = f"{r.task} / {r.metric}: {r.outcome}, {r.n_rows} rows" + (
            f", {r.n_clusters} clusters" if r.n_clusters else "")
        cell = (lambda v: v) if markdown else clean  # markdown_table escapes its cells itself
        rows = [[cell(f"{c.name} ({_UNIT.get(c.name, '')})"), number(c.estimate, 3, signed=True),
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
        if r.outcome.startswith("first-shown"):
            con.print("note: pairwise effects on the first-shown answer's score (1 win, 0.5 tie, 0 loss), models' "
                      "strengths held fixed; length, headers, lists, bold: the first answer's minus the second's")
        if r.outcome == "verdict":
            con.print("note: without human labels an association is not proof of bias (longer answers may be "
                      "better); --labels regresses the judge's error instead")
    if dropped:
        con.print("left out: " + esc(", ".join(f"{v} {k}" for k, v in sorted(dropped.items()))))


DRIFT_COLUMNS = ("items", "n", "A", "B", "B - A", "CI", "test", "p")


def _drift_row(what: str, c: Any) -> list[Any]:
    from evaladdon.report.units import difference

    f = c.flat()
    return [what, f["n"], number(f["mean_a"], 3), number(f["mean_b"], 3), difference(f["delta"], c.points),
            interval(f["ci_low"], f["ci_high"], c.points), f["test"], number(f["p_value"], 4)]


def render_drift(reports: Sequence[Any], labels: dict[str, str], stream: Any = None, markdown: bool = False) -> None:
    """Judge drift (:func:`evaladdon.analysis.judge_drift.judge_drift`): the judge's change on the
    same outputs beside the headline difference, and the share of it the judge explains."""
    con = console(stream)
    esc = markdown_cell if markdown else clean
    for r in reports:
        title = (f"B = {labels.get(r.run_b, r.run_b)} vs A = {labels.get(r.run_a, r.run_a)}, {r.task} / {r.metric}: "
                 f"{r.n_same_output} of {r.n_shared} shared items have the same outputs")
        rows = [_drift_row("all shared (headline)", r.headline)]  # fixed words: no escaping needed
        if r.judge_change is not None:
            rows.append(_drift_row("same outputs (the judge's change)", r.judge_change))
        if markdown:
            con.file.write(f"**{markdown_cell(title)}**\n\n" + markdown_table(DRIFT_COLUMNS, rows) + "\n")
        else:
            con.print(table(esc(title), DRIFT_COLUMNS, rows, n_left=1))
        if r.share is not None:
            est, low, high = (v + 0.0 for v in (r.share.estimate, r.share.low, r.share.high))  # no "-0.000"
            con.print(f"share of the headline difference from re-judging the same outputs: {number(est, 3)} "
                      f"({interval(low, high)}, {r.share.level:.0%} {r.share.method})")
        for note in r.notes:
            con.print(f"note: {esc(note)}")
