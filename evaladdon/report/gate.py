"""``evaladdon gate`` output: the overall verdict and its exit code first, one row per benchmark
(tier, mode, delta and interval, allowed drop, p, verdict, why), then the exit rule; text,
``--markdown`` (a PR comment) and ``--json`` from the same :class:`~evaladdon.analysis.gate_policy.GateVerdict`
(every name from a log or the policy escaped: :mod:`evaladdon.report.text`, :mod:`evaladdon.report.escape`)."""

from __future__ import annotations

from typing import Any

from evaladdon.analysis.gate_policy import GateVerdict, rule_text
from evaladdon.report.escape import clean, markdown_cell
from evaladdon.report.text import console, markdown_list, markdown_table, table
from evaladdon.report.units import difference, interval, magnitude

__all__ = ["COLUMNS", "headline", "rows_of", "write"]

COLUMNS = ["benchmark", "candidate", "tier", "mode", "delta", "CI", "max drop", "p", "n", "verdict", "why"]
DROP = ("why", "mode", "n", "p", "candidate", "max drop")
"""Columns left out, in this order, when the text table does not fit (``--wide`` keeps all)."""


def rows_of(g: GateVerdict) -> list[list[Any]]:
    """One row per benchmark and candidate; ``-`` where a MISSING benchmark has no numbers."""
    rows = []
    for v in g.benchmarks:
        b, r = v.benchmark, v.comparison
        label = _label(v)
        if r is None:
            rows.append([label, v.label_b, b.tier, b.mode, "-", "-", b.max_drop.text if b.max_drop else "-", "-", "-",
                         v.verdict, v.why])
            continue
        c, pts = r.comparison, r.points
        p = c.p_value if r.p_adjusted is None else r.p_adjusted
        if v.equivalence is not None and v.equivalence.p_value == v.equivalence.p_value:
            p = v.equivalence.p_value
        unit = " pts" if pts else ""
        n = f"{c.n}" + (f"/{c.n_clusters}c" if c.n_clusters else "")
        rows.append([label, v.label_b, b.tier, b.mode, difference(c.delta, pts), interval(c.ci_low, c.ci_high, pts),
                     magnitude(v.margin, pts) + unit, f"{p:.2g}", n, v.verdict, v.why])
    return rows


def _label(v: Any) -> str:
    """The benchmark's name, with the task/metric it matched when its pattern is not one metric."""
    b, r = v.benchmark, v.comparison
    if r is None or (b.metric is not None and not any(ch in b.task + b.metric for ch in "*?[")):
        return str(b.name)
    if b.name == b.task:  # the default name: the task/metric itself
        return f"{r.task}/{r.metric}"
    return f"{b.name} ({r.task}/{r.metric})"


def headline(g: GateVerdict) -> str:
    """``gate: NO-GO (exit 1): critical reading (cand): NO-GO``."""
    first = f"gate: {g.verdict} (exit {g.exit_code})"
    return first + (": " + "; ".join(g.deciding) if g.deciding else ": every critical benchmark is GO")


def _explain(g: GateVerdict) -> str:
    """How the numbers were made and the exit rule, in one line."""
    p = g.policy
    compared = [v.comparison for v in g.benchmarks if v.comparison is not None]
    level = f"intervals at {compared[0].comparison.level:.3g}; " if compared else ""
    return (f"policy {p.source}; {level}p {p.adjust}-adjusted over {len(compared)} comparison(s) (for equivalence "
            f"the TOST's p); rule: {rule_text(p)}")


def write(g: GateVerdict, stream: Any, markdown: bool = False, wide: bool = False, quiet: bool = False) -> None:
    """The verdict, the table and the rule (markdown: a heading, the table, the rule as a list)."""
    if markdown:
        stream.write(f"### evaladdon gate: {markdown_cell(g.verdict)} (exit {g.exit_code})\n\n")
        if g.deciding:
            stream.write(markdown_list(g.deciding).lstrip("\n") + "\n")
        stream.write(markdown_table(COLUMNS, rows_of(g)))
        stream.write(markdown_list([_explain(g)]))
        return
    stream.write(clean(headline(g)) + "\n")
    console(stream).print(table(None, COLUMNS[:-1], [row[:-1] for row in rows_of(g)], n_left=4, drop=DROP[1:],
                                wide=wide))
    if not quiet:  # the reasons as lines (a column of sentences does not fit a terminal)
        for v, row in zip(g.benchmarks, rows_of(g), strict=True):
            stream.write(clean(f"{row[0]} ({v.label_b}): {v.verdict}: {v.why}") + "\n")
        stream.write(clean(_explain(g)) + "\n")
