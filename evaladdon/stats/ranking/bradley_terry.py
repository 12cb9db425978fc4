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

__all__ = [
    "ELO_SCALE", "INTERVALS", "TIES", "BradleyTerryResult", "PairCounts", "PositionBias", "bradley_terry",
    "pair_counts", "position_bias",
]

ELO_SCALE = 400.0 / math.log(10.0)
TIES: tuple[str, ...] = ("half", "davidson")
INTERVALS: tuple[str, ...] = ("bootstrap", "sandwich")
_DIVERGED = 25.0  # |theta| beyond this many logits: the replicate's MLE is at infinity


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


def _pair_terms(d: np.ndarray, kappa: np.ndarray | None, w1: np.ndarray, w2: np.ndarray, t: np.ndarray,
                loglik: bool = False) -> tuple[Any, ...]:
    """Per-pair score and information in (d, kappa): g_d, g_k, i_dd, i_dk, i_kk, log-lik (arrays;
    the kappa terms None without kappa, the log-likelihood None unless ``loglik``)."""
    if kappa is None:  # half/half: w1 log sigma(d) + w2 log sigma(-d)
        p = 0.5 * (1.0 + np.tanh(0.5 * d))  # sigma(d), stable
        n = w1 + w2
        ll = -(w1 * np.logaddexp(0.0, -d) + w2 * np.logaddexp(0.0, d)) if loglik else None
        return w1 - n * p, None, n * p * (1.0 - p), None, None, ll
    e = np.exp(kappa)[..., None]
    half = 0.5 * d
    s, ch = np.sinh(half), np.cosh(half)
    den = 2.0 * ch + e
    n = w1 + w2 + t
    g_d = 0.5 * (w1 - w2) - n * s / den
    g_k = t - n * e / den
    i_dd = n * (1.0 + 0.5 * ch * e) / den**2
    i_dk = -n * s * e / den**2
    i_kk = n * e * (den - e) / den**2
    ll = (w1 - w2) * half + t * kappa[..., None] - n * np.log(den) if loglik else None
    return g_d, g_k, i_dd, i_dk, i_kk, ll


