"""Metric families (f1_macro, roc_auc, ece, pass@k ...) as JSON, markdown or a terminal table:
``metrics`` (one estimate per group, :func:`render`) and ``compare --metric NAME`` (paired
results and gate decisions, :func:`write_metric_comparison`); everything from a log escaped here."""

from __future__ import annotations

import sys
from typing import Any

from evaladdon.report.escape import clean, markdown_cell
from evaladdon.report.text import console, fmt, table, write_json
from evaladdon.analysis.metrics import in_points
from evaladdon.table.direction import direction_word, named_lower
from evaladdon.report.units import describe, difference, interval

__all__ = ["COLUMNS", "render", "short_method", "write_metric_comparison"]

COLUMNS = ["run", "task/metric", "name", "estimate", "CI", "n", "method"]


def write_metric_comparison(results: list[Any], gates: list[Any], labels: dict[str, str], metric: str,
                            notes: list[str], stream: Any, *, json: bool = False, markdown: bool = False,
                            quiet: bool = False, regression: bool = False) -> None:
    """One output of ``results`` (``PairedMetric`` records by pair), ``gates`` (one decision per
    result, or none), ``labels`` (run -> shown name); ``regression`` adds the gate's line."""
    if json:
        records = [dict(r.flat(), **({"decision": g.decision, "margin": g.margin} if g else {}))
                   for r, g in zip(results, gates or [None] * len(results), strict=True)]
        write_json({"results": records, "skipped": [], "notes": list(notes)}, stream)
        return
    points = [in_points(metric, r.comparison) for r in results]  # the scale metric_gates reads --margin on
    rows = []
    for r, pts in zip(results, points, strict=True):
        c = r.comparison
        rows.append([clean(f"{labels.get(r.run_b, r.run_b)} vs {labels.get(r.run_a, r.run_a)}"),
                     clean(f"{r.task}/{r.metric}"), fmt(c.estimate_a, 4),
                     fmt(c.estimate_b, 4), difference(c.delta, pts), interval(c.ci_low, c.ci_high, pts),
                     f"{c.p_value:.2g}", c.n_items])
    con = console(stream)
    columns = ["B vs A", "task/metric", "A", "B", "delta", "CI", "p", "n"]
    unit = ("delta and CI in points" if all(points) else "delta and CI in the metric's own units" if not any(points)
            else "delta and CI in points, except the rows marked (units) in the metric's own units")
    if any(points) and not all(points):
        rows = [row if pts else [*row[:4], f"{row[4]} (units)", *row[5:]] for row, pts in zip(rows, points, strict=True)]
    title = f"{metric}: B - A, {results[0].comparison.level:.0%} interval; {unit}"
    if markdown:
        con.file.write(f"**{markdown_cell(title)}**\n\n| " + " | ".join(columns) + " |\n|---|---|"
                       + "---:|" * (len(columns) - 2) + "".join("\n| " + " | ".join(markdown_cell(v) for v in r)
                                                            + " |" for r in rows) + "\n")
    else:
        con.print(table(title, columns, rows, n_left=2))
    for r in results:
        con.print(f"method: {r.comparison.method}")
        if r.n_left_out:
            con.print(f"warning: {clean(f'{r.run_b} vs {r.run_a} / {r.task} / {r.metric}')}: "
                      f"{r.n_left_out} row(s) not shared by both runs (left out)")
        for n in r.comparison.notes:
            con.print(f"note: {clean(n)}")
    for r, g, pts in zip(results, gates, points, strict=False):  # (no gate asked: no gates, no lines)
        better = direction_word(named_lower(metric))
        con.print(f"gate: {clean(r.task)}/{clean(r.metric)}: {g.decision} (m = {describe(g.margin, pts)}, {better})")
    if not quiet:
        for n in notes:
            sys.stderr.write(f"warning: {clean(n)}\n")
    if regression:
        sys.stderr.write("evaladdon: regression shown\n")


def short_method(method: str) -> str:
    """The table's method column: the method without its parenthesised details."""
    return method.split(" (")[0].replace("bootstrap", "boot").replace("mean of per-item unbiased estimates, ", "")


