"""Agreement between raters (LLM judges, humans): Cohen's and quadratic-weighted kappa, Fleiss'
kappa, Gwet's AC1 and Krippendorff's alpha (nominal, ordinal, interval), each with a cluster
bootstrap interval over items.

Input: an items x raters matrix of category values (NaN = not rated).  Every coefficient is a
function of weighted sums over items of per-item quantities (confusion cells, category counts,
coincidences), so the bootstrap is one matrix product ``W @ per-item table`` for all replicates:
``W`` ``(B, n)`` holds the multinomial resampling counts of the clusters (each item its own cluster
by default), no Python loop per replicate or item.

Formulas (q categories with values v_1 < ... < v_q):

- **Cohen's kappa** (Cohen 1960), two raters on the items both rated: ``(p_o - p_e)/(1 - p_e)``,
  ``p_o = sum_c P_cc``, ``p_e = sum_c P_c. P_.c`` from the joint proportions ``P``.
- **Weighted kappa** (Cohen 1968), quadratic disagreement weights ``(v_c - v_k)^2`` on category
  *ranks* ``(c - k)^2`` as scikit-learn does: ``1 - sum w P / sum w P_c. P_.k``.
- **Fleiss' kappa** (Fleiss 1971) on items rated by every rater (m of them): with counts
  ``n_ic``, ``P_i = (sum_c n_ic^2 - m)/(m(m-1))``, ``p_c = sum_i n_ic / (N m)``,
  ``kappa = (mean P_i - sum p_c^2)/(1 - sum p_c^2)``.
- **Gwet's AC1** (Gwet 2008, multi-rater form, missing ratings allowed): ``p_a`` = mean over items
  with ``r_i >= 2`` ratings of ``sum_c n_ic(n_ic - 1)/(r_i(r_i - 1))``; ``pi_c`` = mean over items of
  ``n_ic / r_i``; ``p_e = sum_c pi_c(1 - pi_c)/(q - 1)``; ``AC1 = (p_a - p_e)/(1 - p_e)``.
- **Krippendorff's alpha** (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"):
  coincidences ``o_ck = sum_i (n_ic n_ik - [c = k] n_ic)/(r_i - 1)`` over items with ``r_i >= 2``,
  ``n_c = sum_k o_ck``, ``n = sum_c n_c``; ``alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck``
  with ``d_ck`` = ``[c != k]`` (nominal), ``(v_c - v_k)^2`` (interval),
  ``(sum_{g=c..k} n_g - (n_c + n_k)/2)^2`` (ordinal).

Intervals: percentile bootstrap over items, or over clusters of items when given (Hayes &
Krippendorff 2007 bootstrap the units likewise).  Oracles in the tests: scikit-learn's
``cohen_kappa_score`` (plain and ``weights="quadratic"``), statsmodels' ``fleiss_kappa``, the
``krippendorff`` package, a hand AC1; a seeded Monte-Carlo of the intervals' coverage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import check_level
from evaladdon.stats._base.result import Result

__all__ = ["AgreementCoefficient", "AGREEMENT_COEFFICIENTS", "MAX_AGREEMENT_CATEGORIES", "agreement_coefficients", "alpha_from_counts",
           "cohen_from_counts", "fleiss_from_counts", "gwet_from_counts"]

MAX_AGREEMENT_CATEGORIES = 30
AGREEMENT_COEFFICIENTS: tuple[str, ...] = ("cohen_kappa", "weighted_kappa", "fleiss_kappa", "gwet_ac1", "alpha_nominal",
                                 "alpha_ordinal", "alpha_interval")


@dataclass(frozen=True)
class AgreementCoefficient(Result):
    """One coefficient: its estimate, percentile bootstrap interval, and what it was computed on."""

    name: str
    raters: tuple[str, ...]
    estimate: float
    ci_low: float
    ci_high: float
    n_items: int
    n_clusters: int
    n_boot: int
    n_boot_undefined: int
    level: float


# --- coefficients from (weighted) sufficient statistics; leading axes are replicates ---------------

def cohen_from_counts(conf: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Cohen's kappa (``weights`` None) or weighted kappa from confusion tables ``(..., q, q)``."""
    tot = conf.sum(axis=(-2, -1))[..., None, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        p = conf / tot
        expected = p.sum(axis=-1)[..., :, None] * p.sum(axis=-2)[..., None, :]
        if weights is None:
            po = np.trace(p, axis1=-2, axis2=-1)
            pe = np.trace(expected, axis1=-2, axis2=-1)
            return (po - pe) / (1.0 - pe)
        return 1.0 - (weights * p).sum(axis=(-2, -1)) / (weights * expected).sum(axis=(-2, -1))


def fleiss_from_counts(sum_sq: np.ndarray, counts: np.ndarray, n_items: np.ndarray, m: int) -> np.ndarray:
    """Fleiss' kappa from ``sum_i w_i sum_c n_ic^2`` ``(...,)``, ``sum_i w_i n_ic`` ``(..., q)``, ``sum_i w_i``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bar = (sum_sq - n_items * m) / (n_items * m * (m - 1))
        pc = counts / (n_items * m)[..., None]
        pe = (pc**2).sum(axis=-1)
        return (p_bar - pe) / (1.0 - pe)


def gwet_from_counts(pa_sum: np.ndarray, n_pa: np.ndarray, pi_sum: np.ndarray, n_items: np.ndarray) -> np.ndarray:
    """Gwet's AC1 from ``sum w_i pa_i`` and ``sum w_i`` over items with two or more ratings, and
    ``sum w_i n_ic / r_i`` ``(..., q)`` and ``sum w_i`` over all rated items."""
    q = pi_sum.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = pa_sum / n_pa
        pi = pi_sum / n_items[..., None]
        pe = (pi * (1.0 - pi)).sum(axis=-1) / (q - 1)
        return (pa - pe) / (1.0 - pe)


def _ordinal_distance(nc: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal metric from the marginals ``(..., q)``: ``(..., q, q)``."""
    cum = np.cumsum(nc, axis=-1)
    # sum_{g=c..k} n_g = cum_k - cum_c + n_c for c <= k
    lo = cum[..., :, None] - nc[..., :, None]
    span = cum[..., None, :] - lo
    span = np.where(np.triu(np.ones(nc.shape[-1:] * 2, bool)), span, np.swapaxes(span, -1, -2))
    return (span - (nc[..., :, None] + nc[..., None, :]) / 2.0) ** 2


def alpha_from_counts(coinc: np.ndarray, level: str, values: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha from coincidence matrices ``(..., q, q)`` at ``level`` (nominal,
    ordinal, interval); ``values`` the categories' values (interval metric)."""
    nc = coinc.sum(axis=-1)
    n = nc.sum(axis=-1)
    q = values.size
    if level == "nominal":
        d = 1.0 - np.eye(q)
    elif level == "interval":
        d = (values[:, None] - values[None, :]) ** 2
    else:
        d = _ordinal_distance(nc)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (coinc * d).sum(axis=(-2, -1))
        expected = (nc[..., :, None] * nc[..., None, :] * d).sum(axis=(-2, -1))
        return 1.0 - (n - 1.0) * observed / expected


# --- per-item tables and the driver --------------------------------------------------------------

def _codes(ratings: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    r = np.asarray(ratings, dtype=float)
    if r.ndim != 2 or r.shape[1] < 2:
        raise ValueError("ratings must be an items x raters matrix with at least two raters")
    if np.isinf(r).any():
        raise ValueError("ratings must be finite (NaN for not rated)")
    values = np.unique(r[~np.isnan(r)])
    if values.size > MAX_AGREEMENT_CATEGORIES:
        raise ValueError(f"{values.size} distinct values: these coefficients are for categorical or graded verdicts "
                         f"(at most {MAX_AGREEMENT_CATEGORIES} categories)")
    if values.size < 2:
        raise ValueError("every rating has the same value: agreement beyond chance is undefined")
    codes = np.where(np.isnan(r), -1, np.searchsorted(values, np.nan_to_num(r))).astype(int)
    return codes, values


@dataclass(frozen=True)
class _Part:
    """One coefficient's columns in the per-item table: name, raters, column slice, the items it
    uses (mask), and the statistic of its summed columns ``(b, width) -> (b,)``."""

    name: str
    raters: tuple[str, ...]
    cols: slice
    used: np.ndarray
    stat: Callable[[np.ndarray], np.ndarray]


def _pair_parts(codes: np.ndarray, q: int, names: tuple[str, ...], at: int) -> tuple[list[np.ndarray], list[_Part]]:
    """Per-item confusion indicators ``(n, q*q)`` of every pair of raters (zero where either did
    not rate): Cohen's and the quadratic-weighted kappa read the same columns."""
    m = codes.shape[1]
    oh = (codes[..., None] == np.arange(q)).astype(float)  # (n, m, q), zero where not rated
    ranks = np.arange(q, dtype=float)
    quad = (ranks[:, None] - ranks[None, :]) ** 2
    blocks, parts = [], []
    for a in range(m):
        for b in range(a + 1, m):
            tab = (oh[:, a, :, None] * oh[:, b, None, :]).reshape(len(codes), q * q)
            cols = slice(at, at + q * q)
            used = tab.sum(axis=1) > 0
            pair = (names[a], names[b])
            parts.append(_Part("cohen_kappa", pair, cols, used, lambda t: cohen_from_counts(t.reshape(-1, q, q))))
            parts.append(_Part("weighted_kappa", pair, cols, used,
                               lambda t: cohen_from_counts(t.reshape(-1, q, q), quad)))
            blocks.append(tab)
            at += q * q
    return blocks, parts


def _multi_parts(counts: np.ndarray, m: int, names: tuple[str, ...], values: np.ndarray,
                 at: int) -> tuple[list[np.ndarray], list[_Part]]:
    """Per-item columns of Fleiss' kappa (complete items), Gwet's AC1 and Krippendorff's alpha."""
    q = values.size
    r = counts.sum(axis=1)
    full, two, one = r == m, r >= 2, r >= 1
    fl = np.where(full[:, None], np.column_stack([(counts**2).sum(axis=1), counts, np.ones(len(r))]), 0.0)
    pa = np.zeros(len(r))
    pa[two] = (counts[two] * (counts[two] - 1.0)).sum(axis=1) / (r[two] * (r[two] - 1.0))
    # Gwet (2008): p_a over items with two or more ratings, pi_c over items with any rating
    gw = np.column_stack([pa, two, counts / np.maximum(r, 1.0)[:, None], one]).astype(float)
    co = np.zeros((len(r), q, q))
    co[two] = ((counts[two][:, :, None] * counts[two][:, None, :] - counts[two][:, :, None] * np.eye(q))
               / (r[two] - 1.0)[:, None, None])
    co2 = co.reshape(len(r), q * q)
    f0, g0, a0 = at, at + q + 2, at + 2 * q + 5
    parts = [
        _Part("fleiss_kappa", names, slice(f0, g0), full,
              lambda t: fleiss_from_counts(t[:, 0], t[:, 1:q + 1], t[:, q + 1], m)),
        _Part("gwet_ac1", names, slice(g0, a0), one,
              lambda t: gwet_from_counts(t[:, 0], t[:, 1], t[:, 2:q + 2], t[:, q + 2])),
    ]
    for lev in ("nominal", "ordinal", "interval"):
        parts.append(_Part(f"alpha_{lev}", names, slice(a0, a0 + q * q), two, _alpha_stat(q, lev, values)))
    return [fl, gw, co2], parts


def _alpha_stat(q: int, level: str, values: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Krippendorff's alpha at ``level`` of summed coincidence columns ``(b, q*q)``."""
    return lambda t: alpha_from_counts(t.reshape(-1, q, q), level, values)


def agreement_coefficients(ratings: npt.ArrayLike, raters: list[str] | tuple[str, ...] | None = None,
              cluster: npt.ArrayLike | None = None, *, n_boot: int = 1000, level: float = 0.95,
              seed: int | None = 0, method: str = "bca") -> list[AgreementCoefficient]:
    """Every coefficient of the module doc on ``ratings`` (items x raters, NaN = not rated):
    Cohen's and quadratic-weighted kappa per pair of raters, then Fleiss' kappa (items rated by
    all), Gwet's AC1 and Krippendorff's alpha at the three levels over all raters.  ``cluster``
    labels items for the bootstrap (None: items are independent); intervals by
    :func:`evaladdon.stats.resampling.replicate_tables` (``method`` ``bca`` or ``percentile``);
    ``n_boot=0``: no intervals."""
    from evaladdon.stats.resampling import cluster_totals, interval_ends, replicate_tables

    level = check_level(level)
    codes, values = _codes(ratings)
    n, m = codes.shape
    names = tuple(raters) if raters is not None else tuple(f"rater {j + 1}" for j in range(m))
    if len(names) != m:
        raise ValueError("one name per rater (column)")
    cl = np.arange(n) if cluster is None else np.unique(np.asarray(cluster).astype(str), return_inverse=True)[1]
    if cl.size != n:
        raise ValueError("one cluster label per item")
    q = values.size
    blocks, parts = _pair_parts(codes, q, names, 0)
    counts = (codes[..., None] == np.arange(q)).sum(axis=1).astype(float)
    more, multi = _multi_parts(counts, m, names, values, sum(b.shape[1] for b in blocks))
    table = np.hstack(blocks + more)
    parts += multi

    def statistic(t: np.ndarray) -> np.ndarray:
        return np.column_stack([p.stat(t[:, p.cols]) for p in parts])

    totals = cluster_totals(table, cl)
    if n_boot:
        vb = replicate_tables(totals, statistic, n_boot, seed)
        est, ends = vb.estimate, interval_ends(vb.replicates, vb.estimate, vb.jackknife, level, method)
        undefined = (~np.isfinite(vb.replicates)).sum(axis=0)
    else:
        est = statistic(totals.sum(axis=0)[None, :])[0]
        ends, undefined = np.full((2, len(parts)), np.nan), np.zeros(len(parts), int)
    return [AgreementCoefficient(p.name, p.raters, float(est[j]), float(ends[0, j]), float(ends[1, j]),
                                 int(p.used.sum()), int(np.unique(cl[p.used]).size), int(n_boot),
                                 int(undefined[j]), level) for j, p in enumerate(parts)]
