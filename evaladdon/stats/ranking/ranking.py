"""Ranking K models from per-item scores on shared items, with honest intervals on ranks.

Input: an ``(n, K)`` matrix of per-item scores (epochs already averaged; every model scored on
every item) and optional cluster labels (the independent unit; each item its own otherwise).
Everything is computed from per-cluster totals ``T_ck = sum_{i in c} x_ik`` and sizes ``n_c``.

- **Pairwise comparisons** (all ``K(K-1)/2`` pairs, paired on items): ``d = mean_a - mean_b``,
  clustered variance ``C/(C-1) sum_c (R_ca - R_cb)^2 / n^2`` with ``R_ck = T_ck - n_c mean_k``
  (the paired sandwich of DESIGN.md, all pairs at once from ``S = R'R``), two-sided t test on
  ``C - 1`` df, Holm (1979) adjusted over all pairs.
- **Rank intervals** (default, simultaneous): ``rank_low = 1 + #{models significantly above}``,
  ``rank_high = K - #{models significantly below}`` after Holm.  Holm controls the family-wise
  error over all pairs, so with probability >= ``level`` (up to directional errors, which are
  rarer still) every model's true rank lies in its interval at once.
- **Bootstrap ranks**: the paired cluster bootstrap (clusters resampled with all K scores; a
  replicate's means are ``w T / w n`` for multinomial weights ``w``); per replicate the rank
  ``1 + #{j: m_j > m_i}`` (ties share the better rank); marginal percentile rank intervals
  and the matrix ``P(rank of model i = r)``.
- **Groups the data cannot separate** (tiers): the best unassigned model leads a tier that takes
  every unassigned model not significantly below it (Holm); repeat.  Tier 1 is the set of models
  that could be the best.
- **Winner's curse**: the top observed score over-estimates the best model's true score.
  ``optimism`` = bootstrap estimate of ``E[max_k m_k] - max_k mu_k`` (mean over replicates of the
  replicate's maximum minus the observed maximum; Efron & Tibshirani 1993, ch. 10 bias estimate);
  ``top_corrected = max_k m_k - optimism`` (floored at 0: a negative estimate is resampling noise).  ``optimism_bound`` = ``sqrt(2 ln K) max_k se_k``, an
  upper bound for Gaussian errors under any dependence (the maximal inequality
  ``E max_k e_k <= sigma sqrt(2 ln K)``), since ``max(mu + e) - max mu <= max e``.

Oracles in the tests: exact enumeration of every bootstrap resample on a small case (rank
probabilities), statsmodels ``multipletests`` (Holm) and scipy's paired t test, and a seeded
Monte-Carlo check that the default rank intervals cover all true ranks at least ``level`` of
the time.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import field

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import check_level
from evaladdon.stats._base.result import Interval, IntervalResult, ci_bounds, holds_interval

__all__ = ["RankingResult", "competition_ranks", "pairwise_tests", "rank_models"]


@holds_interval
class RankingResult(IntervalResult):
    _ci_of = ("mean", "method")
    models: tuple[str, ...]
    mean: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    ci: Interval = field(init=False, metadata=ci_bounds())
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    boot_rank_low: np.ndarray
    boot_rank_high: np.ndarray
    rank_probabilities: np.ndarray
    tier: np.ndarray
    p_values: np.ndarray
    p_adjusted: np.ndarray
    diff: np.ndarray
    top_model: str
    top_score: float
    optimism: float
    top_corrected: float
    optimism_bound: float
    level: float
    n_items: int
    n_clusters: int
    n_boot: int
    seed: int | None
    method: str
    notes: tuple[str, ...]
    lower_is_better: bool = False
    """Ranked with the LOWEST mean first (perplexity, error rates): see :func:`rank_models`."""


def competition_ranks(m: np.ndarray) -> np.ndarray:
    """``1 + #{j: m_j > m_i}`` along the last axis (tied models share the better rank)."""
    s = np.sort(m, axis=-1)
    k = m.shape[-1]
    # number of values strictly greater = k - (index of the first value > m_i in sorted order)
    if m.ndim == 1:
        return 1 + k - np.searchsorted(s, m, side="right")
    out = np.empty(m.shape, dtype=np.int64)
    for r in range(k):  # K columns, each vectorised over replicates
        out[..., r] = 1 + (m > m[..., r : r + 1]).sum(axis=-1)
    return out


