"""Many comparisons at once: adjusted p-values and Cochran's Q.

- Bonferroni: ``min(1, m p)``.
- Holm (1979), step-down: ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.
- Benjamini & Hochberg (1995), step-up FDR: ``p~_(i) = min_{j >= i} min(1, m p_(j) / j)``.
A NaN p-value is refused (``nan_policy="raise"``, the default, as scipy's
``false_discovery_control``); with ``nan_policy="omit"`` it is kept as NaN and not counted in ``m``.
Oracle in the tests: ``statsmodels.stats.multitest.multipletests`` with ``"bonferroni"``,
``"holm"`` and ``"fdr_bh"`` (its *default* is Holm-Sidak, which is not Holm).

- Cochran (1950) Q for k runs' 0/1 scores on the same n items:
  ``Q = (k - 1) (k sum_j C_j^2 - T^2) / (k T - sum_i R_i^2)`` on ``k - 1`` df, with column
  totals ``C_j``, row totals ``R_i`` and grand total ``T``.  Oracle: statsmodels ``cochrans_q``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.dist import chi2_sf
from evaladdon.stats._base.result import Result

__all__ = ["ADJUST_METHODS", "CochranQResult", "adjust_pvalues", "cochrans_q"]

ADJUST_METHODS: tuple[str, ...] = ("holm", "bh", "bonferroni", "none")


def adjust_pvalues(p_values: npt.ArrayLike, method: str = "holm", *, nan_policy: str = "raise") -> np.ndarray:
    """Adjusted p-values for a family of tests (see module doc); ``nan_policy`` ``"raise"`` or ``"omit"``."""
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"p_values must be a 1-d array, got shape {p.shape}")
    if nan_policy not in ("raise", "omit"):
        raise ValueError(f"nan_policy must be 'raise' or 'omit', got {nan_policy!r}")
    if nan_policy == "raise" and np.isnan(p).any():
        raise ValueError(f"{int(np.isnan(p).sum())} p-value(s) are NaN; pass nan_policy='omit' to keep them "
                         f"as NaN outside the family")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    key = method.lower().replace("-", "_")
    key = {"fdr_bh": "bh", "benjamini_hochberg": "bh"}.get(key, key)
    if key not in ADJUST_METHODS:
        raise ValueError(f"unknown adjustment {method!r}; choose one of {', '.join(ADJUST_METHODS)}")
    out = np.full(p.size, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0 or key == "none":
        out[ok] = p[ok]
        return out
    q = p[ok]
    if key == "bonferroni":
        out[ok] = np.minimum(1.0, m * q)
        return out
    order = np.argsort(q, kind="mergesort")
    ranked = q[order]
    if key == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked))
    else:
        adj = np.minimum.accumulate((m * ranked / np.arange(1, m + 1))[::-1])[::-1]
        adj = np.minimum(adj, 1.0)
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out


@dataclass(frozen=True)
class CochranQResult(Result):
    statistic: float
    df: int
    p_value: float
    n_items: int
    n_runs: int
    run_means: tuple[float, ...]


def cochrans_q(scores: npt.ArrayLike) -> CochranQResult:
    """Cochran's Q for an ``(n_items, k_runs)`` array of 0/1 scores."""
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2 or x.shape[1] < 2 or x.shape[0] < 1:
        raise ValueError("Cochran's Q needs an (items, runs) array with at least two runs")
    if not np.all((x == 0) | (x == 1)):
        raise ValueError("Cochran's Q needs 0/1 scores")
    n, k = x.shape
    col = x.sum(axis=0)
    row = x.sum(axis=1)
    total = x.sum()
    denom = k * total - np.sum(row * row)
    if denom == 0:
        q, p = 0.0, 1.0  # every item all-right or all-wrong: no information against H0
    else:
        q = float((k - 1) * (k * np.sum(col * col) - total * total) / denom)
        p = float(chi2_sf(q, k - 1))
    return CochranQResult(q, k - 1, p, n, k, tuple(float(v) for v in x.mean(axis=0)))