def _newton(pi: np.ndarray, pj: np.ndarray, n_models: int, w1: np.ndarray, w2: np.ndarray, t: np.ndarray,
            theta0: np.ndarray, kappa0: np.ndarray | None, ref: int, tol: float = 1e-9, max_iter: int = 100,
            ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Batched Newton: ``w1, w2, t`` of shape ``(B, P)``, ``theta0`` ``(B, K)``; theta[ref] = 0.

    Returns theta ``(B, K)``, kappa ``(B,)`` or None, and a converged flag per replicate.  Steps
    are capped at 3 logits per coordinate (a damped Newton), and a tiny ridge keeps the system
    solvable when a model is absent from a replicate (its theta then stays at the start).
    """
    b_count, k = theta0.shape
    dav = kappa0 is not None
    m = k + (1 if dav else 0)
    from scipy import sparse

    # signed incidence (K x P): scatters per-pair terms to models in O(P) per replicate
    rows = np.concatenate([pi, pj])
    cols = np.concatenate([np.arange(pi.size), np.arange(pi.size)])
    inc_t = sparse.csr_matrix((np.concatenate([np.ones(pi.size), -np.ones(pi.size)]), (rows, cols)),
                              shape=(k, pi.size))
    abs_t = abs(inc_t)
    theta = theta0.copy()
    kappa = None if kappa0 is None else kappa0.copy()
    active = np.arange(b_count)
    converged = np.zeros(b_count, bool)
    for _ in range(max_iter):
        if active.size == 0:
            break
        th = theta[active]
        d = th[:, pi] - th[:, pj]
        ka = None if kappa is None else kappa[active]
        g_d, g_k, i_dd, i_dk, i_kk, _ll = _pair_terms(d, ka, w1[active], w2[active], t[active])
        n_a = active.size
        info = np.zeros((n_a, m, m))
        info[:, pi, pj] = -i_dd
        info[:, pj, pi] = -i_dd
        diag = np.arange(k)
        info[:, diag, diag] = (abs_t @ i_dd.T).T
        grad = np.zeros((n_a, m))
        grad[:, :k] = (inc_t @ g_d.T).T
        if dav:
            cross = (inc_t @ i_dk.T).T
            info[:, :k, k] = cross
            info[:, k, :k] = cross
            info[:, k, k] = i_kk.sum(axis=1)
            grad[:, k] = g_k.sum(axis=1)
        # theta[ref] = 0: its row and column become the identity, its gradient zero
        info[:, ref, :] = 0.0
        info[:, :, ref] = 0.0
        diag_m = np.arange(m)
        scale = np.maximum(np.abs(info[:, diag_m, diag_m]).max(axis=1), 1e-300)
        info[:, diag_m, diag_m] += 1e-10 * scale[:, None]
        info[:, ref, ref] = 1.0
        grad[:, ref] = 0.0
        full = np.clip(np.linalg.solve(info, grad[..., None])[..., 0], -3.0, 3.0)
        step = full
        theta[active] += full[:, :k]
        if dav:
            kappa[active] += full[:, k]  # type: ignore[index]
        size = np.abs(step).max(axis=1)
        done = size < tol * (1.0 + np.abs(theta[active]).max(axis=1))
        gone = np.abs(theta[active]).max(axis=1) > _DIVERGED
        converged[active[done]] = True
        active = active[~(done | gone)]
    return theta, kappa, converged


def _strongly_connected(pi: np.ndarray, pj: np.ndarray, w1: np.ndarray, w2: np.ndarray, t: np.ndarray,
                        k: int) -> tuple[bool, np.ndarray]:
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    fwd = (w1 > 0) | (t > 0)
    back = (w2 > 0) | (t > 0)
    rows = np.concatenate([pi[fwd], pj[back]])
    cols = np.concatenate([pj[fwd], pi[back]])
    g = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(k, k))
    n, labels = connected_components(g, directed=True, connection="strong")
    return n == 1, labels


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
    k = models.size
    if k < 2:
        raise ValueError("ranking needs battles between at least two models")
    a, b = codes[: y.size], codes[y.size :]
    if cluster is None:
        cl, n_clusters = np.arange(y.size), y.size
    else:
        cl_labels = np.asarray(cluster).astype(str)
        if cl_labels.shape != y.shape:
            raise ValueError("cluster must have one label per battle")
        uniq_c, cl = np.unique(cl_labels, return_inverse=True)
        n_clusters = uniq_c.size
    tie_flags = (y == 0.5) if tie is None else np.asarray(tie, dtype=bool)
    dav = ties == "davidson"
    if dav and not tie_flags.any():
        raise ValueError("Davidson's tie model needs at least one tie")
    pc = pair_counts(a, b, y, cl, k, n_clusters, tie_flags, davidson=dav)
    pi, pj = pc.pair_i, pc.pair_j
    w1, w2, t = pc.totals()
    ok, labels = _strongly_connected(pi, pj, w1, w2, t, k)
    if not ok:
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
    anchor_idx = None
    if anchor is not None:
        hit = np.flatnonzero(models == anchor)
        if hit.size == 0:
            raise ValueError(f"anchor model {anchor!r} is not among the models")
        anchor_idx = int(hit[0])
    battles_per = np.bincount(np.concatenate([a, b]), minlength=k)
    ref = int(np.argmax(battles_per))
    theta0 = np.zeros((1, k))
    kappa0 = np.zeros(1) if dav else None
    th, ka, conv = _newton(pi, pj, k, w1[None], w2[None], t[None], theta0, kappa0, ref)
    if not conv[0]:
        raise ValueError("Bradley–Terry fit did not converge")
    theta_hat = th[0]
    kappa_hat = None if ka is None else float(ka[0])
    d = theta_hat[pi] - theta_hat[pj]
    terms = _pair_terms(d[None], None if ka is None else ka, w1[None], w2[None], t[None], loglik=True)
    loglik = float(terms[5].sum())

    # centring contrast: rating - base = scale * A theta
    centre = (np.full(k, 1.0 / k) if anchor_idx is None else np.eye(k)[anchor_idx])
    amat = np.eye(k) - centre[None, :]

    def to_rating(theta: np.ndarray) -> np.ndarray:
        return base + scale * (theta - (theta @ centre)[..., None])

    rating = to_rating(theta_hat)
    z = float(_norm_ppf(0.5 + level / 2.0))

    # sandwich: bread = inverse information (ref fixed), meat = per-cluster scores
    m = k + (1 if dav else 0)
    keep = np.array([x for x in range(m) if x != ref])
    rd = theta_hat[pc.pair_i[pc.row_pair]] - theta_hat[pc.pair_j[pc.row_pair]]
    rg = _pair_terms(rd[None], None if ka is None else ka, pc.w_ij[None], pc.w_ji[None], pc.t[None])
    from scipy import sparse

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
    info = _information(pi, pj, k, terms, dav)
    bread = np.linalg.inv(info[np.ix_(keep, keep)])
    meat = (n_clusters / max(n_clusters - 1, 1)) * (scores.T @ scores).toarray()
    v = bread @ meat @ bread
    embed = np.zeros((k, keep.size))
    for col, idx in enumerate(keep):
        if idx < k:
            embed[idx, col] = 1.0
    lin = scale * amat @ embed
    cov_r = lin @ v @ lin.T
    sand_se = np.sqrt(np.clip(np.diag(cov_r), 0.0, None))
    sand_low, sand_high = rating - z * sand_se, rating + z * sand_se

    notes: list[str] = []
    if n_clusters < 20:
        notes.append(f"only {n_clusters} clusters: resampling intervals are rough")
    nan_kk = np.full((k, k), np.nan)
    wr = np.full((k, k), np.nan)
    nb = np.zeros((k, k))
    tot = w1 + w2 + t
    nb[pi, pj] = nb[pj, pi] = tot
    with np.errstate(invalid="ignore", divide="ignore"):
        wr[pi, pj] = (w1 + 0.5 * t) / tot
        wr[pj, pi] = (w2 + 0.5 * t) / tot
    predicted = _expected_score(theta_hat, kappa_hat)
    np.fill_diagonal(predicted, np.nan)
    rank = _ranks(rating)
    degenerate = 0
    if n_boot:
        rng = np.random.default_rng(seed)
        reps_theta = np.empty((n_boot, k))
        reps_kappa = np.empty(n_boot) if dav else None
        reps_wr = np.empty((n_boot, pi.size))
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
            if dav:
                reps_kappa[start : start + nb_] = ka_b  # type: ignore[index]
            with np.errstate(invalid="ignore", divide="ignore"):
                reps_wr[start : start + nb_] = (r1 + 0.5 * rt) / (r1 + r2 + rt)
        alpha = 1.0 - level
        q = [alpha / 2.0, 1.0 - alpha / 2.0]
        reps_r = to_rating(reps_theta)
        boot_low, boot_high = np.quantile(reps_r, q, axis=0)
        boot_se = reps_r.std(axis=0, ddof=1)
        rk = _ranks(reps_r)
        rank_low, rank_high = np.quantile(rk, q, axis=0, method="inverted_cdf").astype(int)
        wr_lo, wr_hi = nan_kk.copy(), nan_kk.copy()
        lo_p, hi_p = _nan_percentiles(reps_wr, q)
        wr_lo[pi, pj], wr_hi[pi, pj] = lo_p, hi_p
        wr_lo[pj, pi], wr_hi[pj, pi] = 1.0 - hi_p, 1.0 - lo_p
        if n_boot * k * k <= 3e7:  # replicate matrices fit in ~240 MB
            pred_b = _expected_score(reps_theta, reps_kappa)
            pr_lo, pr_hi = np.quantile(pred_b, q, axis=0)
            np.fill_diagonal(pr_lo, np.nan)
            np.fill_diagonal(pr_hi, np.nan)
        else:
            pr_lo = pr_hi = nan_kk
            notes.append(f"{k} models: intervals of the predicted win probabilities left out (memory)")
        if degenerate:
            notes.append(f"{degenerate} of {n_boot} bootstrap replicates have a rating at infinity (a model that "
                         "never loses or never wins in the resample); intervals reflect it")
    else:
        boot_low = boot_high = boot_se = np.full(k, np.nan)
        rank_low = rank_high = rank.copy()
        wr_lo = wr_hi = pr_lo = pr_hi = nan_kk
    if interval == "sandwich" or not n_boot:
        low, high, se = sand_low, sand_high, sand_se
        rank_low, rank_high = _rank_bounds_from_cov(rating, cov_r, level)
        used = "sandwich"
    else:
        low, high, se = boot_low, boot_high, boot_se
        used = "bootstrap"
    if anchor_idx is not None:
        notes.append(f"ratings anchored at {anchor} = {base:g}: its interval has zero width; others are relative to it")
    return BradleyTerryResult(
        models=tuple(models.tolist()), theta=theta_hat - theta_hat @ centre, rating=rating, ci_low=low, ci_high=high,
        se=se, rank=rank, rank_low=np.asarray(rank_low), rank_high=np.asarray(rank_high),
        rank_ub=1 + (low[None, :] > high[:, None]).sum(axis=1), level=level,
        interval=used, ties=ties, tie_param=None if kappa_hat is None else math.exp(kappa_hat), anchor=anchor,
        base=base, scale=scale, n_battles=float(y.size), n_clusters=int(n_clusters), n_boot=int(n_boot),
        n_boot_degenerate=degenerate, seed=seed, battles=nb, win_rate=wr, win_rate_low=wr_lo,
        win_rate_high=wr_hi, predicted=predicted, predicted_low=pr_lo, predicted_high=pr_hi,
        sandwich_low=sand_low, sandwich_high=sand_high, sandwich_se=sand_se, log_likelihood=loglik,
        notes=tuple(notes),
    )


def _nan_percentiles(x: np.ndarray, q: list[float]) -> np.ndarray:
    """Column-wise linear-interpolation quantiles ignoring NaN (``np.nanquantile`` loops per column)."""
    s = np.sort(x, axis=0)  # NaN sort last
    n = np.isfinite(s).sum(axis=0)
    out = np.full((len(q), x.shape[1]), np.nan)
    cols = np.arange(x.shape[1])
    ok = n > 0
    for r, qq in enumerate(q):
        pos = (n - 1) * qq
        lo = np.floor(pos).astype(int)
        hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
        frac = pos - lo
        lo_v = s[np.clip(lo, 0, None), cols]
        hi_v = s[np.clip(hi, 0, None), cols]
        out[r, ok] = (lo_v + frac * (hi_v - lo_v))[ok]
    return out


def _norm_ppf(p: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(p))


def _information(pi: np.ndarray, pj: np.ndarray, k: int, terms: tuple[np.ndarray, ...], dav: bool) -> np.ndarray:
    i_dd = terms[2][0]
    m = k + (1 if dav else 0)
    info = np.zeros((m, m))
    np.add.at(info, (pi, pj), -i_dd)
    np.add.at(info, (pj, pi), -i_dd)
    np.add.at(info, (pi, pi), i_dd)
    np.add.at(info, (pj, pj), i_dd)
    if dav:
        i_dk, i_kk = terms[3][0], terms[4][0]
        cross = np.bincount(pi, i_dk, k) - np.bincount(pj, i_dk, k)
        info[:k, k] = info[k, :k] = cross
        info[k, k] = i_kk.sum()
    return info


def _rank_bounds_from_cov(rating: np.ndarray, cov: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Rank bounds from Holm-adjusted pairwise z-tests of rating differences:
    ``1 + #{clearly above}`` to ``K - #{clearly below}`` (as in :mod:`evaladdon.stats.ranking`)."""
    from scipy.stats import norm

    from evaladdon.stats.paired.multiple import adjust_pvalues

    k = rating.size
    var = np.diag(cov)
    vd = var[:, None] + var[None, :] - 2.0 * cov
    diff = rating[:, None] - rating[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        zs = diff / np.sqrt(np.clip(vd, 0.0, None))
    p = 2.0 * norm.sf(np.abs(zs))
    p = np.where(np.isfinite(p), p, np.where(diff == 0, 1.0, 0.0))
    iu = np.triu_indices(k, 1)
    adj = np.ones((k, k))
    adj[iu] = adjust_pvalues(p[iu], "holm")
    adj.T[iu] = adj[iu]
    sig = adj < 1.0 - level
    np.fill_diagonal(sig, False)
    return 1 + (sig & (diff < 0)).sum(axis=1), k - (sig & (diff > 0)).sum(axis=1)


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
