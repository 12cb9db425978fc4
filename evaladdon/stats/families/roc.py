"""Threshold-free metrics of a per-item score against a binary label: ROC AUC and average precision.

**ROC AUC** is the Mann-Whitney probability ``A = P(X > Y) + P(X = Y)/2`` for the score ``X`` of
a positive and ``Y`` of a negative, estimated by ``A^ = (1/mn) sum_ij psi(X_i, Y_j)``.
DeLong, DeLong & Clarke-Pearson (1988) variance from the structural components
``V10_i = (1/n) sum_j psi(X_i, Y_j)`` and ``V01_j = (1/m) sum_i psi(X_i, Y_j)``:
``var(A^) = S10/m + S01/n`` with ``S10, S01`` their sample variances.  The components come from
midranks in ``O((m+n) log(m+n))`` (Sun & Xu 2014): ``V10_i = (R_Z(X_i) - R_X(X_i))/n`` and
``V01_j = 1 - (R_Z(Y_j) - R_Y(Y_j))/m`` where ``R_Z``, ``R_X``, ``R_Y`` are midranks in the pooled
sample, among positives and among negatives.

*Clustered* (Obuchowski 1997, Biometrics 53:567-578): with clusters ``k = 1..I`` holding
``m_k`` positives and ``n_k`` negatives, ``a_k = sum_{pos in k}(V10 - A^)``,
``b_k = sum_{neg in k}(V01 - A^)``,
``var(A^) = I10/(I10-1) sum a_k^2/M^2 + I01/(I01-1) sum b_k^2/N^2 + 2 I/(I-1) sum a_k b_k/(MN)``
(``I10``/``I01``: clusters with a positive / a negative).  With one item per cluster this is
exactly DeLong's variance.  Interval: ``A^ -/+ z se``, clipped to [0, 1]; clustered, on the logit
scale with ``t(C - 1)`` quantiles, ``expit(logit A^ -/+ t se / (A^ (1 - A^)))`` (the z interval on
the AUC scale covered 90-92 % at 30 clusters in the binormal model, this one 94.5-95 %; at
``A^`` = 0 or 1 the t interval on the AUC scale, clipped).

*Paired* (DeLong et al. 1988): two scores of the same items, ``var(A^_B - A^_A)`` from the
differences of the structural components (clustered or not, as above); two-sided z test, or
clustered a t test and interval on ``C - 1`` df (the design's df for a clustered sandwich).

*Undefined*: a sample variance needs two units, so fewer than two positives or negatives (or,
clustered, fewer than two clusters holding a positive or a negative: ``I10/(I10-1)`` is 1/0)
give se, interval and p NaN with a note saying why; so does a paired variance estimate of 0
(the runs' components differ by a constant), never a zero-width interval with p 0.

**Average precision** (scikit-learn's definition) ``AP = sum_t (R_t - R_{t-1}) P_t`` over the
distinct score thresholds ``t`` in decreasing order.  Interval by the cluster bootstrap: the
sufficient statistic is the per-cluster count of positives and negatives at each threshold
(a sparse ``C x T`` table); a replicate weighs the clusters (multinomial counts) and
recomputes the cumulative counts, never resampling items.

Oracles in the tests: scikit-learn's ``roc_auc_score`` / ``average_precision_score`` for the
point values, the ``O(mn)`` definition of the structural components written directly for
the variance, and Monte-Carlo coverage / size under the binormal model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import as_finite_1d, check_level, codes
from evaladdon.stats._base.dist import norm_ppf, norm_sf, t_ppf, t_sf
from evaladdon.stats.families.estimates import MetricEstimate, PairedMetric
from evaladdon.stats.resampling import BOOT_METHODS, interval_ends, percentile_p, weight_replicates

if TYPE_CHECKING:  # pragma: no cover - scipy.sparse is imported where it is used (slow to import)
    from scipy import sparse

__all__ = ["average_precision", "compare_average_precision", "compare_roc_auc", "roc_auc", "structural_components"]


@dataclass(frozen=True)
class _Components:
    auc: float
    v10: np.ndarray
    v01: np.ndarray
    pos: np.ndarray
    neg: np.ndarray


def _binary(labels: npt.ArrayLike, n: int) -> np.ndarray:
    y = np.asarray(labels)
    if y.shape != (n,):
        raise ValueError(f"labels must be 1-d with one label per score ({n})")
    yf = y.astype(float)
    if not np.all((yf == 0) | (yf == 1)):
        raise ValueError("ROC/PR metrics need binary labels 0/1")
    return yf.astype(bool)


def structural_components(scores: npt.ArrayLike, labels: npt.ArrayLike) -> _Components:
    """AUC and DeLong's structural components by midranks (Sun & Xu 2014)."""
    s = as_finite_1d(scores, "scores")
    y = _binary(labels, s.size)
    x_pos, x_neg = s[y], s[~y]
    m, n = x_pos.size, x_neg.size
    if m == 0 or n == 0:
        raise ValueError("ROC AUC needs at least one positive and one negative item")
    from scipy.stats import rankdata  # here, not at import: scipy.stats takes ~1 s to import

    r_all = rankdata(s, method="average")
    r_pos = rankdata(x_pos, method="average")
    r_neg = rankdata(x_neg, method="average")
    v10 = (r_all[y] - r_pos) / n
    v01 = 1.0 - (r_all[~y] - r_neg) / m
    return _Components(float(v10.mean()), v10, v01, np.flatnonzero(y), np.flatnonzero(~y))


