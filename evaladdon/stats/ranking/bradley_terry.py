"""Bradley–Terry ratings from pairwise battles, with cluster-bootstrap and sandwich intervals.

Model (Bradley & Terry 1952; Zermelo 1929): ``P(i beats j) = sigma(theta_i - theta_j)``,
``sigma`` the logistic function.  Ties (``ties=``):

- ``"half"`` (default, Chatbot Arena's convention): a tie is half a win for each side; the
  log-likelihood is ``sum_ij w_ij log sigma(theta_i - theta_j)`` with fractional win counts
  ``w_ij`` (AlpacaEval's weighted preferences enter the same way).
- ``"davidson"`` (Davidson 1970): ``P(i wins) = pi_i / D``, ``P(tie) = nu sqrt(pi_i pi_j) / D``,
  ``D = pi_i + pi_j + nu sqrt(pi_i pi_j)``, ``pi = exp(theta)``; per pair the log-likelihood is
  ``(w_ij - w_ji) d/2 + t_ij log nu - n_ij log(2 cosh(d/2) + nu)`` with ``d = theta_i - theta_j``.

Estimation: maximum likelihood by Newton's method on the aggregated pair counts (the sufficient
statistic: per pair ``w_ij, w_ji, t_ij``), so an iteration costs ``O(K^2)`` for K models, never a
pass over battles.  One theta is fixed at 0 while solving; ratings are reported on the Elo scale
``base + scale (theta - centre)`` with ``scale = 400 / ln 10`` and ``centre`` the mean of theta
(default) or the anchor model's theta (the anchor then sits at ``base`` with a zero-width
interval).  The MLE exists only when the "beats" graph (an edge i -> j when i has positive win
weight over j; a tie gives both edges) is strongly connected (Ford 1957); otherwise a ValueError.

Intervals:

- ``bootstrap`` (default): resample clusters (prompts) with replacement.  Battles are first
  aggregated into per-(cluster, pair) rows; a replicate's pair table is the multinomial weight
  matrix times these stacked tables (one sparse matrix product for all replicates), and each
  replicate is solved by Newton's method warm-started at the full-data MLE, vectorised across
  replicates.  Percentile intervals for ratings, win probabilities and ranks (rank 1 = best;
  rank intervals are marginal percentile intervals of the replicate ranks).  ``rank_ub`` is the
  Chatbot Arena leaderboard's "Rank (UB)": ``1 + #{j: low_j > high_i}``.
- ``sandwich``: cluster-robust covariance ``I^-1 (C/(C-1) sum_c s_c s_c') I^-1`` with ``I`` the
  observed information and ``s_c`` the score summed over cluster c (Liang & Zeger 1986), normal
  intervals; rank intervals from Holm-adjusted pairwise z-tests of rating differences
  (``1 + #{significantly above}`` to ``K - #{significantly below}``, simultaneous).

Oracles in the tests: ``choix.opt_pairwise`` and statsmodels' binomial GLM (MLE and, with
``cov_type="cluster"``, the sandwich), a direct ``scipy.optimize`` maximisation of Davidson's
likelihood, and a seeded Monte-Carlo coverage check of the bootstrap intervals on simulated
tournaments with a known truth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import check_level
from evaladdon.stats._base.result import Interval, IntervalResult, Result, ci_bounds, holds_interval
from evaladdon.stats.ranking._bt_numerics import (
    _information, _nan_percentiles, _newton, _norm_ppf, _pair_terms, _rank_bounds_from_cov, _strongly_connected,
)

__all__ = [
    "ELO_SCALE", "INTERVALS", "TIES", "BradleyTerryResult", "PairCounts", "PositionBias", "bradley_terry",
    "pair_counts", "position_bias",
]

ELO_SCALE = 400.0 / math.log(10.0)
TIES: tuple[str, ...] = ("half", "davidson")
INTERVALS: tuple[str, ...] = ("bootstrap", "sandwich")


@dataclass(frozen=True)
class PairCounts:
    """Battles aggregated per (cluster, unordered pair): the sufficient statistic.

    ``i < j`` index the pair in ``pairs``; row r of ``rows_*`` is (cluster ``row_cluster[r]``,
    pair ``row_pair[r]``) with win weight of i (``w_ij``), of j (``w_ji``) and ties (``t``,
    Davidson only; zero when ties are split half/half).
    """

    n_models: int
    n_clusters: int
    pair_i: np.ndarray
    pair_j: np.ndarray
    row_cluster: np.ndarray
    row_pair: np.ndarray
    w_ij: np.ndarray
    w_ji: np.ndarray
    t: np.ndarray

    def totals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pair totals over all clusters (each of shape ``(P,)``)."""
        p = self.pair_i.size
        return (np.bincount(self.row_pair, self.w_ij, p), np.bincount(self.row_pair, self.w_ji, p),
                np.bincount(self.row_pair, self.t, p))

    def replicate(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pair totals under cluster weights ``(B, C)``: each of shape ``(B, P)``."""
        from scipy import sparse

        shape = (self.pair_i.size, self.n_clusters)
        wt = np.ascontiguousarray(weights.T)
        out = []
        for v in (self.w_ij, self.w_ji, self.t):
            if not v.any():
                out.append(np.zeros((weights.shape[0], self.pair_i.size)))
                continue
            m = sparse.csr_matrix((v, (self.row_pair, self.row_cluster)), shape=shape)
            out.append(np.ascontiguousarray((m @ wt).T))
        return out[0], out[1], out[2]


def pair_counts(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, cluster: np.ndarray, n_models: int,
                n_clusters: int, tie: np.ndarray | None = None, davidson: bool = False) -> PairCounts:
    """Aggregate battles (integer model codes ``a``, ``b``; ``outcome`` = win weight of a) per
    (cluster, pair).  With ``davidson``, battles flagged ``tie`` count as ties, not half wins."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    y = np.asarray(outcome, dtype=float)
    c = np.asarray(cluster, dtype=np.int64)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    y_lo = np.where(a == lo, y, 1.0 - y)  # win weight of the lower-indexed model
    is_tie = np.zeros(y.size, bool) if tie is None or not davidson else np.asarray(tie, dtype=bool)
    key = (c * n_models + lo) * n_models + hi
    uniq, inv = np.unique(key, return_inverse=True)
    w_lo = np.bincount(inv, np.where(is_tie, 0.0, y_lo), uniq.size)
    w_hi = np.bincount(inv, np.where(is_tie, 0.0, 1.0 - y_lo), uniq.size)
    t = np.bincount(inv, is_tie.astype(float), uniq.size)
    pair_key = uniq % (n_models * n_models)
    pairs, row_pair = np.unique(pair_key, return_inverse=True)
    return PairCounts(n_models, n_clusters, pairs // n_models, pairs % n_models, uniq // (n_models * n_models),
                      row_pair, w_lo, w_hi, t)


@holds_interval
class BradleyTerryResult(IntervalResult):
    """Ratings (Elo scale), intervals, ranks, and win-probability matrices for K models."""

    _ci_of = ("rating", "interval")
    models: tuple[str, ...]
    theta: np.ndarray
    rating: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    ci: Interval = field(init=False, metadata=ci_bounds())
    se: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    rank_ub: np.ndarray
    level: float
    interval: str
    ties: str
    tie_param: float | None
    anchor: str | None
    base: float
    scale: float
    n_battles: float
    n_clusters: int
    n_boot: int
    n_boot_degenerate: int
    seed: int | None
    battles: np.ndarray
    win_rate: np.ndarray
    win_rate_low: np.ndarray
    win_rate_high: np.ndarray
    predicted: np.ndarray
    predicted_low: np.ndarray
    predicted_high: np.ndarray
    sandwich_low: np.ndarray
    sandwich_high: np.ndarray
    sandwich_se: np.ndarray
    log_likelihood: float
    notes: tuple[str, ...]


def _codes(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    uniq, inv = np.unique(labels.astype(str), return_inverse=True)
    return uniq, inv


def _ranks(r: np.ndarray) -> np.ndarray:
    """Rank 1 = highest rating along the last axis (ties broken by order)."""
    order = np.argsort(-r, axis=-1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, r.shape[-1] + 1), axis=-1)
    return ranks


def _expected_score(theta: np.ndarray, kappa: np.ndarray | float | None) -> np.ndarray:
    """``P(i beats j) + P(tie)/2`` for every pair, shape ``(..., K, K)``."""
    d = theta[..., :, None] - theta[..., None, :]
    if kappa is None:
        return 0.5 * (1.0 + np.tanh(0.5 * d))
    nu = np.exp(np.asarray(kappa, dtype=float))[..., None, None]
    half = 0.5 * d
    den = 2.0 * np.cosh(half) + nu
    return (np.exp(half) + 0.5 * nu) / den


def bradley_terry(
    model_a: npt.ArrayLike,
    model_b: npt.ArrayLike,
    outcome: npt.ArrayLike,
    cluster: npt.ArrayLike | None = None,
    tie: npt.ArrayLike | None = None,
    *,
    ties: Literal["half", "davidson"] = "half",
    anchor: str | None = None,
    base: float = 1000.0,
    scale: float = ELO_SCALE,
    interval: Literal["bootstrap", "sandwich"] = "bootstrap",
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int | None = 0,
    batch: int = 1000,
) -> BradleyTerryResult:
    """Fit Bradley–Terry to battles (see the module doc for the model, scale and intervals).

    ``model_a``/``model_b`` name the two sides, ``outcome`` is the win weight of a (1, 0, 0.5 for
    a tie, or a fraction), ``cluster`` the resampling unit (prompt / question id; each battle
    its own cluster when None), ``tie`` flags declared ties (used by ``ties="davidson"``; by
    default ``outcome == 0.5``).  ``n_boot=0`` skips the bootstrap (then intervals and rank
    intervals come from the sandwich).
    """
    level = check_level(level)
    models, a, b, y = _checked_battles(model_a, model_b, outcome, ties, interval, n_boot)
    k = models.size
    cl, n_clusters = _cluster_codes(cluster, y)
    tie_flags = (y == 0.5) if tie is None else np.asarray(tie, dtype=bool)
    dav = ties == "davidson"
    if dav and not tie_flags.any():
        raise ValueError("Davidson's tie model needs at least one tie")
    pc = pair_counts(a, b, y, cl, k, n_clusters, tie_flags, davidson=dav)
    w1, w2, t = pc.totals()
    _check_connected(pc, w1, w2, t, models)
    anchor_idx = _anchor_index(models, anchor)
    ref = int(np.argmax(np.bincount(np.concatenate([a, b]), minlength=k)))
    theta_hat, ka, terms = _fit(pc, w1, w2, t, ref, dav)
    kappa_hat = None if ka is None else float(ka[0])
    centre = np.full(k, 1.0 / k) if anchor_idx is None else np.eye(k)[anchor_idx]  # rating - base = scale A theta
    rating = _to_rating(theta_hat, centre, base, scale)
    cov_r = _sandwich_cov(pc, theta_hat, ka, terms, ref, scale * (np.eye(k) - centre[None, :]))
    sand_se = np.sqrt(np.clip(np.diag(cov_r), 0.0, None))
    z = float(_norm_ppf(0.5 + level / 2.0))
    sand_low, sand_high = rating - z * sand_se, rating + z * sand_se

    notes: list[str] = []
    if n_clusters < 20:
        notes.append(f"only {n_clusters} clusters: resampling intervals are rough")
    nb, wr = _observed(pc.pair_i, pc.pair_j, w1, w2, t, k)
    predicted = _expected_score(theta_hat, kappa_hat)
    np.fill_diagonal(predicted, np.nan)
    rank = _ranks(rating)
    if n_boot:
        reps = _replicates(pc, theta_hat, kappa_hat, ref, n_boot, seed, batch)
        boot = _boot_summary(reps, pc.pair_i, pc.pair_j, centre, base, scale, level, notes)
    else:
        boot = _no_boot(rank, k)
    if interval == "sandwich" or not n_boot:
        low, high, se = sand_low, sand_high, sand_se
        rank_low, rank_high = _rank_bounds_from_cov(rating, cov_r, level)
        used = "sandwich"
    else:
        low, high, se = boot.low, boot.high, boot.se
        rank_low, rank_high = boot.rank_low, boot.rank_high
        used = "bootstrap"
    if anchor_idx is not None:
        notes.append(f"ratings anchored at {anchor} = {base:g}: its interval has zero width; others are relative to it")
    return BradleyTerryResult(
        models=tuple(models.tolist()), theta=theta_hat - theta_hat @ centre, rating=rating, ci_low=low, ci_high=high,
        se=se, rank=rank, rank_low=np.asarray(rank_low), rank_high=np.asarray(rank_high),
        rank_ub=1 + (low[None, :] > high[:, None]).sum(axis=1), level=level,
        interval=used, ties=ties, tie_param=None if kappa_hat is None else math.exp(kappa_hat), anchor=anchor,
        base=base, scale=scale, n_battles=float(y.size), n_clusters=int(n_clusters), n_boot=int(n_boot),
        n_boot_degenerate=boot.degenerate, seed=seed, battles=nb, win_rate=wr, win_rate_low=boot.wr_lo,
        win_rate_high=boot.wr_hi, predicted=predicted, predicted_low=boot.pr_lo, predicted_high=boot.pr_hi,
        sandwich_low=sand_low, sandwich_high=sand_high, sandwich_se=sand_se, log_likelihood=float(terms[5].sum()),
        notes=tuple(notes),
    )


def _checked_battles(model_a: npt.ArrayLike, model_b: npt.ArrayLike, outcome: npt.ArrayLike, ties: str,
                     interval: str, n_boot: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The models (sorted names), the two sides as model codes and the outcomes, after
    :func:`bradley_terry`'s checks of its arguments (a ``ValueError`` for each way they can be wrong)."""
    if ties not in TIES:
        raise ValueError(f"unknown ties model {ties!r}; choose one of {', '.join(TIES)}")
    if interval not in INTERVALS:
        raise ValueError(f"unknown interval {interval!r}; choose one of {', '.join(INTERVALS)}")
    a_lab = np.asarray(model_a).astype(str)
    b_lab = np.asarray(model_b).astype(str)
    y = np.asarray(outcome, dtype=float)
    if not (a_lab.shape == b_lab.shape == y.shape) or y.ndim != 1:
        raise ValueError("model_a, model_b and outcome must be 1-D arrays of the same length")
    if y.size == 0:
        raise ValueError("no battles")
    if not np.all(np.isfinite(y)) or np.any((y < 0) | (y > 1)):
        raise ValueError("outcomes must lie in [0, 1] (1 = model_a wins, 0.5 = tie)")
    if np.any(a_lab == b_lab):
        raise ValueError("a battle has the same model on both sides")
    if n_boot and n_boot < 100:
        raise ValueError("use at least 100 bootstrap replicates (or 0 for none)")
    models, codes = _codes(np.concatenate([a_lab, b_lab]))
    if models.size < 2:
        raise ValueError("ranking needs battles between at least two models")
    return models, codes[: y.size], codes[y.size :], y


def _cluster_codes(cluster: npt.ArrayLike | None, y: np.ndarray) -> tuple[np.ndarray, int]:
    """Cluster codes ``0..C-1`` per battle and ``C`` (each battle its own cluster when None)."""
    if cluster is None:
        return np.arange(y.size), y.size
    cl_labels = np.asarray(cluster).astype(str)
    if cl_labels.shape != y.shape:
        raise ValueError("cluster must have one label per battle")
    uniq_c, cl = np.unique(cl_labels, return_inverse=True)
    return cl, uniq_c.size


def _check_connected(pc: PairCounts, w1: np.ndarray, w2: np.ndarray, t: np.ndarray, models: np.ndarray) -> None:
    """Refuse battles whose MLE does not exist: models in groups that never met (the pair graph is
    not connected), or a "beats" graph that is not strongly connected (module doc; Ford 1957)."""
    pi, pj, k = pc.pair_i, pc.pair_j, pc.n_models
    ok, labels = _strongly_connected(pi, pj, w1, w2, t, k)
    if ok:
        return
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    graph = sparse.csr_matrix((np.ones(pi.size), (pi, pj)), shape=(k, k))
    n_weak, weak = connected_components(graph, directed=False)
    if n_weak > 1:
        small = weak != np.bincount(weak).argmax()
        raise ValueError(f"Bradley–Terry ratings are not comparable: the battles split into {n_weak} groups of "
                         f"models that never met (e.g. {', '.join(models[small][:3])}); rank them separately")
    top = labels == np.bincount(labels).argmax()
    raise ValueError("Bradley–Terry ratings do not exist (the maximum likelihood is at infinity): "
                     f"{int((~top).sum())} model(s) never both win and lose against the others "
                     f"({', '.join(models[~top][:3])}{' ...' if (~top).sum() > 3 else ''})")


def _anchor_index(models: np.ndarray, anchor: str | None) -> int | None:
    """The index of the anchor model (None without one); a ValueError if it is not a model."""
    if anchor is None:
        return None
    hit = np.flatnonzero(models == anchor)
    if hit.size == 0:
        raise ValueError(f"anchor model {anchor!r} is not among the models")
    return int(hit[0])


def _fit(pc: PairCounts, w1: np.ndarray, w2: np.ndarray, t: np.ndarray, ref: int,
         dav: bool) -> tuple[np.ndarray, np.ndarray | None, tuple[Any, ...]]:
    """The full-data MLE by Newton's method from zero (``theta[ref] = 0``): theta ``(K,)``, kappa
    ``(1,)`` or None, and the per-pair terms at the MLE (:func:`_pair_terms` with the log-likelihood)."""
    pi, pj, k = pc.pair_i, pc.pair_j, pc.n_models
    theta0 = np.zeros((1, k))
    kappa0 = np.zeros(1) if dav else None
    th, ka, conv = _newton(pi, pj, k, w1[None], w2[None], t[None], theta0, kappa0, ref)
    if not conv[0]:
        raise ValueError("Bradley–Terry fit did not converge")
    theta_hat = th[0]
    d = theta_hat[pi] - theta_hat[pj]
    terms = _pair_terms(d[None], None if ka is None else ka, w1[None], w2[None], t[None], loglik=True)
    return theta_hat, ka, terms


def _to_rating(theta: np.ndarray, centre: np.ndarray, base: float, scale: float) -> np.ndarray:
    """Elo-scale ratings ``base + scale (theta - centre . theta)`` along the last axis."""
    return base + scale * (theta - (theta @ centre)[..., None])


def _sandwich_cov(pc: PairCounts, theta_hat: np.ndarray, ka: np.ndarray | None, terms: tuple[Any, ...], ref: int,
                  contrast: np.ndarray) -> np.ndarray:
    """Cluster-robust covariance of the ratings, ``L I^-1 (C/(C-1) sum_c s_c s_c') I^-1 L'`` (Liang &
    Zeger 1986): ``I`` the observed information with ``theta[ref]`` fixed (the bread), ``s_c`` the
    score summed over cluster c (the meat), ``L = contrast`` (``scale * A``, the centring contrast)
    on the free thetas."""
    from scipy import sparse

    k, n_clusters = pc.n_models, pc.n_clusters
    dav = ka is not None
    m = k + (1 if dav else 0)
    keep = np.array([x for x in range(m) if x != ref])
    rd = theta_hat[pc.pair_i[pc.row_pair]] - theta_hat[pc.pair_j[pc.row_pair]]
    rg = _pair_terms(rd[None], ka, pc.w_ij[None], pc.w_ji[None], pc.t[None])
    g_rows = rg[0][0]
    ri, rj = pc.pair_i[pc.row_pair], pc.pair_j[pc.row_pair]
    # per-cluster scores as a sparse (C, m) matrix: Arena-scale inputs have ~10^6 clusters
    s_rows = [pc.row_cluster, pc.row_cluster]
    s_cols = [ri, rj]
    s_vals = [g_rows, -g_rows]
    if dav:
        s_rows.append(pc.row_cluster)
        s_cols.append(np.full(pc.row_cluster.size, k))
        s_vals.append(rg[1][0])
    scores = sparse.csc_matrix((np.concatenate(s_vals), (np.concatenate(s_rows), np.concatenate(s_cols))),
                               shape=(n_clusters, m))[:, keep]
    info = _information(pc.pair_i, pc.pair_j, k, terms, dav)
    bread = np.linalg.inv(info[np.ix_(keep, keep)])
    meat = (n_clusters / max(n_clusters - 1, 1)) * (scores.T @ scores).toarray()
    v = bread @ meat @ bread
    embed = np.zeros((k, keep.size))
    for col, idx in enumerate(keep):
        if idx < k:
            embed[idx, col] = 1.0
    lin = contrast @ embed
    return lin @ v @ lin.T


def _observed(pi: np.ndarray, pj: np.ndarray, w1: np.ndarray, w2: np.ndarray, t: np.ndarray,
              k: int) -> tuple[np.ndarray, np.ndarray]:
    """Battles per pair and observed win rates ``(w_ij + t_ij/2) / n_ij`` as ``(K, K)`` matrices
    (NaN where two models never met)."""
    wr = np.full((k, k), np.nan)
    nb = np.zeros((k, k))
    tot = w1 + w2 + t
    nb[pi, pj] = nb[pj, pi] = tot
    with np.errstate(invalid="ignore", divide="ignore"):
        wr[pi, pj] = (w1 + 0.5 * t) / tot
        wr[pj, pi] = (w2 + 0.5 * t) / tot
    return nb, wr


@dataclass(frozen=True)
class _Replicates:
    """The bootstrap replicates' thetas ``(B, K)``, kappas ``(B,)`` (Davidson) or None, per-pair
    win rates ``(B, P)``, and how many replicates did not converge (a rating at infinity)."""

    theta: np.ndarray
    kappa: np.ndarray | None
    win_rate: np.ndarray
    degenerate: int


def _replicates(pc: PairCounts, theta_hat: np.ndarray, kappa_hat: float | None, ref: int, n_boot: int,
                seed: int | None, batch: int) -> _Replicates:
    """Cluster-bootstrap replicates (module doc): multinomial cluster weights, a replicate's pair
    table by one sparse product, Newton warm-started at the MLE, vectorised over a batch."""
    pi, pj, k, n_clusters = pc.pair_i, pc.pair_j, pc.n_models, pc.n_clusters
    dav = kappa_hat is not None
    m = k + (1 if dav else 0)
    rng = np.random.default_rng(seed)
    reps_theta = np.empty((n_boot, k))
    reps_kappa = np.empty(n_boot) if dav else None
    reps_wr = np.empty((n_boot, pi.size))
    degenerate = 0
    # a batch's Newton systems take batch * m^2 floats: keep them near 40 MB whatever K is
    # and its (batch, C) weight matrix near 80 MB however many prompts there are
    batch = max(1, min(batch, int(5e6 // (m * m)), int(1e7 // n_clusters)))
    for start in range(0, n_boot, batch):  # batches of replicates, not one at a time
        nb_ = min(batch, n_boot - start)
        wts = rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=nb_).astype(float)
        r1, r2, rt = pc.replicate(wts)
        th0 = np.repeat(theta_hat[None], nb_, axis=0)
        k0 = None if not dav else np.full(nb_, kappa_hat)
        th_b, ka_b, conv_b = _newton(pi, pj, k, r1, r2, rt, th0, k0, ref)
        degenerate += int((~conv_b).sum())
        reps_theta[start : start + nb_] = th_b
        if reps_kappa is not None:
            reps_kappa[start : start + nb_] = ka_b
        with np.errstate(invalid="ignore", divide="ignore"):
            reps_wr[start : start + nb_] = (r1 + 0.5 * rt) / (r1 + r2 + rt)
    return _Replicates(reps_theta, reps_kappa, reps_wr, degenerate)


@dataclass(frozen=True)
class _Boot:
    """The bootstrap's percentile intervals: ratings (and their SE), ranks, and the ``(K, K)`` win
    rates and predicted scores (all NaN, rank bounds = the rank, without a bootstrap)."""

    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    wr_lo: np.ndarray
    wr_hi: np.ndarray
    pr_lo: np.ndarray
    pr_hi: np.ndarray
    degenerate: int


def _no_boot(rank: np.ndarray, k: int) -> _Boot:
    """The :class:`_Boot` of ``n_boot=0``: NaN intervals, rank bounds the rank itself."""
    nan_k = np.full(k, np.nan)
    nan_kk = np.full((k, k), np.nan)
    return _Boot(nan_k, nan_k, nan_k, rank.copy(), rank.copy(), nan_kk, nan_kk, nan_kk, nan_kk, 0)


def _boot_summary(reps: _Replicates, pi: np.ndarray, pj: np.ndarray, centre: np.ndarray, base: float, scale: float,
                  level: float, notes: list[str]) -> _Boot:
    """Percentile intervals (level ``level``) of the replicates' ratings, ranks (``inverted_cdf``:
    an observed rank), win rates and predicted scores; says in ``notes`` what is left out."""
    k = reps.theta.shape[1]
    n_boot = reps.theta.shape[0]
    nan_kk = np.full((k, k), np.nan)
    alpha = 1.0 - level
    q = [alpha / 2.0, 1.0 - alpha / 2.0]
    reps_r = _to_rating(reps.theta, centre, base, scale)
    boot_low, boot_high = np.quantile(reps_r, q, axis=0)
    boot_se = reps_r.std(axis=0, ddof=1)
    rk = _ranks(reps_r)
    rank_low, rank_high = np.quantile(rk, q, axis=0, method="inverted_cdf").astype(int)
    wr_lo, wr_hi = nan_kk.copy(), nan_kk.copy()
    lo_p, hi_p = _nan_percentiles(reps.win_rate, q)
    wr_lo[pi, pj], wr_hi[pi, pj] = lo_p, hi_p
    wr_lo[pj, pi], wr_hi[pj, pi] = 1.0 - hi_p, 1.0 - lo_p
    if n_boot * k * k <= 3e7:  # replicate matrices fit in ~240 MB
        pred_b = _expected_score(reps.theta, reps.kappa)
        pr_lo, pr_hi = np.quantile(pred_b, q, axis=0)
        np.fill_diagonal(pr_lo, np.nan)
        np.fill_diagonal(pr_hi, np.nan)
    else:
        pr_lo = pr_hi = nan_kk
        notes.append(f"{k} models: intervals of the predicted win probabilities left out (memory)")
    if reps.degenerate:
        notes.append(f"{reps.degenerate} of {n_boot} bootstrap replicates have a rating at infinity (a model that "
                     "never loses or never wins in the resample); intervals reflect it")
    return _Boot(boot_low, boot_high, boot_se, rank_low, rank_high, wr_lo, wr_hi, pr_lo, pr_hi, reps.degenerate)


@dataclass(frozen=True)
class PositionBias(Result):
    """Agreement of a judge with itself when the two answers swap positions (MT-bench g1/g2)."""

    n_pairs: int
    agreement: float
    kappa: float
    n_decisive_games: int
    first_position_wins: int
    first_position_rate: float
    first_low: float
    first_high: float
    p_value: float
    level: float


def position_bias(g1: npt.ArrayLike, g2: npt.ArrayLike, level: float = 0.95) -> PositionBias:
    """Position-bias check for position-swapped games.

    ``g1``, ``g2``: outcomes for model_1 (1 win, 0.5 tie, 0 loss); in g1 model_1 is shown first,
    in g2 second.  Agreement = share of pairs where both games give the same verdict; Cohen's
    (1960) kappa over the three categories, ``(p_o - p_e) / (1 - p_e)``; the first position's win
    rate among decisive games with a Wilson interval and the exact two-sided binomial test of 1/2.
    Oracle: scikit-learn ``cohen_kappa_score``, scipy ``binomtest``.
    """
    from scipy.stats import binomtest

    from evaladdon.stats.intervals import proportion_interval

    level = check_level(level)
    x = np.asarray(g1, dtype=float)
    y = np.asarray(g2, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    n = x.size
    if n == 0:
        raise ValueError("no position-swapped pairs")
    cats = np.array([0.0, 0.5, 1.0])
    xi = np.searchsorted(cats, x)
    yi = np.searchsorted(cats, y)
    if not (np.all(cats[np.clip(xi, 0, 2)] == x) and np.all(cats[np.clip(yi, 0, 2)] == y)):
        raise ValueError("game outcomes must be 0, 0.5 or 1")
    table = np.zeros((3, 3))
    np.add.at(table, (xi, yi), 1.0)
    po = np.trace(table) / n
    pe = float(table.sum(axis=1) @ table.sum(axis=0)) / n**2
    kappa = (po - pe) / (1.0 - pe) if pe < 1.0 else float("nan")
    first = int(np.sum(x == 1.0) + np.sum(y == 0.0))
    decisive = int(np.sum(x != 0.5) + np.sum(y != 0.5))
    if decisive:
        ci = proportion_interval(first, decisive, "wilson", level)
        p = float(binomtest(first, decisive, 0.5).pvalue)
        rate, lo, hi = first / decisive, ci.low, ci.high
    else:
        rate = lo = hi = p = float("nan")
    return PositionBias(n, float(po), float(kappa), decisive, first, rate, lo, hi, p, level)
