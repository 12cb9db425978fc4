"""``summarize --by`` / ``compare --by``: one row per subgroup beside the overall result, the small
subgroups flagged, and the interaction test's line (text, markdown, JSON records).  Subgroup
labels come from logs: cleaned by :func:`~evaladdon.report.text.table`, escaped by
:func:`~evaladdon.report.escape.markdown_cell` in markdown."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.analysis.subgroups import Interaction, SubgroupComparison, SubgroupSummary
from evaladdon.report.escape import markdown_cell
from evaladdon.report.text import console, fill, fmt, markdown_table, table
from evaladdon.report.units import difference, interval

__all__ = ["COMPARE_COLUMNS", "SUMMARY_COLUMNS", "interaction_line", "records", "render_subgroups"]

OVERALL = "(all)"
SUMMARY_COLUMNS = ["run", "task/metric", "subgroup", "n", "mean", "CI", "flag"]
COMPARE_COLUMNS = ["B", "A", "task/metric", "subgroup", "n", "mean A", "mean B", "delta", "CI", "p", "p adj", "flag"]


def _flag(small: bool, min_size: int) -> str:
    return f"small (n < {min_size})" if small else ""


def summary_rows(overall: Sequence[Any], subs: Sequence[SubgroupSummary], min_size: int) -> list[list[Any]]:
    """Per (run, task, metric): the overall row, then its subgroups."""
    rows = []
    for s in overall:
        key = (s.run, s.task, s.metric)
        for label, summ, small in [(OVERALL, s, False)] + [(x.subgroup, x.summary, x.small) for x in subs
                                                            if (x.summary.run, x.summary.task, x.summary.metric) == key]:
            e = summ.estimate
            rows.append([s.label or s.run, f"{s.task}/{s.metric}", label, e.n_items, fmt(e.mean, 3),
                         interval(e.ci_low, e.ci_high), _flag(small, min_size)])
    return rows


def compare_rows(overall: Sequence[Any], subs: Sequence[SubgroupComparison], min_size: int) -> list[list[Any]]:
    """Per comparison: the overall row (p adjusted across comparisons), then its subgroups (p
    adjusted across subgroups)."""
    rows = []
    for r in overall:
        key = (r.run_a, r.run_b, r.task, r.metric)
        mine = [(x.subgroup, x.comparison, x.small) for x in subs
                if (x.comparison.run_a, x.comparison.run_b, x.comparison.task, x.comparison.metric) == key]
        for label, comp, small in [(OVERALL, r, False)] + mine:
            c = comp.comparison
            rows.append([r.label_b or r.run_b, r.label_a or r.run_a, f"{r.task}/{r.metric}", label, c.n,
                         fmt(c.mean_a, 3), fmt(c.mean_b, 3), difference(c.delta, comp.points),
                         interval(c.ci_low, c.ci_high, comp.points), f"{c.p_value:.2g}",
                         "-" if comp.p_adjusted is None else f"{comp.p_adjusted:.2g}", _flag(small, min_size)])
    return rows


def interaction_line(t: Interaction) -> str:
    """``does the effect differ across subject? B vs A on task/metric: F(3, 96) = 1.20, p = 0.31 ...``."""
    w = t.test
    who = f"{t.label_b} vs {t.label_a}" if t.run_b is not None else t.label_a
    what = "the effect" if t.run_b is not None else "the mean"
    head = f"does {what} differ across {t.by}? {who} on {t.task}/{t.metric}: "
    if w.p_value is None or w.statistic is None:
        return head + f"not tested ({w.note})"
    unit = f"{w.n_clusters} clusters" if w.clustered else f"{w.n} items"
    return (head + f"F({w.df_num}, {w.df_denom}) = {w.statistic:.3g}, p = {w.p_value:.3g} "
            f"({'cluster-robust' if w.clustered else 'robust'} Wald test of equal subgroup means, "
            f"{w.n_groups} subgroups, {unit})")


def lower_note(overall: Sequence[Any]) -> str:
    """``; lower is better: task/metric, ...`` for the compared metrics where a lower score is
    better (as each comparison's verdict line says it: :func:`evaladdon.report.compare.direction_note`),
    so a subgroup table's negative deltas read the right way; nothing otherwise (tables unchanged)."""
    lower = list(dict.fromkeys(f"{r.task}/{r.metric}" for r in overall if getattr(r, "lower_is_better", False)))
    return f"; lower is better: {', '.join(lower)}" if lower else ""


def render_subgroups(overall: Sequence[Any], found: Any, min_size: int, stream: Any = None,
                     markdown: bool = False, wide: bool = False) -> None:
    """The subgroup table (summaries or comparisons, by what ``found`` holds) and the interaction lines."""
    subs, interactions = found
    con = console(stream)
    comparing = bool(overall) and hasattr(overall[0], "comparison")
    columns = COMPARE_COLUMNS if comparing else SUMMARY_COLUMNS
    rows = compare_rows(overall, subs, min_size) if comparing else summary_rows(overall, subs, min_size)
    by = interactions[0].by if interactions else (subs[0].by if subs else "")
    title = f"by {by}" + (" (p adj: across subgroups; (all): across comparisons)" if comparing else "")
    title += lower_note(overall)
    lines = [interaction_line(t) for t in interactions]
    if markdown:
        con.file.write(f"**{markdown_cell(title)}**\n\n" + markdown_table(columns, rows) + "\n")
        for line in lines:
            con.file.write(markdown_cell(line) + "\n\n")
        return
    con.print(table(title, columns, rows, n_left=4 if comparing else 3, drop=("mean A", "mean B"), wide=wide,
                    names=2 if comparing else 1))
    for line in lines:
        con.print(fill(line, con, wide))


def records(found: Any) -> list[dict[str, Any]]:
    """JSON: a ``subgroup`` record per subgroup result, an ``interaction`` record per test."""
    subs, interactions = found
    return [s.flat() for s in subs] + [t.flat() for t in interactions]
