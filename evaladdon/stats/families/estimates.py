"""The common result of a metric that is not a mean of item scores (F1, AUC, ECE, pass@k, BLEU ...)."""

from __future__ import annotations

from dataclasses import dataclass, field

from evaladdon.stats._base.result import Result

__all__ = ["MetricEstimate", "MetricLookup"]


@dataclass(frozen=True)
class MetricEstimate(Result):
    """One metric's point estimate with its interval.

    ``name`` is the key users see in JSON (``f1_macro``, ``roc_auc``, ``pass@2``, ``bleu,none``);
    ``method`` says how the interval was made (``cluster bootstrap percentile``, ``DeLong``,
    ``t cr2`` ...); ``n_items``/``n_clusters`` the units resampled or averaged; ``notes`` what a
    reader must know (fallbacks, degenerate cases).
    """

    name: str
    estimate: float
    ci_low: float
    ci_high: float
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
