"""Flaky items in ``summarize --flaky`` and ``compare --max-flaky`` (:mod:`evaladdon.analysis.flaky`):
one line per run, task and metric (the share of unstable items, the mean flip rate, pass@k beside
pass^k), one listing its most unstable items, and the gate's verdict.  Item ids come from logs:
these lines are escaped where they are written (:func:`evaladdon.report.text.warn`,
``markdown_list``, the HTML report)."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.report.text import fmt
from evaladdon.report.units import interval

__all__ = ["flaky_lines", "flaky_over"]


def _est(name: str, e: Any) -> str:
    return "" if e is None else f"{name} {fmt(e.estimate, 3)} ({interval(e.ci_low, e.ci_high)})"


def flaky_lines(groups: Sequence[Any], limit: int = 10) -> list[str]:
    """The lines of every group: its flakiness, then its ``limit`` most unstable items."""
    out = []
    for g in groups:
        f, where = g.items, f"{g.label} / {g.task} / {g.metric}"
        passes = ", ".join(x for x in (_est(f"pass@{g.k}", g.pass_at), _est(f"pass^{g.k}", g.pass_hat)) if x)
        out.append(f"note: {where}: flaky: {f.n_unstable} of {f.n_items} repeated item(s) unstable ({f.share_unstable:.1%}), "
                   f"mean flip rate {f.mean_flip_rate:.3f}" + (f"; {passes}" if passes else ""))
        rows = g.unstable_rows()
        if rows and limit > 0:
            shown = "; ".join(f"item {r['item']} {r['passes']}/{r['n']} ({interval(r['ci_low'], r['ci_high'])}, "
                              f"flips {r['flip_rate']:.2f})" for r in rows[:limit])
            more = f"; ... {len(rows) - limit} more (--json lists all)" if len(rows) > limit else ""
            out.append(f"note: {where}: flaky: unstable items (pass rate {f.level:.0%} Wilson CI): {shown}{more}")
    return out


def flaky_over(groups: Sequence[Any], runs: set[str], share: float) -> list[str]:
    """Why the gate fails on flakiness: each candidate group (its run in ``runs``) with more than
    ``share`` of its repeated items unstable, one line each."""
    return [f"{g.label} / {g.task} / {g.metric}: {g.items.share_unstable:.1%} of repeated items unstable "
            f"(more than --max-flaky {share:g})" for g in groups if g.run in runs and g.items.share_unstable > share]
