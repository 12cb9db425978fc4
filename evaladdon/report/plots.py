"""Plots for the HTML report, as PNG bytes (matplotlib, the optional ``plot`` extra).

Every text here may come from a log (run, task, metric, model names): each plot takes them as
they are and shows them literally -- one escaping for every plot of every command (``report``,
``rank --html``): control characters as escapes (:func:`evaladdon.report.escape.clean`), and
matplotlib's math text off (``text.parse_math``), so ``$...$`` in a name is two dollar signs,
never TeX that renders or an error that ends the command.
"""

from __future__ import annotations

import functools
import io
from typing import Any, Callable, Sequence, TypeVar

from evaladdon.errors import EvalAddonError


def _plt() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise EvalAddonError("plots need matplotlib: pip install 'evaladdon[plot]'") from None
    return plt


F = TypeVar("F", bound=Callable[..., bytes])


def _literal(plot: F) -> F:
    """``plot`` with every text it draws taken literally (no math text), titles included."""
    @functools.wraps(plot)
    def drawn(*args: Any, **kwargs: Any) -> bytes:
        _plt()
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False}):
            return plot(*args, **kwargs)

    return drawn  # type: ignore[return-value]


def _label(text: object) -> str:
    """A name from a log as plot text: on one line, controls shown as escapes."""
    from evaladdon.report.escape import clean

    return clean(text)


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    _plt().close(fig)
    return buf.getvalue()


@_literal
def forest_plot(labels: Sequence[str], delta: Sequence[float], low: Sequence[float], high: Sequence[float],
                title: str = "Paired differences (B - A), points", scale: float = 100.0, unit: str = "points") -> bytes:
    """Differences with their intervals, times ``scale`` (100: points of a proportion; 1: a
    metric's own units, :mod:`evaladdon.report.units`)."""
    plt = _plt()
    n = len(labels)
    fig, ax = plt.subplots(figsize=(7.5, 0.5 * n + 1.4))
    ys = list(range(n))[::-1]
    d = [scale * x for x in delta]
    err_lo = [scale * (x - lo) for x, lo in zip(delta, low, strict=True)]
    err_hi = [scale * (hi - x) for x, hi in zip(delta, high, strict=True)]
    ax.errorbar(d, ys, xerr=[err_lo, err_hi], fmt="o", color="#1f4e79", ecolor="#6b8fb5", capsize=4)
    ax.axvline(0, color="#999999", lw=1, ls="--")
    ax.set_yticks(ys)
    ax.set_yticklabels([_label(x) for x in labels])
    ax.set_xlabel(f"difference in {unit} (interval at the report's level)")
    ax.set_title(_label(title))
    return _png(fig)


@_literal
def power_curve_plot(curves: Sequence[tuple[str, Sequence[float], Sequence[float]]], target: float = 0.8,
                     scale: float = 100.0, unit: str = "points") -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for label, deltas, power in curves:
        ax.plot([scale * d for d in deltas], power, label=_label(label))
    ax.axhline(target, color="#999999", lw=1, ls="--")
    ax.set_xlabel(f"true difference ({unit})")
    ax.set_ylabel("power")
    ax.set_ylim(0, 1.02)
    ax.set_title("Power of the paired comparison at this number of items")
    if len(curves) <= 8:
        ax.legend(fontsize=8)
    return _png(fig)


@_literal
def epoch_variance_plot(labels: Sequence[str], within: Sequence[float], between: Sequence[float]) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(labels) + 1.4))
    ys = list(range(len(labels)))[::-1]
    ax.barh(ys, between, color="#1f4e79", label="between items (omega^2)")
    ax.barh(ys, within, left=between, color="#9fb8d6", label="within items, across epochs (sigma_w^2)")
    ax.set_yticks(ys)
    ax.set_yticklabels([_label(x) for x in labels])
    ax.set_xlabel("variance of a single score")
    ax.set_title("Where the variance is: items vs repeated epochs")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2)
    return _png(fig)


@_literal
def rating_plot(models: Sequence[str], rating: Sequence[float], low: Sequence[float], high: Sequence[float],
                title: str = "Ratings with intervals", xlabel: str = "rating (Elo scale)",
                ref: float | None = None) -> bytes:
    """Forest plot of ratings (or mean scores) with their intervals, best at the top."""
    plt = _plt()
    order = sorted(range(len(models)), key=lambda i: rating[i])
    fig, ax = plt.subplots(figsize=(7.5, 0.35 * len(models) + 1.4))
    ys = list(range(len(order)))
    r = [rating[i] for i in order]
    ax.errorbar(r, ys, xerr=[[rating[i] - low[i] for i in order], [high[i] - rating[i] for i in order]], fmt="o",
                color="#1f4e79", ecolor="#6b8fb5", capsize=3)
    if ref is not None:
        ax.axvline(ref, color="#999999", lw=1, ls="--")
    ax.set_yticks(ys)
    ax.set_yticklabels([_label(models[i]) for i in order])
    ax.set_xlabel(_label(xlabel))
    ax.set_title(_label(title))
    return _png(fig)


@_literal
def win_rate_heatmap(models: Sequence[str], matrix: Any, title: str = "Win rate of row over column") -> bytes:
    """Heatmap of a K x K win-rate matrix (NaN cells: no battles), values printed when K <= 15."""
    import numpy as np

    plt = _plt()
    m = np.asarray(matrix, dtype=float)
    k = len(models)
    size = max(3.5, min(0.45 * k + 2.0, 14.0))
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    img = ax.imshow(np.ma.masked_invalid(m), cmap="RdBu", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(k))
    ax.set_yticks(range(k))
    ax.set_xticklabels([_label(x) for x in models], rotation=60, ha="right", fontsize=8)
    ax.set_yticklabels([_label(x) for x in models], fontsize=8)
    if k <= 15:
        for i in range(k):
            for j in range(k):
                if np.isfinite(m[i, j]):
                    ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if abs(m[i, j] - 0.5) > 0.3 else "black")
    fig.colorbar(img, ax=ax, fraction=0.046, pad=0.04)
    ax.set_title(_label(title))
    return _png(fig)


@_literal
def reliability_diagram(curves: Sequence[tuple[str, Sequence[float], Sequence[float], Sequence[int]]],
                        title: str = "Reliability diagram (equal-width bins)") -> bytes:
    """Mean outcome against mean forecast per bin, one line per (run, task, metric); marker area
    grows with the bin's count; the diagonal is perfect calibration.  Empty bins are skipped."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.6, 5.2))
    ax.plot([0, 1], [0, 1], color="#999999", lw=1, ls="--", label="perfectly calibrated")
    for label, forecast, outcome, count in curves:
        pts = [(f, o, c) for f, o, c in zip(forecast, outcome, count, strict=True) if c > 0]
        if not pts:
            continue
        total = sum(c for _, _, c in pts)
        line = ax.plot([p[0] for p in pts], [p[1] for p in pts], lw=1.2, label=_label(label))[0]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=[12 + 300 * p[2] / total for p in pts],
                   color=line.get_color(), alpha=0.7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("mean forecast in bin (confidence or score)")
    ax.set_ylabel("observed frequency in bin")
    ax.set_title(_label(title))
    if len(curves) <= 8:
        ax.legend(fontsize=7, loc="upper left")
    return _png(fig)
