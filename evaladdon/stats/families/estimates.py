"""The common results of a metric that is not a mean of item scores (F1, AUC, ECE, pass@k, BLEU ...): one
run's estimate, and the paired difference of two runs."""

from __future__ import annotations

from dataclasses import field

from evaladdon.stats._base.result import Interval, IntervalResult, ci_bounds, holds_interval

__all__ = ["MetricEstimate", "MetricLookup", "PairedMetric"]


@holds_interval
class MetricEstimate(IntervalResult):
    """One metric's point estimate with its interval.

    ``name`` is the key users see in JSON (``f1_macro``, ``roc_auc``, ``pass@2``, ``bleu,none``);
    ``method`` says how the interval was made (``cluster bootstrap percentile``, ``DeLong``,
    ``t cr2`` ...); ``n_items``/``n_clusters`` the units resampled or averaged; ``notes`` what a
    reader must know (fallbacks, degenerate cases).  ``ci`` is the interval (``ci_low``/``ci_high`` its ends).
    """

    name: str
    estimate: float
    ci_low: float
    ci_high: float
    ci: Interval = field(init=False, metadata=ci_bounds())
    level: float
    method: str
    n_items: int
    n_clusters: int | None = None
    se: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


class MetricLookup:
    """``get(name)`` for results holding a tuple ``metrics`` of :class:`MetricEstimate`."""

    metrics: tuple[MetricEstimate, ...]

    def get(self, name: str) -> MetricEstimate:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)


@holds_interval
class PairedMetric(IntervalResult):
    """``metric(B) - metric(A)`` on shared items with a paired interval and p-value."""

    _ci_of = ("delta", "method")
    name: str
    estimate_a: float
    estimate_b: float
    delta: float
    ci_low: float
    ci_high: float
    ci: Interval = field(init=False, metadata=ci_bounds())
    level: float
    method: str
    p_value: float
    n_items: int
    n_clusters: int | None = None
    se: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
