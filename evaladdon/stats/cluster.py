"""Cluster-robust standard errors of a mean (intercept-only regression).

Observations are unit-level values ``x_i`` (item means, or paired item differences),
each in a cluster ``c``; ``e_i = x_i - mean(x)``, ``S_c = sum_{i in c} e_i``,
``n_c`` the size of cluster ``c``, ``n`` the number of units, ``C`` the number of clusters.

- CR1 (Liang & Zeger 1986 with the small-sample factor used by Stata and statsmodels):
  ``Var = C/(C-1) * sum_c S_c^2 / n^2``; t intervals on ``C - 1`` df.
  Oracle: ``statsmodels OLS(x, 1).fit(cov_type="cluster")`` (its factor
  ``C/(C-1) * (n-1)/(n-k)`` is ``C/(C-1)`` for the intercept-only model, k = 1).
- CR2 (Bell & McCaffrey 2002): ``Var = sum_c (1' A_c e_c)^2 / n^2`` with
  ``A_c = (I - H_cc)^(-1/2)``.  For the intercept ``H_cc = J/n`` whose only non-unit
  eigenvalue ``1 - n_c/n`` belongs to the vector of ones, so
  ``Var = sum_c S_c^2 / (1 - n_c/n) / n^2`` exactly (equals CR1 for equal cluster
  sizes and ``s^2/n`` for singleton clusters).
- Bell-McCaffrey / Satterthwaite df (Imbens & Kolesar 2016, eq. 9 with Omega = I):
  ``df = (tr M)^2 / tr(M^2)`` with ``M = G'G``, ``g_c = (I-H)_c' A_c X_c (X'X)^-1``.
  For the intercept ``M_cd = a_c a_d (delta_cd n_c - n_c n_d / n)`` with
  ``a_c = (1 - n_c/n)^(-1/2) / n``, so both traces have closed forms in O(C) rather than
  the dense O(n^2) algebra (the dense computation is the oracle in the tests).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import as_finite_1d, first_appearance_top, pow2_scale
from evaladdon.stats._base.checks import codes as _factorize_codes
from evaladdon.stats._base.result import Result

__all__ = [
    "ClusteredSE", "cluster_sums", "clustered_from_sums", "clustered_se", "codes", "cr1_note",
    "satterthwaite_df_from_sums", "satterthwaite_df_intercept", "satterthwaite_sums",
]

NAN = float("nan")


@dataclass(frozen=True)
class ClusteredSE(Result):
    """Cluster-robust SEs of the mean of ``n`` units in ``n_clusters`` clusters.

    ``se_cr1``/``df_cr1`` and ``se_cr2``/``df_cr2`` are NaN (with a note) when there
    is a single cluster, where no cluster-robust variance exists.
    """

    mean: float
    n: int
    n_clusters: int
    se_cr1: float
    df_cr1: float
    se_cr2: float
    df_cr2: float
    notes: tuple[str, ...] = ()


def codes(labels: npt.ArrayLike | None, n: int, name: str) -> tuple[np.ndarray, int]:
    """:func:`evaladdon.stats._checks.codes` (integer codes 0..G-1 in order of first appearance),
    without a hash table when ``labels`` already are such codes (as the summary passes them).

    Integer labels are their own first-appearance codes exactly when they start at 0 and their
    running maximum never grows by more than 1 (each new label is the next code); one
    O(n) pass checks that, instead of factorizing 10 million integers again.
    """
    if labels is not None and isinstance(labels, np.ndarray) and labels.ndim == 1 and labels.shape[0] == n > 0 \
            and labels.dtype.kind in "iu":
        if labels[0] == 0:
            top = _first_appearance_top(labels)
            if top is not None:
                return labels.astype(np.int64, copy=False), top + 1
        got = dense_codes(labels)
        if got is not None:
            return got
    return _factorize_codes(labels, n, name)


def dense_codes(labels: np.ndarray) -> tuple[np.ndarray, int] | None:
    """``pd.factorize(labels)``'s codes (0..G-1 in order of first appearance) and G for integer
    labels spanning at most twice their number, without pandas or a hash table (a Dask worker
    that streams its rows never imports pandas, issue 31 item 1): each label's first row by
    ``np.minimum.at`` over the span, the labels at their first rows in row order, ranked.
    O(n + span), about as fast as ``pd.factorize`` (500k codes: 2.5-5.6 ms against 1.2-4.0 ms;
    10M in order: 168 ms against 221 ms).  None when the span is wider (the caller hashes).
    Oracle: ``pd.factorize`` (``tests/stats/test_dense_codes.py``)."""
    n = labels.shape[0]
    lo, hi = int(labels.min()), int(labels.max())
    span = hi - lo + 1
    if span > 2 * n + 1024 or n >= 2**31:
        return None
    shifted = np.subtract(labels, lo, dtype=np.int64) if lo else labels
    rows = np.arange(n, dtype=np.int32)
    first = np.full(span, n, dtype=np.int32)
    np.minimum.at(first, shifted, rows)
    heads = shifted[first[shifted] == rows]  # each label once, in order of first appearance
    del first, rows
    rank = np.empty(span, dtype=np.int64)
    rank[heads] = np.arange(len(heads))
    return rank[shifted], len(heads)


_BLOCK = 1 << 20


def _first_appearance_top(labels: np.ndarray) -> int | None:
    """:func:`evaladdon.stats._base.checks.first_appearance_top` in blocks of :data:`_BLOCK` rows
    (read at each call, so a test may shrink it); the old private name, kept for its callers."""
    return first_appearance_top(labels, block=_BLOCK)


def cluster_sums(values: np.ndarray, cluster_codes: np.ndarray, n_clusters: int,
                 center: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums of ``values - center`` and cluster sizes, a block of rows at a time.

    Each cluster's sum is accumulated in row order, as ``np.bincount(codes, weights=values -
    center)`` does (so the sums are bit-identical to it), but without its two n-element
    temporaries: the centred values, and the copy ``bincount`` makes of read-only codes (the
    table's cached item/cluster codes are read-only).  10M rows: 160 MB less at the peak,
    and faster (``np.add.at`` on blocks that stay in cache)."""
    sums = np.zeros(n_clusters, dtype=float)
    sizes = np.zeros(n_clusters, dtype=np.int64)
    for at in range(0, cluster_codes.shape[0], _BLOCK):
        block = cluster_codes[at:at + _BLOCK]
        np.add.at(sums, block, values[at:at + _BLOCK] - center)
        sizes += np.bincount(block, minlength=n_clusters)
    return sums, sizes.astype(float)


