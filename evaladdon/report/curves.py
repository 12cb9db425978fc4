"""ROC and precision-recall curves with pointwise bands in the HTML report: one figure per
(task, scorer), every run of it overlaid (two runs for a comparison); names from logs drawn
literally (:mod:`evaladdon.report.plots`) and escaped in the HTML."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.report.escape import html_text
from evaladdon.report.plots import _label, _literal, _plt, _png

__all__ = ["curves_plot", "curves_section"]


@_literal
def curves_plot(curves: Sequence[Any], title: str) -> bytes:
    """ROC (left) and precision-recall (right) of ``curves`` (``CurveSet`` records), each with
    its pointwise band shaded."""
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.6))
    ax1.plot([0, 1], [0, 1], color="#999999", lw=1, ls="--", label="chance")
    for c in curves:
        line = ax1.step(c.fpr, c.tpr, where="post", lw=1.4, label=_label(c.label))[0]
        b = c.bands
        if b is not None:
            ax1.fill_between(b.fpr_grid, b.tpr_low, b.tpr_high, step="post", color=line.get_color(), alpha=0.2)
        ax2.step(c.recall, c.precision, where="post", lw=1.4, color=line.get_color(), label=_label(c.label))
        if b is not None:
            ax2.fill_between(b.recall_grid, b.precision_low, b.precision_high, color=line.get_color(), alpha=0.2)
    level = next((c.bands.level for c in curves if c.bands is not None), 0.95)
    ax1.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="false positive rate", ylabel="true positive rate (recall)",
            title=f"ROC, {level:.0%} pointwise band")
    ax2.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="recall", ylabel="precision",
            title=f"precision-recall, {level:.0%} pointwise band")
    for ax in (ax1, ax2):
        if len(curves) <= 8:
            ax.legend(fontsize=7, loc="lower right" if ax is ax1 else "lower left")
    fig.suptitle(_label(title))
    return _png(fig)


def curves_section(curves: Sequence[Any]) -> str:
    """The HTML section (empty string when no group has scores and labels)."""
    from evaladdon.report.html import _img, plot_label

    drawn = [c for c in curves if c.missing is None and c.fpr is not None]
    if not curves:
        return ""
    parts = ["<h2>ROC and precision-recall curves</h2>",
             "<p class='note'>Shaded: pointwise cluster-bootstrap bands (vertical averaging: TPR at each FPR, "
             "interpolated precision at each recall); runs of one task and scorer overlaid.</p>"]
    keys = list(dict.fromkeys((c.task, c.metric) for c in drawn))
    for task, metric in keys:
        group = [c for c in drawn if (c.task, c.metric) == (task, metric)]
        parts.append(_img(curves_plot(group, plot_label(f"{task}/{metric}")), f"ROC and PR curves {task}/{metric}"))
    for c in curves:
        where = f"{c.label} / {c.task} / {c.metric}"
        if c.missing is not None:
            parts.append(f"<p class='note'>{html_text(f'{where}: curves not drawn: {c.missing}')}</p>")
        if c.dropped:
            left = ", ".join(f"{n} {k}" for k, n in c.dropped.items())
            parts.append(f"<p class='warn'>{html_text(f'{where}: {sum(c.dropped.values())} row(s) left out ({left})')}"
                         "</p>")
    return "\n".join(parts)