def _variance(a: np.ndarray, b: np.ndarray, cluster_pos: np.ndarray | None, cluster_neg: np.ndarray | None,
              n_clusters: int) -> tuple[float, str | None]:
    """Variance of a sum of centred structural components (DeLong; Obuchowski when clustered), and
    why it is undefined (NaN) when it is.

    ``a`` are the centred V10 of the positives, ``b`` the centred V01 of the negatives.  A sample
    variance needs two units: DeLong's two positives and two negatives, Obuchowski's two clusters
    holding a positive and two holding a negative (all positives, or all negatives, in one cluster
    leave ``I10/(I10-1)`` or ``I01/(I01-1)`` undefined).
    """
    m, n = a.size, b.size
    if cluster_pos is None or cluster_neg is None:
        if m < 2 or n < 2:
            return math.nan, (f"{m} positive(s) and {n} negative(s): the DeLong variance needs at least two "
                              f"of each; no interval")
        return float(a @ a) / (m - 1) / m + float(b @ b) / (n - 1) / n, None
    i10 = int(np.unique(cluster_pos).size)
    i01 = int(np.unique(cluster_neg).size)
    if i10 < 2 or i01 < 2:
        return math.nan, (f"clusters holding a positive: {i10}, a negative: {i01}; the clustered DeLong variance "
                          f"needs at least two of each; no interval")
    ak = np.bincount(cluster_pos, weights=a, minlength=n_clusters)
    bk = np.bincount(cluster_neg, weights=b, minlength=n_clusters)
    t10 = i10 / (i10 - 1) * float(ak @ ak) / m**2
    t01 = i01 / (i01 - 1) * float(bk @ bk) / n**2
    t11 = 2.0 * n_clusters / (n_clusters - 1) * float(ak @ bk) / (m * n)
    return t10 + t01 + t11, None


def _cluster_codes(clusters: npt.ArrayLike | None, n: int) -> tuple[np.ndarray | None, int]:
    if clusters is None:
        return None, n
    cc, n_c = codes(clusters, n, "clusters")
    if n_c < 2:
        raise ValueError("a clustered interval needs at least two clusters")
    return cc, n_c


def roc_auc(
    scores: npt.ArrayLike,
    labels: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    level: float = 0.95,
) -> MetricEstimate:
    """ROC AUC with the DeLong interval (Obuchowski's clustered DeLong when ``clusters``)."""
    level = check_level(level)
    c = structural_components(scores, labels)
    cc, n_c = _cluster_codes(clusters, c.v10.size + c.v01.size)
    var, why = _variance(c.v10 - c.auc, c.v01 - c.auc, None if cc is None else cc[c.pos],
                         None if cc is None else cc[c.neg], n_c)
    se = math.sqrt(var) if var >= 0 else math.nan
    z = float(norm_ppf(0.5 + level / 2.0))
    notes: tuple[str, ...] = () if why is None else (why,)
    method = "DeLong" if cc is None else f"clustered DeLong (Obuchowski 1997), logit-scale t({n_c - 1}) interval"
    if cc is None:
        low, high = np.clip([c.auc - z * se, c.auc + z * se], 0.0, 1.0)  # NaN stays NaN
    else:
        low, high = _logit_t_interval(c.auc, se, n_c - 1, level)
    return MetricEstimate(name="roc_auc", estimate=c.auc, ci_low=float(low), ci_high=float(high), level=level,
                          method=method,
                          n_items=int(c.v10.size + c.v01.size), n_clusters=None if cc is None else n_c, se=se,
                          notes=notes)


def _logit_t_interval(auc: float, se: float, df: int, level: float) -> tuple[float, float]:
    """``expit(logit A -/+ t_{df} se / (A (1 - A)))`` (delta method on the logit scale); at ``A``
    = 0 or 1 the t interval on the AUC scale, clipped to [0, 1].  NaN se gives NaN ends."""
    q = float(t_ppf(0.5 + level / 2.0, df))
    if not 0.0 < auc < 1.0:
        low, high = np.clip([auc - q * se, auc + q * se], 0.0, 1.0)
        return float(low), float(high)
    centre, half = math.log(auc / (1.0 - auc)), q * se / (auc * (1.0 - auc))
    return 1.0 / (1.0 + math.exp(half - centre)), 1.0 / (1.0 + math.exp(-centre - half))


