"""The HTML report's sections for flaky items (``report --flaky [N]``) and subgroups
(``report --by FIELD``): the same numbers and words as ``summarize --flaky`` and
``summarize/compare --by`` (:mod:`evaladdon.report.flaky`, :mod:`evaladdon.report.subgroups`),
as tables.  Item ids, subgroup labels and run names come from logs: every cell and line is
cleaned of control characters (:func:`~evaladdon.report.escape.clean`) and HTML-escaped here."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.report.escape import html_text
from evaladdon.report.subgroups import (COMPARE_COLUMNS, SUMMARY_COLUMNS, compare_rows, interaction_line, lower_note,
                                        summary_rows)
from evaladdon.report.text import fmt
from evaladdon.report.units import interval

__all__ = ["flaky_section", "subgroups_section"]


def _cell(value: Any) -> str:
    return html_text(fmt(value))


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{_cell(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _note(text: str, kind: str = "note") -> str:
    return f"<p class='{kind}'>{html_text(text)}</p>"


def _est(e: Any) -> str:
    return "-" if e is None else f"{fmt(e.estimate, 3)} ({interval(e.ci_low, e.ci_high)})"


def flaky_section(groups: Sequence[Any], limit: int = 10) -> str:
    """*Flaky items over repeats*: per run, task and metric (:class:`~evaladdon.analysis.flaky.FlakyGroup`)
    the repeated and unstable items, the mean flip rate and pass@k beside pass^k; then its ``limit``
    most unstable items (0: all), the most flipping first, each with its pass rate's Wilson interval."""
    parts = ["<h2>Flaky items over repeats</h2>"]
    if not groups:
        return "\n".join(parts + [_note("no run repeats an item with 0/1 scores: nothing is flaky or stable")])
    rows = [[g.label, f"{g.task}/{g.metric}", g.items.n_items, g.items.n_unstable, f"{g.items.share_unstable:.1%}",
             fmt(g.items.mean_flip_rate, 3), g.k, _est(g.pass_at), _est(g.pass_hat)] for g in groups]
    parts.append(_table(["run", "task/metric", "repeated items", "unstable", "share unstable", "mean flip rate", "k",
                         "pass@k (CI)", "pass^k (CI)"], rows))
    for g in groups:
        unstable = g.unstable_rows()
        if not unstable:
            continue
        shown = unstable if limit == 0 else unstable[:limit]
        parts.append(f"<h3>{html_text(f'{g.label} / {g.task} / {g.metric}')}: unstable items</h3>")
        parts.append(_table(["item", "passes", "attempts", "pass rate", f"{g.items.level:.0%} Wilson CI", "flip rate"],
                            [[r["item"], r["passes"], r["n"], fmt(r["pass_rate"], 3),
                              interval(r["ci_low"], r["ci_high"]), fmt(r["flip_rate"], 2)] for r in shown]))
        if len(unstable) > len(shown):
            parts.append(_note(f"... {len(unstable) - len(shown)} more unstable item(s) (--flaky 0 lists all)"))
    parts.append(_note("flip rate: the share of pairs of an item's attempts that disagree, 2c(n-c)/(n(n-1)); "
                       "pass@k: solved at least once in k attempts, pass^k: every time (Chen et al. 2021; "
                       "Yao et al. 2024)"))
    return "\n".join(parts)


def subgroups_section(found: Any, overall: Sequence[Any], min_size: int) -> str:
    """*By FIELD*: the subgroup table of ``summarize --by`` (``overall`` summaries) or ``compare --by``
    (``overall`` comparisons), with the overall row ``(all)``, small subgroups flagged, and the
    interaction test's line per run or comparison; ``found``: (subgroup results, interactions)."""
    subs, interactions = found
    comparing = bool(overall) and hasattr(overall[0], "comparison")
    by = interactions[0].by if interactions else (subs[0].by if subs else "")
    rows = compare_rows(overall, subs, min_size) if comparing else summary_rows(overall, subs, min_size)
    what = "Paired comparisons" if comparing else "Scores"
    adj = " (p adj: across subgroups; (all): across comparisons)" if comparing else ""
    parts = [f"<h2>{what} by {html_text(by)}</h2>", _note(f"subgroups of fewer than {min_size} items are "
                                                                    f"flagged small{adj}{lower_note(overall)}"),
             _table(COMPARE_COLUMNS if comparing else SUMMARY_COLUMNS, rows)]
    parts += [_note(interaction_line(t), "verdict") for t in interactions]
    return "\n".join(parts)
