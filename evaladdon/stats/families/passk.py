"""pass@k and pass^k from repeated attempts (epochs) of each item.

For an item with ``n`` attempts of which ``c`` succeed, the unbiased estimators of the chance
that at least one of ``k`` fresh attempts succeeds and that all ``k`` succeed are

- pass@k ``= 1 - C(n-c, k) / C(n, k)`` (Chen et al. 2021, "Evaluating large language models
  trained on code", eq. 1), and
- pass^k ``= C(c, k) / C(n, k)`` (Yao et al. 2024, tau-bench),

both defined for ``k <= n``.  The ratios are computed as products
``C(a, k)/C(n, k) = prod_{i<k} (a - i)/(n - i)`` (a factor ``<= 0`` makes the ratio 0), vectorised
over items: no factorials, no overflow.  Items with fewer than ``k`` attempts have no estimate
at ``k``; they are left out and counted.  The run's value is the mean over items; its standard
error and interval come from :func:`evaladdon.stats.mean.estimate_mean` on the per-item values
(items, or clusters of items, are the independent units).  Paired comparison of two runs:
:func:`evaladdon.stats.paired.compare_paired` on the per-item values of the shared items.

Oracles in the tests: ``math.comb`` on every (n, c, k), Inspect's own ``pass_at`` / ``pass_k``
reducers (on lists and in a real offline eval), and Monte-Carlo coverage with Beta-distributed
item success rates, where ``E[pass@k] = 1 - B(a, b+k)/B(a, b)`` and ``E[pass^k] = B(a+k, b)/B(a, b)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from evaladdon.stats._base.checks import as_finite_1d, check_level
from evaladdon.stats.families.estimates import MetricEstimate
from evaladdon.stats.mean import estimate_mean
from evaladdon.stats.families.estimates import PairedMetric
from evaladdon.stats.paired.paired import compare_paired

__all__ = ["ItemCounts", "compare_pass_at_k", "item_counts", "pass_at_k", "pass_at_k_items", "pass_hat_k_items"]


def _ratio(a: np.ndarray, n: np.ndarray, k: int) -> np.ndarray:
    """``C(a, k) / C(n, k)`` for arrays ``a <= n`` with ``n >= k`` (NaN where ``n < k``)."""
    i = np.arange(k)
    ok = n >= k
    den = np.where(ok, n, k)[:, None] - i  # >= 1 where ok
    num = a[:, None] - i
    r = np.prod(np.clip(num, 0, None) / den, axis=1)
    return np.where(ok, r, np.nan)


def pass_at_k_items(n: npt.ArrayLike, c: npt.ArrayLike, k: int) -> np.ndarray:
    """Per-item unbiased pass@k ``1 - C(n-c, k)/C(n, k)``; NaN where ``n < k``."""
    n_, c_ = np.asarray(n, dtype=float), np.asarray(c, dtype=float)
    _check_counts(n_, c_, k)
    return 1.0 - _ratio(n_ - c_, n_, k)


def pass_hat_k_items(n: npt.ArrayLike, c: npt.ArrayLike, k: int) -> np.ndarray:
    """Per-item unbiased pass^k ``C(c, k)/C(n, k)``; NaN where ``n < k``."""
    n_, c_ = np.asarray(n, dtype=float), np.asarray(c, dtype=float)
    _check_counts(n_, c_, k)
    return _ratio(c_, n_, k)


def _check_counts(n: np.ndarray, c: np.ndarray, k: int) -> None:
    if int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    if n.shape != c.shape:
        raise ValueError("n and c must have the same shape")
    if np.any(c < 0) or np.any(c > n) or np.any(n < 1):
        raise ValueError("need 0 <= c <= n and n >= 1 for every item")


@dataclass(frozen=True)
class ItemCounts:
    """Attempts ``n`` and successes ``c`` per item, with each item's cluster (if any)."""

    items: np.ndarray
    n: np.ndarray
    c: np.ndarray
    clusters: np.ndarray | None


def item_counts(successes: npt.ArrayLike, items: npt.ArrayLike, clusters: npt.ArrayLike | None = None) -> ItemCounts:
    """Group per-attempt 0/1 ``successes`` by item (one row per attempt)."""
    s = as_finite_1d(successes, "successes")
    if not np.all((s == 0) | (s == 1)):
        raise ValueError("pass@k needs 0/1 successes per attempt")
    it = np.asarray(items)
    if it.shape[0] != s.size:
        raise ValueError(f"items has {it.shape[0]} labels for {s.size} attempts")
    codes_, uniq = pd.factorize(it)
    n = np.bincount(codes_, minlength=len(uniq)).astype(float)
    c = np.bincount(codes_, weights=s, minlength=len(uniq))
    cl = None
    if clusters is not None:
        cl_arr = np.asarray(clusters)
        first = np.zeros(len(uniq), dtype=np.int64)
        first[codes_[::-1]] = np.arange(s.size)[::-1]
        cl = cl_arr[first]
        if np.any(cl[codes_] != cl_arr):
            raise ValueError("an item lies in two clusters; a cluster label must be constant within an item")
    return ItemCounts(np.asarray(uniq), n, c, cl)


