"""The numerical kernels of :mod:`evaladdon.stats.ranking.bradley_terry` (arrays in, arrays out).

Per-pair score and information of the Bradley–Terry / Davidson log-likelihood, the batched damped
Newton solver over replicates, the strong-connectivity check of the "beats" graph (Ford 1957), the
observed information of the full-data fit, and the summaries of bootstrap replicates and of the
sandwich covariance (NaN-aware percentiles, Holm-adjusted rank bounds).  The model and the
formulas are in the module doc of :mod:`evaladdon.stats.ranking.bradley_terry`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_DIVERGED = 25.0  # |theta| beyond this many logits: the replicate's MLE is at infinity


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
    """Whether the "beats" graph (i -> j when i has positive win weight over j; a tie gives both
    edges) is strongly connected (the MLE exists, Ford 1957), and its components' labels."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    fwd = (w1 > 0) | (t > 0)
    back = (w2 > 0) | (t > 0)
    rows = np.concatenate([pi[fwd], pj[back]])
    cols = np.concatenate([pj[fwd], pi[back]])
    g = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(k, k))
    n, labels = connected_components(g, directed=True, connection="strong")
    return n == 1, labels


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
    """The standard normal quantile (scipy imported on first use)."""
    from scipy.stats import norm

    return float(norm.ppf(p))


def _information(pi: np.ndarray, pj: np.ndarray, k: int, terms: tuple[np.ndarray, ...], dav: bool) -> np.ndarray:
    """The observed information in (theta, kappa) of the full-data fit from its per-pair ``terms``
    (:func:`_pair_terms` of shape ``(1, P)``): ``(K, K)``, or ``(K+1, K+1)`` with Davidson's kappa."""
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
