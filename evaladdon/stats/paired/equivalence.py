"""Equivalence (TOST) and non-inferiority of a paired difference ``delta = candidate - baseline``
against a stated margin ``m > 0``.

- **Non-inferiority** at ``m``: H0 ``delta <= -m`` against H1 ``delta > -m``; one-sided
  ``p = P(T_df >= (delta + m)/se)``.
- **Equivalence** at ``m`` (Schuirmann's 1987 two one-sided tests, TOST): H0 ``|delta| >= m``
  against H1 ``-m < delta < m``; ``p_lower = P(T_df >= (delta + m)/se)``,
  ``p_upper = P(T_df <= (delta - m)/se)``, ``p = max(p_lower, p_upper)``; equivalence is shown
  when ``p < alpha``, which is the same as the ``1 - 2 alpha`` interval ``delta -/+ t se`` lying
  inside ``(-m, m)``.  The TOST is size ``alpha`` at ``|delta| = m`` (and conservative inside).

``se`` and ``df`` are those of the paired comparison (:func:`~evaladdon.stats.paired.paired.compare_paired`):
``s(d)/sqrt(n)`` on ``n - 1`` df for items (the oracle is statsmodels'
``statsmodels.stats.weightstats.ttost_paired``, equal to ours to round-off), the CR2 sandwich on
the Bell-McCaffrey df (or CR1 on ``C - 1``) for clustered items.  With 0/1 scores this is the
paired t on the differences (Wald-type); its size at the margin is checked by simulation.

An SE of zero (every item the same difference) gives no t statistic: the decision then reads
the comparison's zero-SE interval (the Wilson interval on the units of
:mod:`evaladdon.stats._base.zero_se`) at level ``1 - 2 alpha``, and says so; p is NaN.

References: Schuirmann (1987) "A comparison of the two one-sided tests procedure and the power
approach for assessing the equivalence of average bioavailability", J. Pharmacokin. Biopharm.
15:657-680; Wellek (2010) "Testing Statistical Hypotheses of Equivalence and Noninferiority",
ch. 1-2; ICH E9 (1998) section 3.3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evaladdon.stats._base.dist import t_cdf, t_sf
from evaladdon.stats._base.result import Result
from evaladdon.stats.intervals import t_bounds
from evaladdon.stats.paired.paired import PairedComparison

__all__ = ["EQUIVALENT", "NONINFERIOR", "NOT_SHOWN_EQUIVALENT", "NOT_SHOWN_NONINFERIOR", "Equivalence",
           "equivalence_of", "noninferiority", "noninferiority_of", "tost"]

EQUIVALENT = "equivalent"
NOT_SHOWN_EQUIVALENT = "not shown equivalent"
NONINFERIOR = "non-inferior"
NOT_SHOWN_NONINFERIOR = "not shown non-inferior"
NAN = float("nan")


@dataclass(frozen=True)
class Equivalence(Result):
    """A TOST or non-inferiority decision: ``kind`` (``"equivalence"`` or ``"non-inferiority"``),
    the ``margin``, ``alpha``, the one-sided p-values (``p_upper`` NaN for non-inferiority), ``p``
    (their max), the ``1 - 2 alpha`` interval (``ci_low``, ``ci_high``) and the ``verdict``."""

    kind: str
    margin: float
    alpha: float
    delta: float
    se: float
    df: float
    p_lower: float
    p_upper: float
    p_value: float
    ci_low: float
    ci_high: float
    verdict: str
    note: str | None = None

    @property
    def shown(self) -> bool:
        return self.verdict in (EQUIVALENT, NONINFERIOR)


def _checked(margin: float, alpha: float) -> None:
    if not (margin > 0 and math.isfinite(margin)):
        raise ValueError(f"the equivalence margin must be a finite number > 0, got {margin}")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")


def tost(delta: float, se: float, df: float, margin: float, alpha: float = 0.05) -> Equivalence:
    """Schuirmann's TOST of ``|delta| < margin`` from an estimate, its SE and df (see module doc)."""
    _checked(margin, alpha)
    if not (se > 0 and math.isfinite(se)):
        raise ValueError(f"the TOST needs a finite SE > 0, got {se}")
    p_lower = float(t_sf((delta + margin) / se, df))
    p_upper = float(t_cdf((delta - margin) / se, df))
    p = max(p_lower, p_upper)
    low, high = t_bounds(delta, se, df, 1.0 - 2.0 * alpha)
    return Equivalence("equivalence", float(margin), alpha, float(delta), float(se), float(df), p_lower, p_upper, p,
                       float(low), float(high), EQUIVALENT if p < alpha else NOT_SHOWN_EQUIVALENT)


def noninferiority(delta: float, se: float, df: float, margin: float, alpha: float = 0.025) -> Equivalence:
    """The one-sided test of H0 ``delta <= -margin`` (see module doc); ``ci_low`` is the
    one-sided ``1 - alpha`` lower bound (``ci_high`` is +inf)."""
    _checked(margin, alpha)
    if not (se > 0 and math.isfinite(se)):
        raise ValueError(f"the non-inferiority test needs a finite SE > 0, got {se}")
    p = float(t_sf((delta + margin) / se, df))
    low, _ = t_bounds(delta, se, df, 1.0 - 2.0 * alpha)
    return Equivalence("non-inferiority", float(margin), alpha, float(delta), float(se), float(df), p, NAN, p,
                       float(low), math.inf, NONINFERIOR if p < alpha else NOT_SHOWN_NONINFERIOR)


def _zero_se(comp: PairedComparison, kind: str, margin: float, alpha: float) -> Equivalence:
    """The decision read from the comparison's zero-SE interval at ``1 - 2 alpha`` (no t test)."""
    from evaladdon.stats.paired.family import at_level

    c = at_level(comp, 1.0 - 2.0 * alpha)
    low, high = c.ci_low, c.ci_high
    if kind == "equivalence":
        ok = -margin < low and high < margin
        verdict = EQUIVALENT if ok else NOT_SHOWN_EQUIVALENT
    else:
        ok, high = -margin < low, math.inf
        verdict = NONINFERIOR if ok else NOT_SHOWN_NONINFERIOR
    note = (f"the SE of the difference is 0: no t statistic; decided on the {c.ci_method} interval at "
            f"{1 - 2 * alpha:.3g}, no p-value")
    return Equivalence(kind, float(margin), alpha, comp.delta, comp.se, comp.df, NAN, NAN, NAN, float(low),
                       float(high), verdict, note)


def _usable_se(comp: PairedComparison) -> bool:
    return comp.se > 0 and math.isfinite(comp.se) and not comp.ci_method.startswith("zero-se")


def equivalence_of(comp: PairedComparison, margin: float, alpha: float = 0.05) -> Equivalence:
    """:func:`tost` of a paired comparison at ``margin`` (its SE and df: items, or clusters by
    CR2/CR1); the zero-SE interval decides when its SE is 0 (see module doc)."""
    _checked(margin, alpha)
    if not _usable_se(comp):
        return _zero_se(comp, "equivalence", margin, alpha)
    return tost(comp.delta, comp.se, comp.df, margin, alpha)


def noninferiority_of(comp: PairedComparison, margin: float, alpha: float = 0.025) -> Equivalence:
    """:func:`noninferiority` of a paired comparison at ``margin`` (see :func:`equivalence_of`)."""
    _checked(margin, alpha)
    if not _usable_se(comp):
        return _zero_se(comp, "non-inferiority", margin, alpha)
    return noninferiority(comp.delta, comp.se, comp.df, margin, alpha)
