"""Plots for the HTML report, as PNG bytes (matplotlib, the optional ``plot`` extra)."""

from __future__ import annotations

import io
from typing import Any, Sequence

from evaladdon.errors import EvalAddonError


def _plt() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise EvalAddonError("plots need matplotlib: pip install 'evaladdon[plot]'") from None
    return plt


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    _plt().close(fig)
    return buf.getvalue()


def forest_plot(labels: Sequence[str], delta: Sequence[float], low: Sequence[float], high: Sequence[float],
                title: str = "Paired differences (B - A), points") -> bytes:
    plt = _plt()
    n = len(labels)
    fig, ax = plt.subplots(figsize=(7.5, 0.5 * n + 1.4))
    ys = list(range(n))[::-1]
    d = [100 * x for x in delta]
    err_lo = [100 * (x - lo) for x, lo in zip(delta, low)]
    err_hi = [100 * (hi - x) for x, hi in zip(delta, high)]
    ax.errorbar(d, ys, xerr=[err_lo, err_hi], fmt="o", color="#1f4e79", ecolor="#6b8fb5", capsize=4)
    ax.axvline(0, color="#999999", lw=1, ls="--")
    ax.set_yticks(ys)
    ax.set_yticklabels(labels)
    ax.set_xlabel("difference in points (interval at the report's level)")
    ax.set_title(title)
    return _png(fig)


def power_curve_plot(curves: Sequence[tuple[str, Sequence[float], Sequence[float]]], target: float = 0.8) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for label, deltas, power in curves:
        ax.plot([100 * d for d in deltas], power, label=label)
    ax.axhline(target, color="#999999", lw=1, ls="--")
    ax.set_xlabel("true difference (points)")
    ax.set_ylabel("power")
    ax.set_ylim(0, 1.02)
    ax.set_title("Power of the paired comparison at this number of items")
    if len(curves) <= 8:
        ax.legend(fontsize=8)
    return _png(fig)


def epoch_variance_plot(labels: Sequence[str], within: Sequence[float], between: Sequence[float]) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(labels) + 1.4))
    ys = list(range(len(labels)))[::-1]
    ax.barh(ys, between, color="#1f4e79", label="between items (omega^2)")
    ax.barh(ys, within, left=between, color="#9fb8d6", label="within items, across epochs (sigma_w^2)")
    ax.set_yticks(ys)
    ax.set_yticklabels(labels)
    ax.set_xlabel("variance of a single score")
    ax.set_title("Where the variance is: items vs repeated epochs")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2)
    return _png(fig)
