"""McNemar's test for two runs' 0/1 scores on the same items.

Discordance table (A = baseline, B = candidate): ``n11`` both right, ``n10`` right in A and
wrong in B, ``n01`` wrong in A and right in B, ``n00`` both wrong.

- exact: two-sided binomial test of ``n10`` out of ``n10 + n01`` at 1/2,
  ``p = min(1, 2 * Binom.cdf(min(n10, n01)))`` (McNemar 1947; Fagerland, Lydersen & Laake
  2013, BMC Med Res Methodol 13:91);
- mid-p: ``2 * (Binom.cdf(m) - Binom.pmf(m)/2)`` with ``m = min(n10, n01)`` (Fagerland et al. 2013);
- chi-square: ``(n10 - n01)^2 / (n10 + n01)`` and with continuity correction
  ``(|n10 - n01| - 1)^2 / (n10 + n01)``, both on 1 df.

scipy's binomial distribution is used rather than a hand-written sum (which takes minutes
at tens of thousands of discordant pairs).  With no discordant pairs every p-value is 1.
Oracle in the tests: ``statsmodels.stats.contingency_tables.mcnemar``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaladdon.stats._base.dist import binom_cdf, binom_pmf, chi2_sf
from evaladdon.stats._base.result import Result

__all__ = ["Discordance", "McNemarResult", "discordance", "mcnemar"]


@dataclass(frozen=True)
class Discordance(Result):
    n11: int
    n10: int
    n01: int
    n00: int

    @property
    def n(self) -> int:
        return self.n11 + self.n10 + self.n01 + self.n00

    @property
    def n_discordant(self) -> int:
        return self.n10 + self.n01


@dataclass(frozen=True)
class McNemarResult(Result):
    """All McNemar variants for one discordance table; ``odds_ratio = n01 / n10``."""

    n10: int
    n01: int
    exact_p: float
    mid_p: float
    chi2: float
    chi2_p: float
    chi2_cc: float
    chi2_cc_p: float
    odds_ratio: float


def discordance(a: np.ndarray, b: np.ndarray) -> Discordance:
    """Counts of the 2x2 table of paired 0/1 scores ``a`` (baseline) and ``b``."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired arrays differ in length: {a.size} and {b.size}")
    if not (np.all((a == 0) | (a == 1)) and np.all((b == 0) | (b == 1))):
        raise ValueError("the discordance table needs 0/1 scores")
    a1, b1 = a == 1, b == 1
    return Discordance(
        n11=int(np.sum(a1 & b1)), n10=int(np.sum(a1 & ~b1)), n01=int(np.sum(~a1 & b1)), n00=int(np.sum(~a1 & ~b1))
    )


def mcnemar(n10: int, n01: int) -> McNemarResult:
    """Exact, mid-p and chi-square McNemar tests for discordant counts ``n10``, ``n01``."""
    if n10 < 0 or n01 < 0 or int(n10) != n10 or int(n01) != n01:
        raise ValueError(f"discordant counts must be whole numbers >= 0, got {n10} and {n01}")
    n10, n01 = int(n10), int(n01)
    n = n10 + n01
    odds = n01 / n10 if n10 > 0 else (float("inf") if n01 > 0 else float("nan"))
    if n == 0:
        return McNemarResult(n10, n01, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, odds)
    m = min(n10, n01)
    cdf = float(binom_cdf(m, n, 0.5))
    pmf = float(binom_pmf(m, n, 0.5))
    exact = min(1.0, 2.0 * cdf)
    mid = min(1.0, 2.0 * (cdf - 0.5 * pmf))
    chi2 = (n10 - n01) ** 2 / n
    chi2_cc = (abs(n10 - n01) - 1.0) ** 2 / n
    return McNemarResult(
        n10=n10,
        n01=n01,
        exact_p=exact,
        mid_p=mid,
        chi2=float(chi2),
        chi2_p=float(chi2_sf(chi2, 1)),
        chi2_cc=float(chi2_cc),
        chi2_cc_p=float(chi2_sf(chi2_cc, 1)),
        odds_ratio=float(odds),
    )