def satterthwaite_sums(cluster_sizes: npt.ArrayLike, n: float) -> tuple[float, float, float, float]:
    """The four sums over clusters the Bell-McCaffrey df needs, for clusters of the given sizes
    among ``n`` units in all: ``(sum D_c, sum w_c^2, sum D_c^2, sum D_c w_c^2)`` with
    ``D_c = a_c^2 n_c`` and ``w_c^2 = a_c^2 n_c^2`` (``a_c^2 = 1/(1 - n_c/n)`` up to the common
    factor ``1/n^2``, which cancels).  Sums over disjoint sets of clusters add up, so a mean
    computed a part at a time (:mod:`evaladdon.stats.mean_parts`) adds these per part."""
    n_c = np.asarray(cluster_sizes, dtype=float)
    a2 = 1.0 / (1.0 - n_c / n)
    diag = a2 * n_c
    w2 = a2 * n_c * n_c
    return diag.sum(), w2.sum(), np.sum(diag * diag), np.sum(diag * w2)


def satterthwaite_df_from_sums(sums: tuple[float, float, float, float], n: float) -> float:
    """``df = (tr M)^2 / tr(M^2)`` from :func:`satterthwaite_sums` (module doc)."""
    diag_sum, w2_sum, diag_sq, diag_w2 = sums
    trace = diag_sum - w2_sum / n
    trace_sq = diag_sq - 2.0 / n * diag_w2 + (w2_sum / n) ** 2
    return float(trace * trace / trace_sq)


