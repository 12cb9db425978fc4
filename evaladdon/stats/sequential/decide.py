"""Confidence sequences by name, for a paired difference, and the decisions read off them.

:func:`paired_sequence`: two runs scored on the same items in the order they arrive; the per-item
difference ``d = b - a`` of scores in [0, 1] lies in [-1, 1] and ``(d + 1)/2`` in [0, 1], so the
bounded constructions apply to it and the interval maps back by ``delta = 2 m - 1`` (the guarantee
carries over: the map is one-to-one).  The normal mixture takes ``d`` itself (sigma = 1 bounds
any [-1, 1] difference).

:func:`decisions`: at each t, from the interval ``[low_t, high_t]`` of ``delta = candidate - baseline``
and a margin ``m >= 0`` (the gate's rule, :mod:`evaladdon.stats.paired.gate`): ``regression`` when
``high < -m``; ``no regression`` when ``low >= -m``; with ``improvement=True`` also ``improvement``
when ``low > m``; with an equivalence band ``b``, ``equivalent`` when ``-b <= low`` and ``high <= b``.
Because the CS holds at every t at once, stopping at the *first* decided t keeps the error of
that decision <= alpha (Howard et al. 2021, Sec. 1; WSR 2024, Sec. 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from evaladdon.stats._base.result import Result
from evaladdon.stats.paired.equivalence import EQUIVALENT  # one verdict word for TOST and sequences
from evaladdon.stats.sequential.bounded import bernstein_sequence, betting_sequence
from evaladdon.stats.sequential.mixture import normal_mixture_sequence
from evaladdon.stats.sequential.sequence import ConfidenceSequence, FloatArray, as_unit_scores

__all__ = [
    "IMPROVEMENT", "NO_REGRESSION_SEQ", "REGRESSION_SEQ", "SEQUENCE_METHODS", "UNDECIDED",
    "FirstDecision", "confidence_sequence", "decisions", "first_decision", "paired_sequence",
]

SEQUENCE_METHODS = ("betting", "bernstein", "mixture")
REGRESSION_SEQ = "regression"
NO_REGRESSION_SEQ = "no regression"
IMPROVEMENT = "improvement"
UNDECIDED = "undecided"


def confidence_sequence(x: ArrayLike, method: str = "betting", alpha: float = 0.05,
                        sigma: float | None = None) -> ConfidenceSequence:
    """The CS of the mean of ``x`` by ``method``: ``betting`` and ``bernstein`` need scores in
    [0, 1]; ``mixture`` takes any finite scores (``sigma``: a known sub-Gaussian scale)."""
    if method == "betting":
        return betting_sequence(x, alpha)
    if method == "bernstein":
        return bernstein_sequence(x, alpha)
    if method == "mixture":
        return normal_mixture_sequence(x, alpha, sigma=sigma)
    raise ValueError(f"unknown sequence method {method!r}; choose one of {', '.join(SEQUENCE_METHODS)}")


def paired_sequence(a: ArrayLike, b: ArrayLike, method: str = "betting", alpha: float = 0.05) -> ConfidenceSequence:
    """The CS of ``delta = mean(b - a)`` for paired scores in [0, 1] (module doc)."""
    xa, xb = as_unit_scores(a, "baseline scores"), as_unit_scores(b, "candidate scores")
    if xa.shape != xb.shape:
        raise ValueError(f"paired scores differ in length: {xa.shape[-1]} and {xb.shape[-1]}")
    d = xb - xa
    if method == "mixture":
        return normal_mixture_sequence(d, alpha, sigma=1.0)
    cs = confidence_sequence((d + 1.0) / 2.0, method, alpha)
    return ConfidenceSequence(cs.method, alpha, 2.0 * cs.estimate - 1.0, 2.0 * cs.low - 1.0, 2.0 * cs.high - 1.0)


def decisions(low: FloatArray, high: FloatArray, margin: float = 0.0, improvement: bool = False,
              band: float | None = None) -> np.ndarray:
    """The decision at each t (module doc) as an array of strings; ``undecided`` where none holds."""
    if margin < 0 or np.isnan(margin):
        raise ValueError(f"the margin must be >= 0, got {margin}")
    out = np.full(np.shape(low), UNDECIDED, dtype=object)
    if band is not None:
        out[(low >= -band) & (high <= band)] = EQUIVALENT
    if improvement:
        out[low > margin] = IMPROVEMENT
    else:
        out[low >= -margin] = NO_REGRESSION_SEQ
    out[high < -margin] = REGRESSION_SEQ
    return out


@dataclass(frozen=True)
class FirstDecision(Result):
    """The first t (1-based) at which a decision holds, or ``None``; ``saved = n - t``."""

    decision: str
    t: int | None
    n: int
    low: float
    high: float

    @property
    def saved(self) -> int:
        return 0 if self.t is None else self.n - self.t


def first_decision(cs: ConfidenceSequence, margin: float = 0.0, improvement: bool = False,
                   band: float | None = None) -> FirstDecision:
    """Where a run would have stopped: the first decided t and the interval there (else the last)."""
    dec = decisions(cs.low, cs.high, margin, improvement, band)
    hit = np.flatnonzero(dec != UNDECIDED)
    if hit.size == 0:
        return FirstDecision(UNDECIDED, None, cs.n, float(cs.low[-1]), float(cs.high[-1]))
    k = int(hit[0])
    return FirstDecision(str(dec[k]), k + 1, cs.n, float(cs.low[k]), float(cs.high[k]))