def _corpus_inputs_used(group: Any) -> bool:
    """A group of a corpus-level metric whose rows are all its per-item inputs and whose estimate
    was computed from them (:mod:`evaladdon.analysis.corpus`): used, not left out (``--json``
    still counts them under their reason)."""
    from evaladdon.table.usable import CORPUS_LEVEL_PREFIX

    return any(e.name == group.metric for e in group.estimates) and all(
        str(k).startswith(CORPUS_LEVEL_PREFIX) for k in group.dropped)


def _plugin_payload(group: Any) -> bool:
    """A group whose every row is an evaladdon lm-eval plug-in payload (no estimate, no other reason)."""
    from evaladdon.table.usable import PLUGIN_PAYLOAD

    return not group.estimates and set(group.dropped) == {PLUGIN_PAYLOAD}


def _rows(groups: list[Any], esc: Any) -> list[list[Any]]:
    rows = []
    for g in groups:
        for e in g.estimates:
            if "[" in e.name:  # per-class precision/recall/F1: in --json only
                continue
            n = f"{e.n_items}" + (f"/{e.n_clusters}c" if e.n_clusters is not None else "")
            rows.append([esc(g.label), esc(f"{g.task}/{g.metric}"), esc(e.name), fmt(e.estimate, 4),
                         interval(e.ci_low, e.ci_high), n, short_method(e.method)])
    return rows


def render(groups: list[Any], stream: Any = None, quiet: bool = False, markdown: bool = False,
           notes: list[str] | None = None) -> None:
    con = console(stream)
    esc = markdown_cell if markdown else clean
    level = next((e.level for g in groups for e in g.estimates), 0.95)
    columns = [c if c != "CI" else f"{level:.0%} CI" for c in COLUMNS]
    if markdown:  # cells escaped here once (markdown_table would escape '|' a second time)
        head = "| " + " | ".join(columns) + " |\n|" + "|".join("---" if i < 3 else "---:" for i in range(len(columns)))
        body = "".join("\n| " + " | ".join(markdown_cell(v) if i >= 3 else str(v) for i, v in enumerate(r)) + " |"
                       for r in _rows(groups, esc))
        con.file.write(head + "|" + body + "\n")
    else:
        con.print(table(None, columns, _rows(groups, esc), n_left=3))
    ours = [g for g in groups if _plugin_payload(g)]  # evaladdon's own payloads: one counted line
    groups = [g for g in groups if not _plugin_payload(g)]
    if ours:
        con.print(f"note: {len(ours)} group(s) of evaladdon's own lm-eval plug-in payloads left out "
                  f"({sum(sum(g.dropped.values()) for g in ours)} rows; --json lists them)")
    for g in groups:  # rows left out are said in every mode
        label = esc(f"{g.label} / {g.task} / {g.metric}")
        if g.dropped and not _corpus_inputs_used(g):
            con.print(f"warning: {label}: {sum(g.dropped.values())} row(s) left out "
                      f"({esc(', '.join(f'{v} {k}' for k, v in g.dropped.items()))})")
        for family, dropped in g.family_dropped.items():
            con.print(f"warning: {label}: {family}: {sum(dropped.values())} row(s) left out "
                      f"({', '.join(f'{v} {k}' for k, v in dropped.items())})")
    from evaladdon.report.errors import must_stay

    if quiet:  # what was left out stays (the error rates and the --errors policy)
        for note in (n for n in notes or [] if must_stay(n)):
            con.print(esc(note) if note.startswith(("note:", "warning:")) else f"warning: {esc(note)}")
        return
    con.print("per-class precision/recall/F1 and full method descriptions: --json")
    for note in notes or []:
        con.print(esc(note) if note.startswith(("note: ", "warning: ")) else f"warning: {esc(note)}")
    for g in groups:
        label = esc(f"{g.label} / {g.task} / {g.metric}")
        for family, why in g.missing.items():
            if not (family == "all" and _corpus_inputs_used(g)):  # its estimate came from those rows
                con.print(f"missing: {label}: {family}: {esc(why)}")
        if g.confusion is not None:
            con.print(f"confusion {label} (rows true, columns predicted; {esc(', '.join(g.confusion['labels']))}): "
                      f"{g.confusion['matrix']}")
        seen: set[str] = set()
        for e in g.estimates:
            for n in e.notes:
                if n not in seen:
                    seen.add(n)
                    con.print(f"note: {label}: {esc(n)}")