def compare_roc_auc(
    scores_a: npt.ArrayLike,
    scores_b: npt.ArrayLike,
    labels: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    level: float = 0.95,
) -> PairedMetric:
    """DeLong's paired test of ``AUC_B - AUC_A`` for two scores of the same items."""
    level = check_level(level)
    ca = structural_components(scores_a, labels)
    cb = structural_components(scores_b, labels)
    if ca.v10.size != cb.v10.size or ca.v01.size != cb.v01.size:
        raise ValueError("paired scores must cover the same items")
    cc, n_c = _cluster_codes(clusters, ca.v10.size + ca.v01.size)
    da = (cb.v10 - cb.auc) - (ca.v10 - ca.auc)
    db = (cb.v01 - cb.auc) - (ca.v01 - ca.auc)
    var, why = _variance(da, db, None if cc is None else cc[ca.pos], None if cc is None else cc[ca.neg], n_c)
    if why is None and not var > 0:  # every centred component equal in both runs: a zero estimate
        why = ("the estimated variance of the difference is 0 (the two runs' structural components differ by "
               "a constant): DeLong gives no interval or p-value")
    se = math.sqrt(var) if why is None else math.nan  # undefined: NaN, never a certainty
    delta = cb.auc - ca.auc
    if cc is None:
        z = float(norm_ppf(0.5 + level / 2.0))
        p = float(2.0 * norm_sf(abs(delta / se))) if why is None else math.nan
        method = "DeLong paired z"
    else:  # a clustered sandwich: t on C - 1 df
        z = float(t_ppf(0.5 + level / 2.0, n_c - 1))
        p = float(2.0 * t_sf(abs(delta / se), n_c - 1)) if why is None else math.nan
        method = f"clustered DeLong paired t (Obuchowski 1997), df {n_c - 1}"
    return PairedMetric(name="roc_auc", estimate_a=ca.auc, estimate_b=cb.auc, delta=delta, ci_low=delta - z * se,
                        ci_high=delta + z * se, level=level, method=method, p_value=p,
                        n_items=int(ca.v10.size + ca.v01.size), n_clusters=None if cc is None else n_c, se=se,
                        notes=() if why is None else (why,))


# --- average precision ------------------------------------------------------------------------

def _threshold_tables(scores: np.ndarray, y: np.ndarray, cc: np.ndarray, n_c: int) -> tuple[
        sparse.csr_matrix, sparse.csr_matrix]:
    """Per-threshold, per-cluster counts, transposed ``(T, C)``, at the ``T`` distinct scores of
    the positives (decreasing): positives at each threshold, and negatives by the first
    threshold at which they count (score >= threshold); negatives below every positive never
    count and are left out.  AP only changes where recall does, so these thresholds suffice."""
    from scipy import sparse

    thr = np.unique(-scores[y])  # ascending in -score: decreasing scores of the positives
    t = thr.size
    pos_col = np.searchsorted(thr, -scores[y])
    neg_col = np.searchsorted(thr, -scores[~y], side="left")
    keep = neg_col < t
    pos = sparse.csr_matrix((np.ones(pos_col.size), (pos_col, cc[y])), shape=(t, n_c))
    neg = sparse.csr_matrix((np.ones(int(keep.sum())), (neg_col[keep], cc[~y][keep])), shape=(t, n_c))
    return pos, neg


