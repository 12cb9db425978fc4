"""Does an effect differ across subgroups?  A cluster-robust Wald test of equal subgroup means.

With per-item values y_i (for ``compare --by`` the paired differences d_i = x̄_i^B − x̄_i^A, so
this is the test of the subgroup × run interaction; for ``summarize --by`` the item means
themselves) and subgroup indicators, the OLS fit of y on the k subgroup dummies (no intercept)
gives β̂_g = the subgroup means.  Its cluster-robust (sandwich) covariance is

    V = c · D⁻¹ (Σ_c s_c s_cᵀ) D⁻¹,   s_c[g] = Σ_{i ∈ c, g(i) = g} (y_i − β̂_g),   D = diag(n_g),
    c = G/(G − 1) · (N − 1)/(N − k)

(Stata's and statsmodels' small-sample factor for ``cov_type="cluster"``; with no clusters each
item is its own cluster, which is HC1).  The hypothesis β_1 = … = β_k is Rβ = 0 with R the k − 1
contrasts against the first subgroup; W = (Rβ̂)ᵀ (R V Rᵀ)⁻¹ (Rβ̂), and the test is
F = W/(k − 1) on (k − 1, G − 1) df (the cluster-robust F of Cameron & Miller 2015, §VII; the
t-based inference statsmodels uses with ``use_t=True``).  Oracle in the tests: statsmodels
``OLS(y, dummies).fit(cov_type="cluster", cov_kwds={"groups": c}, use_t=True).f_test(R)``.

The test needs G − 1 ≥ k − 1 clusters and a full-rank R V Rᵀ (every subgroup with some
variation across clusters); otherwise it is not computed and ``note`` says why.  The sandwich
is written here (a bincount of the residuals per cluster and subgroup, one k×k product) because
statsmodels is a test-only dependency of this project.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from scipy.special import fdtrc  # the F distribution's survival function (scipy.stats' f.sf calls it)

from evaladdon.stats._base.result import Result

__all__ = ["SubgroupWald", "subgroup_wald"]


@dataclass(frozen=True)
class SubgroupWald(Result):
    """The Wald test of equal subgroup means (``p_value`` None when it cannot be computed: ``note``)."""

    statistic: float | None
    """F = W/(k − 1)."""
    wald: float | None
    """W, the chi-square form."""
    df_num: int
    df_denom: int
    p_value: float | None
    n: int
    n_groups: int
    n_clusters: int
    clustered: bool
    labels: tuple[str, ...]
    means: tuple[float, ...]
    se: tuple[float, ...]
    note: str | None = None


def _codes(labels: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of ``labels`` (sorted uniques) and the uniques."""
    uniques, codes = np.unique(np.asarray(labels).astype(str), return_inverse=True)
    return codes.reshape(-1), uniques


def subgroup_wald(values: npt.ArrayLike, groups: npt.ArrayLike, clusters: npt.ArrayLike | None = None) -> SubgroupWald:
    """The cluster-robust Wald test that the subgroups' means are equal (see the module doc).

    ``values``: one finite number per item; ``groups``: its subgroup label; ``clusters``: its
    cluster label (None: each item its own cluster)."""
    y = np.asarray(values, dtype=float).reshape(-1)
    g, labels = _codes(groups)
    if g.size != y.size:
        raise ValueError(f"values ({y.size}) and groups ({g.size}) differ in length")
    if not np.isfinite(y).all():
        raise ValueError("values must be finite")
    c, cl = (np.arange(y.size), None) if clusters is None else _codes(clusters)
    n, k, n_clusters = y.size, labels.size, int(c.max()) + 1 if y.size else 0
    n_g = np.bincount(g, minlength=k).astype(float)
    means = np.bincount(g, weights=y, minlength=k) / n_g
    resid = y - means[g]
    s = np.bincount(c * k + g, weights=resid, minlength=n_clusters * k).reshape(n_clusters, k)
    q = k - 1
    untested = SubgroupWald(statistic=None, wald=None, df_num=q, df_denom=max(n_clusters - 1, 0), p_value=None, n=n,
                            n_groups=k, n_clusters=n_clusters, clustered=clusters is not None,
                            labels=tuple(str(x) for x in labels), means=tuple(float(m) for m in means),
                            se=(float("nan"),) * k)
    if k < 2 or n_clusters - 1 < q or n <= k:
        why = ("one subgroup: nothing to compare" if k < 2 else
               f"{n_clusters} clusters for {k} subgroups: too few for a cluster-robust test" if n_clusters - 1 < q
               else f"{n} items for {k} subgroups: too few")
        return replace(untested, note=why)
    factor = n_clusters / (n_clusters - 1) * (n - 1) / (n - k)
    cov = factor * (s.T @ s) / np.outer(n_g, n_g)
    se = tuple(float(v) for v in np.sqrt(np.diag(cov)))
    r = np.hstack([-np.ones((q, 1)), np.eye(q)])
    rb = r @ means
    rvr = r @ cov @ r.T
    if np.linalg.matrix_rank(rvr) < q:
        return replace(untested, se=se,
                       note="a subgroup's mean has no variation across clusters: the Wald test is undefined")
    wald = float(rb @ np.linalg.solve(rvr, rb))
    stat = wald / q
    return replace(untested, statistic=stat, wald=wald, p_value=float(fdtrc(q, n_clusters - 1, stat)), se=se)
