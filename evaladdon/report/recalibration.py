"""``metrics --recalibrate METHOD --validation ...`` as JSON, markdown, a terminal table, or an HTML
section with reliability diagrams before and after; everything from a log escaped here."""

from __future__ import annotations

from typing import Any

from evaladdon.report.escape import html_text
from evaladdon.report.text import fmt
from evaladdon.report.units import interval

__all__ = ["recalibration_section", "render_recalibration"]

COLUMNS = ["run", "task/metric", "name", "before", "after", "after - before", "CI", "p", "n"]


def _rows(results: list[Any], esc: Any) -> list[list[Any]]:
    from evaladdon.analysis.recalibration import SHOWN

    rows = []
    for r in results:
        for c in r.change:
            if c.name not in SHOWN:
                continue
            n = f"{c.n_items}" + (f"/{c.n_clusters}c" if c.n_clusters is not None else "")
            rows.append([esc(r.label), esc(f"{r.task}/{r.metric}"), c.name, fmt(c.estimate_a, 4), fmt(c.estimate_b, 4),
                         fmt(c.delta, 4), interval(c.ci_low, c.ci_high, digits=4), f"{c.p_value:.2g}", n])
    return rows


def _lines(results: list[Any], esc: Any) -> list[str]:
    out = []
    for r in results:
        label = esc(f"{r.label} / {r.task} / {r.metric}")
        v = r.validation
        out.append(f"fit {label}: {esc(r.fit)} on {esc(v['rows'])} ({v['n_items']} items); forecast: {esc(r.forecast)}")
        for side, dropped in (("validation", v["dropped"]), ("test", r.dropped)):
            if dropped:
                out.append(f"warning: {label}: {side}: {sum(dropped.values())} row(s) left out "
                           f"({esc(', '.join(f'{n} {k}' for k, n in dropped.items()))})")
        out.extend(f"note: {label}: {esc(n)}" for n in r.notes)
    return out


def render_recalibration(results: list[Any], stream: Any = None, *, json: bool = False, markdown: bool = False,
                         quiet: bool = False, notes: list[str] | None = None) -> None:
    from evaladdon.report.decisions import render_results

    level = next((c.level for r in results for c in r.change), 0.95)
    render_results("recalibration", results, level, _rows, _lines, stream, json=json, markdown=markdown, quiet=quiet,
                   notes=notes, columns=COLUMNS,
                   title="calibration on the test rows, before and after (paired, same cluster weights)")


def recalibration_section(results: list[Any]) -> str:
    """The HTML section: the before/after table and one reliability diagram per group (before and
    after overlaid)."""
    from evaladdon.report.html import _img, _table, plot_label
    from evaladdon.report.plots import reliability_diagram

    if not results:
        return ""
    parts = ["<h2>Recalibration (fitted on validation rows, judged on test rows)</h2>",
             _table(COLUMNS, _rows(results, str))]
    parts += [f"<p class='note'>{html_text(line)}</p>" for line in _lines(results, str)]
    for r in results:
        curves = [(plot_label(f"{side} ({r.fit.split(',')[0]})" if side == "after" else side),
                   [b.mean_forecast for b in cal.bins], [b.mean_outcome for b in cal.bins],
                   [b.count for b in cal.bins]) for side, cal in (("before", r.before), ("after", r.after))]
        title = plot_label(f"{r.label} {r.task}/{r.metric}: reliability before and after")
        parts.append(_img(reliability_diagram(curves, title=title), f"reliability diagram {r.label} {r.task}"))
    return "\n".join(parts)