def _ap_from_weights(w: np.ndarray, pos: sparse.csr_matrix, neg: sparse.csr_matrix) -> np.ndarray:
    """AP for each row of cluster weights ``w`` (b, C): ``sum_t (R_t - R_{t-1}) P_t`` where the
    weighted counts at threshold ``t`` are ``(T, C) @ w.T``, accumulated down the thresholds."""
    wt = np.ascontiguousarray(w.T)
    d_tp = np.asarray(pos @ wt)  # (T, b), C-contiguous: cumulative sums run along rows
    tp = np.cumsum(d_tp, axis=0)
    fp = np.cumsum(np.asarray(neg @ wt), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = tp + fp
        prec = np.divide(tp, denom, out=np.zeros_like(tp), where=denom > 0)
        total = tp[-1]
        return np.where(total > 0, (d_tp * prec).sum(axis=0) / np.where(total > 0, total, 1.0), np.nan)


def _ap_replicates(tables: list[tuple[sparse.csr_matrix, sparse.csr_matrix]], n_c: int, n_boot: int,
                   seed: int | None, jackknife: bool, batch_cells: int = 4_000_000) -> tuple[
        np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    width = max(p.shape[0] for p, _ in tables) + n_c
    batch = max(1, batch_cells // width)
    full = np.ones((1, n_c))
    est = np.array([_ap_from_weights(full, p, q)[0] for p, q in tables])
    reps = weight_replicates(np.empty((n_boot, len(tables))),  # each batch: sparse-dense products
                             lambda w: np.column_stack([_ap_from_weights(w, p, q) for p, q in tables]),
                             n_c, rng, batch)
    jack = np.full((n_c, len(tables)), np.nan)
    if jackknife:
        for start in range(0, n_c, batch):
            stop = min(n_c, start + batch)
            w = np.ones((stop - start, n_c))
            w[np.arange(stop - start), np.arange(start, stop)] = 0.0
            for j, (p, q) in enumerate(tables):
                jack[start:stop, j] = _ap_from_weights(w, p, q)
    return est, reps, jack


def average_precision(
    scores: npt.ArrayLike,
    labels: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    level: float = 0.95,
    n_boot: int = 2000,
    method: Literal["percentile", "bca"] = "percentile",
    seed: int | None = 0,
) -> MetricEstimate:
    """Average precision (PR AUC, scikit-learn's step definition) with a cluster bootstrap interval."""
    level = check_level(level)
    if method not in BOOT_METHODS:
        raise ValueError(f"unknown bootstrap method {method!r}; choose percentile or bca")
    if n_boot < 100:
        raise ValueError("use at least 100 bootstrap resamples")
    s = as_finite_1d(scores, "scores")
    y = _binary(labels, s.size)
    if not y.any():
        raise ValueError("average precision needs at least one positive item")
    cc, n_c = codes(clusters, s.size, "clusters")
    if n_c < 2:
        raise ValueError("the cluster bootstrap needs at least two independent units (clusters or items)")
    est, reps, jack = _ap_replicates([_threshold_tables(s, y, cc, n_c)], n_c, n_boot, seed, method == "bca")
    q = interval_ends(reps, est, jack, level, method)
    r = reps[np.isfinite(reps[:, 0]), 0]
    unit = "cluster" if clusters is not None else "item"
    notes = (f"{n_boot - r.size} of {n_boot} replicates had no positive (left out)",) if r.size < n_boot else ()
    return MetricEstimate(name="average_precision", estimate=float(est[0]), ci_low=float(q[0, 0]),
                          ci_high=float(q[1, 0]), level=level,
                          method=f"{unit} bootstrap {method} ({n_boot} resamples, per-threshold counts)",
                          n_items=int(s.size), n_clusters=None if clusters is None else n_c,
                          se=float(r.std(ddof=1)) if r.size > 1 else None, notes=notes)


def compare_average_precision(
    scores_a: npt.ArrayLike,
    scores_b: npt.ArrayLike,
    labels: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    level: float = 0.95,
    n_boot: int = 2000,
    method: Literal["percentile", "bca"] = "percentile",
    seed: int | None = 0,
) -> PairedMetric:
    """Paired cluster bootstrap of ``AP_B - AP_A`` (same cluster weights for both runs)."""
    level = check_level(level)
    if method not in BOOT_METHODS:
        raise ValueError(f"unknown bootstrap method {method!r}; choose percentile or bca")
    sa = as_finite_1d(scores_a, "scores_a")
    sb = as_finite_1d(scores_b, "scores_b")
    if sa.size != sb.size:
        raise ValueError("paired scores must cover the same items")
    y = _binary(labels, sa.size)
    if not y.any():
        raise ValueError("average precision needs at least one positive item")
    cc, n_c = codes(clusters, sa.size, "clusters")
    if n_c < 2:
        raise ValueError("the cluster bootstrap needs at least two independent units (clusters or items)")
    est, reps, jack = _ap_replicates([_threshold_tables(sa, y, cc, n_c), _threshold_tables(sb, y, cc, n_c)], n_c,
                                     n_boot, seed, method == "bca")
    d = reps[:, 1] - reps[:, 0]
    delta = float(est[1] - est[0])
    q = interval_ends(d[:, None], np.array([delta]), (jack[:, 1] - jack[:, 0])[:, None], level, method)
    r = d[np.isfinite(d)]
    p = percentile_p(r)
    unit = "cluster" if clusters is not None else "item"
    return PairedMetric(name="average_precision", estimate_a=float(est[0]), estimate_b=float(est[1]), delta=delta,
                        ci_low=float(q[0, 0]), ci_high=float(q[1, 0]), level=level,
                        method=f"paired {unit} bootstrap {method} ({n_boot} resamples, per-threshold counts)",
                        p_value=p, n_items=int(sa.size), n_clusters=None if clusters is None else n_c,
                        se=float(r.std(ddof=1)) if r.size > 1 else None)