def satterthwaite_df_intercept(cluster_sizes: npt.ArrayLike) -> float:
    """Bell-McCaffrey df for the intercept-only model with the given cluster sizes."""
    n_c = np.asarray(cluster_sizes, dtype=float)
    n = n_c.sum()
    if n_c.size < 2:
        return float("nan")
    return satterthwaite_df_from_sums(satterthwaite_sums(n_c, n), n)


def clustered_se(values: npt.ArrayLike, clusters: npt.ArrayLike) -> ClusteredSE:
    """CR1 and CR2 standard errors of ``mean(values)`` with units grouped by ``clusters``.

    ``values`` are one per independent unit's *member* (e.g. one per item, epochs already
    averaged); ``clusters`` labels each value.  Reference formulas in the module docstring.
    Values near the float limit are scaled by a power of two first (no overflow to inf).
    """
    x = as_finite_1d(values)
    n = x.size
    cluster_codes, n_clusters = codes(clusters, n, "clusters")
    scale = pow2_scale(x)
    xs = x / scale if scale != 1.0 else x  # x / 1.0 is x exactly: no 10-million-element copy
    mean = float(xs.mean()) * scale
    sums, sizes = cluster_sums(xs, cluster_codes, n_clusters, center=xs.mean())
    if n_clusters < 2:
        return clustered_from_sums(mean, n, n_clusters, NAN, NAN, NAN, scale)
    ss = float(np.sum(sums * sums))
    ss_cr2 = np.sum(sums * sums / (1.0 - sizes / n))
    return clustered_from_sums(mean, n, n_clusters, ss, ss_cr2, satterthwaite_df_intercept(sizes), scale)


def clustered_from_sums(mean: float, n: int, n_clusters: int, ss: float, ss_cr2: float, df_cr2: float,
                        scale: float = 1.0) -> ClusteredSE:
    """The :class:`ClusteredSE` of ``n`` units in ``n_clusters`` clusters from the sums over
    clusters ``ss = sum_c S_c^2`` and ``ss_cr2 = sum_c S_c^2 / (1 - n_c/n)`` (of values divided
    by ``scale``) and the Bell-McCaffrey df; one cluster gives NaN SEs with a note."""
    if n_clusters < 2:
        return ClusteredSE(mean, n, n_clusters, NAN, NAN, NAN, NAN,
                           ("one cluster: no cluster-robust standard error exists",))
    se_cr1 = float(np.sqrt(n_clusters / (n_clusters - 1.0) * ss) / n) * scale
    se_cr2 = float(np.sqrt(ss_cr2) / n) * scale
    return ClusteredSE(mean, n, n_clusters, se_cr1, float(n_clusters - 1), se_cr2, df_cr2, ())


def cr1_note(n_clusters: int, df_cr2: float) -> str | None:
    """The warning shown with CR1 when its t(C-1) interval is likely to undercover.

    CR1 with ``C - 1`` df covers 84-90 % at a nominal 95 % with 12 very unequal clusters
    (issue 10); the Bell-McCaffrey df falling well below ``C - 1`` or fewer than 50
    clusters is the signal.  CR2, the default, needs no such warning.
    """
    if n_clusters < 2:
        return None
    if n_clusters < 50 or df_cr2 < 0.5 * (n_clusters - 1):
        return (f"CR1 with t({n_clusters - 1}) undercovers with few or unequal clusters ({n_clusters} here, "
                f"Bell-McCaffrey df {df_cr2:.1f}); CR2 (--cluster-method cr2, the default) corrects it")
    return None