def _estimate(name: str, values: np.ndarray, clusters: np.ndarray | None, level: float, n_short: int,
              k: int) -> MetricEstimate:
    keep = np.isfinite(values)
    notes = [f"{n_short} item(s) have fewer than {k} attempts (left out)"] if n_short else []
    e = estimate_mean(values[keep], None, None if clusters is None else clusters[keep], level=level)
    return MetricEstimate(name=name, estimate=e.mean, ci_low=e.ci_low, ci_high=e.ci_high, level=level,
                          method=f"mean of per-item unbiased estimates, {e.method}", n_items=e.n_items,
                          n_clusters=e.n_clusters, se=e.se, notes=tuple(notes) + tuple(e.notes))


def pass_at_k(
    successes: npt.ArrayLike,
    items: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    ks: list[int] | None = None,
    level: float = 0.95,
) -> list[MetricEstimate]:
    """``pass@k`` and ``pass^k`` for every ``k`` in ``ks`` (default ``1..max attempts``).

    ``successes`` holds one 0/1 value per attempt, ``items`` the item of each attempt,
    ``clusters`` (optional) the cluster of each attempt.  Items with fewer than ``k``
    attempts are left out at that ``k`` and counted in ``notes``.
    """
    level = check_level(level)
    ic = item_counts(successes, items, clusters)
    ks = list(range(1, int(ic.n.max()) + 1)) if ks is None else ks
    out = []
    for k in ks:
        short = int(np.sum(ic.n < k))
        if short == ic.n.size:
            continue
        out.append(_estimate(f"pass@{k}", pass_at_k_items(ic.n, ic.c, k), ic.clusters, level, short, k))
        out.append(_estimate(f"pass^{k}", pass_hat_k_items(ic.n, ic.c, k), ic.clusters, level, short, k))
    return out


def compare_pass_at_k(
    successes_a: npt.ArrayLike,
    items_a: npt.ArrayLike,
    successes_b: npt.ArrayLike,
    items_b: npt.ArrayLike,
    k: int,
    *,
    kind: str = "pass@",
    clusters_a: npt.ArrayLike | None = None,
    level: float = 0.95,
) -> PairedMetric:
    """Paired comparison of per-item pass@k (``kind="pass@"``) or pass^k (``"pass^"``), B - A,
    on the items both runs attempted at least ``k`` times (t interval; clustered when
    ``clusters_a`` labels A's attempts)."""
    level = check_level(level)
    fn = {"pass@": pass_at_k_items, "pass^": pass_hat_k_items}.get(kind)
    if fn is None:
        raise ValueError("kind must be 'pass@' or 'pass^'")
    a = item_counts(successes_a, items_a, clusters_a)
    b = item_counts(successes_b, items_b)
    va, vb = fn(a.n, a.c, k), fn(b.n, b.c, k)
    _, ia, ib = np.intersect1d(a.items.astype(str), b.items.astype(str), assume_unique=True, return_indices=True)
    ok = np.isfinite(va[ia]) & np.isfinite(vb[ib])
    ia, ib = ia[ok], ib[ok]
    left_out = va.size + vb.size - 2 * ia.size
    if ia.size < 2:
        raise ValueError(f"{kind}{k}: fewer than two shared items with at least {k} attempts in both runs")
    cl = None if a.clusters is None else a.clusters[ia]
    r = compare_paired(va[ia], vb[ib], cl, one_epoch=False, level=level, test="t",
                       interval="t")
    notes = ((f"{left_out} item(s) not shared or with fewer than {k} attempts in a run (left out)",)
             if left_out else ()) + tuple(r.notes)
    return PairedMetric(name=f"{kind}{k}", estimate_a=r.mean_a, estimate_b=r.mean_b, delta=r.delta,
                        ci_low=r.ci_low, ci_high=r.ci_high, level=level,
                        method=f"paired per-item {kind}{k}, {r.ci_method}", p_value=r.p_value, n_items=r.n,
                        n_clusters=r.n_clusters, se=r.se, notes=notes)