def pairwise_tests(totals: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Mean differences, their clustered SEs and two-sided t p-values (``C - 1`` df), all pairs."""
    from scipy import stats as sps

    n = sizes.sum()
    c = totals.shape[0]
    mean = totals.sum(axis=0) / n
    resid = totals - sizes[:, None] * mean[None, :]
    s = resid.T @ resid
    var = (c / (c - 1)) * (np.diag(s)[:, None] + np.diag(s)[None, :] - 2.0 * s) / n**2
    diff = mean[:, None] - mean[None, :]
    se = np.sqrt(np.clip(var, 0.0, None))
    with np.errstate(invalid="ignore", divide="ignore"):
        tstat = diff / se
    p = 2.0 * sps.t.sf(np.abs(tstat), c - 1)
    p = np.where(se > 0, p, np.where(diff == 0, 1.0, 0.0))  # identical scores: no evidence; constant gap: exact
    np.fill_diagonal(p, np.nan)
    return diff, se, p, c - 1


def rank_models(
    scores: npt.ArrayLike,
    models: list[str] | tuple[str, ...],
    cluster: npt.ArrayLike | None = None,
    *,
    level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = 0,
    batch: int = 2000,
    lower_is_better: bool = False,
) -> RankingResult:
    """Rank models from the ``(n_items, K)`` score matrix (see the module doc).

    ``lower_is_better`` (perplexity, error rates): the ranking of ``-scores`` with every score
    reported back on the metric's own sign (means, intervals, ``diff``, the top score -- the
    lowest -- and its winner's-curse correction ``min + optimism``); ranks, tiers and p-values
    are those of ``-scores``.  Oracle: the ranking of the negated matrix."""
    if lower_is_better:
        got = rank_models(-np.asarray(scores, dtype=float), models, cluster, level=level, n_boot=n_boot, seed=seed,
                          batch=batch)
        return dataclasses.replace(
            got, mean=-got.mean, ci_low=-got.ci_high, ci_high=-got.ci_low, diff=-got.diff, top_score=-got.top_score,
            top_corrected=-got.top_corrected, lower_is_better=True)
    from evaladdon.stats.paired.multiple import adjust_pvalues

    level = check_level(level)
    x, cl, c = _checked_scores(scores, models, cluster, n_boot)
    n, k = x.shape
    totals = np.zeros((c, k))
    np.add.at(totals, cl, x)
    sizes = np.bincount(cl, minlength=c).astype(float)
    mean = totals.sum(axis=0) / n
    diff, _se_d, p, df = pairwise_tests(totals, sizes)
    iu = np.triu_indices(k, 1)
    adj_flat = adjust_pvalues(p[iu], "holm")
    p_adj = np.full((k, k), np.nan)
    p_adj[iu] = adj_flat
    p_adj.T[iu] = adj_flat
    alpha = 1.0 - level
    sig = (p_adj < alpha) & np.isfinite(p_adj)
    above = (sig & (diff < 0)).sum(axis=1)  # j significantly above i
    below = (sig & (diff > 0)).sum(axis=1)
    rank_low, rank_high = 1 + above, k - below
    rank = competition_ranks(mean)
    order = np.argsort(-mean, kind="stable")
    tier = _tiers(order, sig, diff)
    resid = totals - sizes[:, None] * mean[None, :]
    se = np.sqrt((c / (c - 1)) * (resid**2).sum(axis=0)) / n
    top = int(order[0])
    bound = math.sqrt(2.0 * math.log(k)) * float(se.max()) if k > 1 else 0.0
    notes: list[str] = []
    if c < 20:
        notes.append(f"only {c} independent units: intervals are rough")
    if n_boot:
        reps = _boot_means(totals, sizes, n_boot, seed, batch)
        ranks = competition_ranks(reps)
        q = [alpha / 2.0, 1.0 - alpha / 2.0]
        b_lo, b_hi = np.quantile(ranks, q, axis=0, method="inverted_cdf").astype(int)
        ci_low, ci_high = np.quantile(reps, q, axis=0)
        probs = np.stack([(ranks == r).mean(axis=0) for r in range(1, k + 1)], axis=1)
        # E*[max] >= max E* = the observed maximum (Jensen); a negative value is resampling noise
        optimism = max(0.0, float(reps.max(axis=1).mean() - mean.max()))
        method = f"Holm pairwise t (df {df}) rank bounds; cluster bootstrap ({n_boot}) percentile"
    else:
        from scipy import stats as sps

        tq = float(sps.t.ppf(1 - alpha / 2, df))
        ci_low, ci_high = mean - tq * se, mean + tq * se
        b_lo, b_hi = rank_low.copy(), rank_high.copy()
        probs = np.full((k, k), np.nan)
        optimism = float("nan")
        method = f"Holm pairwise t (df {df}) rank bounds; t intervals"
    return RankingResult(
        models=tuple(str(m) for m in models), mean=mean, se=se, ci_low=ci_low, ci_high=ci_high, rank=rank,
        rank_low=rank_low, rank_high=rank_high, boot_rank_low=b_lo, boot_rank_high=b_hi, rank_probabilities=probs,
        tier=tier, p_values=p, p_adjusted=p_adj, diff=diff, top_model=str(models[top]), top_score=float(mean[top]),
        optimism=optimism, top_corrected=float(mean[top] - optimism) if n_boot else float("nan"),
        optimism_bound=bound, level=level, n_items=n, n_clusters=c, n_boot=int(n_boot), seed=seed, method=method,
        notes=tuple(notes),
    )


def _checked_scores(scores: npt.ArrayLike, models: list[str] | tuple[str, ...], cluster: npt.ArrayLike | None,
                    n_boot: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The ``(n, K)`` score matrix, each item's cluster code ``0..C-1`` (each item its own cluster
    without ``cluster``) and ``C``, after :func:`rank_models`' checks (a ``ValueError`` each)."""
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2 or x.shape[1] != len(models):
        raise ValueError("scores must be an (items, models) matrix with one column per model")
    n, k = x.shape
    if k < 2:
        raise ValueError("ranking needs at least two models")
    if not np.all(np.isfinite(x)):
        raise ValueError("scores must be finite (drop unscored items first)")
    if cluster is None:
        cl, c = np.arange(n), n
    else:
        labels = np.asarray(cluster).astype(str)
        if labels.shape != (n,):
            raise ValueError("cluster must have one label per item")
        _, cl = np.unique(labels, return_inverse=True)
        c = int(cl.max()) + 1
    if c < 2:
        raise ValueError("ranking needs at least two items (or clusters)")
    if n_boot and n_boot < 100:
        raise ValueError("use at least 100 bootstrap replicates (or 0 for none)")
    return x, cl, c


def _tiers(order: np.ndarray, sig: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """Tiers 1, 2, ...: the best unassigned model (``order``: best first) and every unassigned
    model not significantly below it (``sig``: Holm-significant pairs, ``diff[i, j] = mean_i - mean_j``)."""
    tier = np.zeros(order.size, dtype=int)
    t_no = 0
    for lead in order:  # K models; not a loop over items
        if tier[lead]:
            continue
        t_no += 1
        members = (tier == 0) & ~(sig[lead] & (diff[lead] > 0))
        tier[members] = t_no
    return tier


def _boot_means(totals: np.ndarray, sizes: np.ndarray, n_boot: int, seed: int | None, batch: int) -> np.ndarray:
    """``(n_boot, K)`` cluster-bootstrap means: multinomial cluster weights ``w``, each replicate's
    means ``(w @ totals) / (w @ sizes)``, in batches of replicates."""
    c, k = totals.shape
    rng = np.random.default_rng(seed)
    reps = np.empty((n_boot, k))
    batch = max(1, min(batch, int(1e7 // c)))  # the (batch, C) weight matrix stays near 80 MB
    for start in range(0, n_boot, batch):  # batches of replicates
        b = min(batch, n_boot - start)
        w = rng.multinomial(c, np.full(c, 1.0 / c), size=b).astype(float)
        reps[start : start + b] = (w @ totals) / (w @ sizes)[:, None]
    return reps
