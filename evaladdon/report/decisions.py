"""``metrics --threshold/--validation/--prevalence`` as JSON, markdown or a terminal table: per test
group the rule, the threshold chosen on the validation rows, the confusion counts on the test rows
and each rate with its interval; rows left out counted in every mode; everything from a log
escaped here."""

from __future__ import annotations

import math
from typing import Any

from evaladdon.report.escape import clean, markdown_cell
from evaladdon.report.text import console, fmt, markdown_table, table, write_json
from evaladdon.report.units import interval

__all__ = ["render_decisions"]

COLUMNS = ["run", "task/metric", "name", "estimate", "CI", "n", "method"]


def _threshold(value: float | None) -> str:
    return "-" if value is None else ("+inf" if not math.isfinite(value) else f"{value:.6g}")


def _short(method: str) -> str:
    """The table's method column (the full text is in --json)."""
    return (method.split(";")[0].replace("exact Clopper-Pearson", "exact CP")
            .replace(" at the Korn-Graubard effective n (clusters)", ", Korn-Graubard n*")
            .replace("ratio of totals, CR1 sandwich over", "CR1 t over"))


def _rows(results: list[Any], esc: Any) -> list[list[Any]]:
    rows = []
    for r in results:
        for e in r.estimates:
            n = f"{e.n_items}" + (f"/{e.n_clusters}c" if e.n_clusters is not None else "")
            rows.append([esc(r.label), esc(f"{r.task}/{r.metric}"), e.name, fmt(e.estimate, 4),
                         interval(e.ci_low, e.ci_high, digits=4), n, _short(e.method)])
    return rows


def _lines(results: list[Any], esc: Any) -> list[str]:
    """What the table cannot hold: validation, confusion counts, rows left out, notes."""
    out = []
    for r in results:
        label = esc(f"{r.label} / {r.task} / {r.metric}")
        c = r.counts
        out.append(f"decision {label}: {esc(r.rule)}, threshold {_threshold(r.threshold)} (flag score >= threshold)"
                   if r.threshold is not None else f"decision {label}: {esc(r.rule)}")
        out.append(f"confusion {label} (test rows at the threshold): TP={c['tp']} FP={c['fp']} FN={c['fn']} "
                   f"TN={c['tn']}")
        v = r.validation
        if v is not None:
            out.append(f"validation {label}: {esc(v['rows'])}, {v['n_items']} items ({v['n_positive']} positive, "
                       f"{v['n_negative']} negative rows): tpr {fmt(v['tpr'], 4)}, fpr {fmt(v['fpr'], 4)}, "
                       f"precision {fmt(v['precision'], 4)}")
            if v["dropped"]:
                out.append(f"warning: {label}: validation: {sum(v['dropped'].values())} row(s) left out "
                           f"({esc(', '.join(f'{n} {k}' for k, n in v['dropped'].items()))})")
        if r.dropped:
            out.append(f"warning: {label}: test: {sum(r.dropped.values())} row(s) left out "
                       f"({esc(', '.join(f'{n} {k}' for k, n in r.dropped.items()))})")
        out.extend(f"note: {label}: {esc(n)}" for n in r.notes)
    return out


def render_results(key: str, results: list[Any], level: float, table_of: Any, lines_of: Any, stream: Any = None, *,
                   json: bool = False, markdown: bool = False, quiet: bool = False, notes: list[str] | None = None,
                   columns: Any = None, title: str | None = None) -> None:
    """One output of results with a table and lines (decisions, recalibration): JSON under ``key``,
    else the table (``table_of(results, escape)`` rows under ``columns``), the lines, then the notes."""
    notes = list(notes or [])
    if json:
        write_json({key: [r.flat() for r in results], "notes": notes}, stream)
        return
    con = console(stream)
    columns = [c if c != "CI" else f"{level:.0%} CI" for c in (columns or COLUMNS)]
    if markdown:
        con.file.write(markdown_table(columns, table_of(results, str)))
        for line in lines_of(results, markdown_cell):
            con.file.write(f"\n{line}\n")
    else:
        con.print(table(title, columns, table_of(results, clean), n_left=3))
        for line in lines_of(results, clean):
            con.print(line)
    if not quiet:
        for n in notes:
            con.print(f"warning: {markdown_cell(n) if markdown else clean(n)}")


def render_decisions(results: list[Any], stream: Any = None, *, json: bool = False, markdown: bool = False,
                     quiet: bool = False, notes: list[str] | None = None) -> None:
    """One output of the decision results (``evaladdon.analysis.decisions.DecisionResult``)."""
    level = next((e.level for r in results for e in r.estimates), 0.95)
    render_results("decisions", results, level, _rows, _lines, stream, json=json, markdown=markdown, quiet=quiet,
                   notes=notes)
