"""``compare --metric NAME`` for the metric families (f1_macro, roc_auc, ece, pass@k ...): the
results and gate decisions of :mod:`evaladdon.analysis.metrics` as JSON, markdown or a terminal
table (everything from a log escaped here)."""

from __future__ import annotations

import sys
from typing import Any

from evaladdon.report.escape import clean, markdown_cell
from evaladdon.report.text import console, fmt, table, write_json
from evaladdon.analysis.metrics import LOWER_IS_BETTER

__all__ = ["write_metric_comparison"]


def write_metric_comparison(results: list[Any], gates: list[Any], labels: dict[str, str], metric: str,
                            notes: list[str], stream: Any, *, json: bool = False, markdown: bool = False,
                            quiet: bool = False, regression: bool = False) -> None:
    """One output of ``results`` (``PairedMetric`` records by pair), ``gates`` (one decision per
    result, or none), ``labels`` (run -> shown name); ``regression`` adds the gate's line."""
    if json:
        records = [dict(r.flat(), **({"decision": g.decision, "margin": g.margin} if g else {}))
                   for r, g in zip(results, gates or [None] * len(results))]
        write_json({"results": records, "skipped": [], "notes": list(notes)}, stream)
        return
    rows = []
    for r in results:
        c = r.comparison
        rows.append([clean(f"{labels.get(r.run_b, r.run_b)} vs {labels.get(r.run_a, r.run_a)}"),
                     clean(f"{r.task}/{r.metric}"), fmt(c.estimate_a, 4),
                     fmt(c.estimate_b, 4), fmt(c.delta, 4), f"{fmt(c.ci_low, 4)},{fmt(c.ci_high, 4)}",
                     f"{c.p_value:.2g}", c.n_items])
    con = console(stream)
    columns = ["B vs A", "task/metric", "A", "B", "delta", "CI", "p", "n"]
    title = f"{metric}: B - A, {results[0].comparison.level:.0%} interval"
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
    for r, g in zip(results, gates):
        better = "lower is better" if metric in LOWER_IS_BETTER else "higher is better"
        con.print(f"gate: {clean(r.task)}/{clean(r.metric)}: {g.decision} (m = {g.margin:g}, {better})")
    if not quiet:
        for n in notes:
            sys.stderr.write(f"warning: {clean(n)}\n")
    if regression:
        sys.stderr.write("evaladdon: regression shown\n")
