"""Bradley–Terry with style covariates: Chatbot Arena's style control.

Model (Chatbot Arena, "Does style matter?", Li et al. 2024; FastChat ``elo_analysis.py``,
``fit_contextual_bt``): ``P(a beats b) = sigma(theta_a - theta_b + beta' z)`` where ``z`` holds one
normalised feature difference per style feature.  Arena's normalisation
(``preprocess_for_style``): for counts ``x_a, x_b`` of the two answers,
``d = (x_a - x_b) / (x_a + x_b + 1)``, then each column is centred and divided by its (population)
standard deviation.  ``theta`` are the *controlled* ratings: the strength left once the style
terms explain what they can; ``beta_f`` is the change in log-odds of winning per standard
deviation of the normalised difference ``f``.

Estimation: maximum likelihood with fractional outcomes (ties = half a win, weighted AlpacaEval
preferences as they come), one theta fixed at 0, by Newton's method vectorised over bootstrap
replicates (the replicates' multinomial cluster weights make weighted fits warm-started at the
full-data MLE).  Arena adds a ridge penalty of 0.5 and fits by L-BFGS; here the fit is the
unpenalised MLE, like :func:`evaladdon.stats.ranking.bradley_terry.bradley_terry`, so that
the uncontrolled and controlled ratings differ by the style terms alone.  Ratings are on the Elo
scale ``base + scale (theta - mean theta)`` (or anchored), ``scale = 400 / ln 10``.

Intervals: the cluster bootstrap (percentile, as ``rank`` does for Bradley–Terry; rank ranges
are percentile intervals of the replicate ranks), and a cluster-robust sandwich
(``C/(C-1)``, Liang & Zeger 1986) used when ``n_boot=0``.

Oracle in the tests: statsmodels' binomial GLM on the same design (coefficients and, with
``cov_type="cluster"``, the sandwich); a seeded Monte-Carlo in which length is confounded with
the models: the controlled fit recovers the simulated ratings, the uncontrolled one does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import check_level
from evaladdon.stats._base.result import Result
from evaladdon.stats.ranking._bt_numerics import _norm_ppf

__all__ = ["StyleControlResult", "arena_style_features", "style_bradley_terry"]

ELO_SCALE = 400.0 / math.log(10.0)
MAX_DESIGN_CELLS = 25_000_000


@dataclass(frozen=True)
class StyleControlResult(Result):
    """Controlled ratings (Elo scale) with intervals and rank ranges, and the style coefficients."""

    models: tuple[str, ...]
    rating: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    features: tuple[str, ...]
    coef: np.ndarray
    coef_low: np.ndarray
    coef_high: np.ndarray
    level: float
    interval: str
    anchor: str | None
    base: float
    scale: float
    n_battles: int
    n_clusters: int
    n_boot: int
    n_boot_degenerate: int
    seed: int | None
    notes: tuple[str, ...]


def arena_style_features(x_a: npt.ArrayLike, x_b: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Arena's normalised differences: ``(x_a - x_b) / (x_a + x_b + 1)`` per column, centred and
    divided by the population SD; returns the ``(n, p)`` features and which columns vary (a
    column without variation is returned as zeros and flagged False)."""
    a = np.asarray(x_a, dtype=float)
    b = np.asarray(x_b, dtype=float)
    a, b = (a[:, None], b[:, None]) if a.ndim == 1 else (a, b)
    if a.shape != b.shape:
        raise ValueError("the two sides' features must have the same shape")
    d = (a - b) / (a + b + 1.0)
    sd = d.std(axis=0)
    varies = sd > 1e-12 * np.maximum(1.0, np.abs(d).max(axis=0, initial=0.0))
    z = np.zeros_like(d)
    z[:, varies] = (d[:, varies] - d[:, varies].mean(axis=0)) / sd[varies]
    return z, varies


def _newton(x: np.ndarray, y: np.ndarray, w: np.ndarray, start: np.ndarray,
            max_iter: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Weighted logistic MLE with fractional ``y`` for every row of weights ``w`` ``(B, n)`` at
    once (Newton's method from ``start`` ``(B, q)``); returns the parameters and a converged flag."""
    params = start.copy()
    conv = np.zeros(params.shape[0], bool)
    for _ in range(max_iter):
        eta = np.clip(params @ x.T, -35.0, 35.0)
        p = 1.0 / (1.0 + np.exp(-eta))
        grad = (w * (y[None, :] - p)) @ x
        hess = np.matmul(((w * p * (1.0 - p))[:, :, None] * x[None]).transpose(0, 2, 1), x)
        # the pseudo-inverse: a resample where a feature never varies leaves its coefficient where
        # it started (reported as undefined) instead of sending it to infinity
        step = (np.linalg.pinv(hess, rcond=1e-10, hermitian=True) @ grad[..., None])[..., 0]
        step[conv] = 0.0
        params += step
        conv |= np.abs(step).max(axis=1) < 1e-8
        if conv.all():
            break
    ok = conv & np.isfinite(params).all(axis=1) & (np.abs(params).max(axis=1) < 30.0)
    return params, ok


def _design(a: np.ndarray, b: np.ndarray, k: int, ref: int, z: np.ndarray) -> np.ndarray:
    """Rows ``e_a - e_b`` over the models other than ``ref``, then the style features."""
    n = a.size
    m = np.zeros((n, k))
    rows = np.arange(n)
    m[rows, a] += 1.0
    m[rows, b] -= 1.0
    return np.hstack([np.delete(m, ref, axis=1), z])


def _sandwich(x: np.ndarray, y: np.ndarray, params: np.ndarray, cl: np.ndarray, n_clusters: int) -> np.ndarray:
    """Cluster-robust covariance ``H^-1 (C/(C-1) sum_c s_c s_c') H^-1`` of the parameters."""
    p = 1.0 / (1.0 + np.exp(-(x @ params)))
    hess = (x * (p * (1.0 - p))[:, None]).T @ x
    s = np.zeros((n_clusters, x.shape[1]))
    np.add.at(s, cl, x * (y - p)[:, None])
    bread = np.linalg.pinv(hess)
    return bread @ ((n_clusters / max(n_clusters - 1, 1)) * (s.T @ s)) @ bread


def _full_theta(params: np.ndarray, k: int, ref: int) -> np.ndarray:
    """Thetas with ``theta[ref] = 0`` inserted, along the last axis."""
    return np.insert(params[..., : k - 1], ref, 0.0, axis=-1)


def _ranks(r: np.ndarray) -> np.ndarray:
    order = np.argsort(-r, axis=-1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, r.shape[-1] + 1), axis=-1)
    return ranks


def _checked(model_a: npt.ArrayLike, model_b: npt.ArrayLike, outcome: npt.ArrayLike, features: npt.ArrayLike
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    ma, mb = np.asarray(model_a).astype(str), np.asarray(model_b).astype(str)
    y = np.asarray(outcome, dtype=float)
    z = np.asarray(features, dtype=float)
    z = z[:, None] if z.ndim == 1 else z
    if not (ma.shape == mb.shape == y.shape) or z.shape[0] != y.size:
        raise ValueError("model_a, model_b, outcome and features must have one entry per battle")
    if y.size == 0 or not np.isfinite(z).all() or not np.isfinite(y).all() or ((y < 0) | (y > 1)).any():
        raise ValueError("need battles with outcomes in [0, 1] and finite features")
    models, codes = np.unique(np.concatenate([ma, mb]), return_inverse=True)
    if models.size < 2:
        raise ValueError("need at least two models")
    return models, codes[: y.size], codes[y.size:], y, z


def style_bradley_terry(
    model_a: npt.ArrayLike, model_b: npt.ArrayLike, outcome: npt.ArrayLike, features: npt.ArrayLike,
    feature_names: tuple[str, ...] | list[str], cluster: npt.ArrayLike | None = None, *, anchor: str | None = None,
    base: float = 1000.0, scale: float = ELO_SCALE, n_boot: int = 1000, level: float = 0.95, seed: int | None = 0,
    max_cells: int = MAX_DESIGN_CELLS,
) -> StyleControlResult:
    """Fit the style-controlled Bradley–Terry model (module doc) to battles with ``features``
    ``(n, p)`` (already normalised, e.g. by :func:`arena_style_features`)."""
    level = check_level(level)
    models, a, b, y, z = _checked(model_a, model_b, outcome, features)
    k = models.size
    cl = (np.arange(y.size) if cluster is None else np.unique(np.asarray(cluster).astype(str), return_inverse=True)[1])
    n_clusters = int(cl.max()) + 1
    ref = int(np.argmax(np.bincount(np.concatenate([a, b]), minlength=k)))
    if y.size * (k - 1 + z.shape[1]) > max_cells:
        # a dense per-battle design: Arena-scale files (10^6 battles x 10^2 models) need a sparse fit
        raise ValueError(f"{y.size} battles x {k} models is too large for the style-controlled fit here "
                         f"(more than {max_cells:.0e} design cells); rank a subset of models or battles")
    x = _design(a, b, k, ref, z)
    if np.linalg.matrix_rank(x) < x.shape[1]:
        raise ValueError("the ratings and style terms are not separately identifiable (a feature is a "
                         "function of the models, or some models never meet)")
    est, ok = _newton(x, y, np.ones((1, y.size)), np.zeros((1, x.shape[1])))
    if not ok[0]:
        raise ValueError("style-controlled Bradley–Terry fit did not converge (a model never wins or never loses)")
    params = est[0]
    centre = np.full(k, 1.0 / k)
    if anchor is not None:
        hit = np.flatnonzero(models == anchor)
        if hit.size == 0:
            raise ValueError(f"anchor model {anchor!r} is not among the models")
        centre = np.eye(k)[hit[0]]
    theta = _full_theta(params, k, ref)
    rating = base + scale * (theta - theta @ centre)
    rank = _ranks(rating)
    notes: list[str] = []
    alpha = 1.0 - level
    degenerate = 0
    if n_boot:
        lo, hi, rlo, rhi, clo, chi, degenerate = _bootstrap(x, y, cl, n_clusters, params, k, ref, centre, base, scale,
                                                            n_boot, seed, alpha)
        if degenerate:
            notes.append(f"{degenerate} of {n_boot} bootstrap replicates did not converge (left out)")
        used = "bootstrap"
    else:
        lo, hi, rlo, rhi, clo, chi = _sandwich_intervals(x, y, cl, n_clusters, params, k, ref, centre, scale, level,
                                                         rating, rank)
        used = "sandwich"
    if n_clusters < 20:
        notes.append(f"only {n_clusters} clusters: resampling intervals are rough")
    p = z.shape[1]
    return StyleControlResult(
        models=tuple(models.tolist()), rating=rating, ci_low=lo, ci_high=hi, rank=rank, rank_low=rlo, rank_high=rhi,
        features=tuple(feature_names), coef=params[k - 1:], coef_low=clo[:p], coef_high=chi[:p], level=level,
        interval=used, anchor=anchor, base=base, scale=scale, n_battles=int(y.size), n_clusters=n_clusters,
        n_boot=int(n_boot), n_boot_degenerate=int(degenerate), seed=seed, notes=tuple(notes))


def _bootstrap(x: np.ndarray, y: np.ndarray, cl: np.ndarray, n_clusters: int, params: np.ndarray, k: int, ref: int,
               centre: np.ndarray, base: float, scale: float, n_boot: int, seed: int | None,
               alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Cluster-bootstrap percentile intervals: ratings, rank ranges, coefficients, degenerate count."""
    rng = np.random.default_rng(seed)
    q = x.shape[1]
    reps = np.full((n_boot, q), np.nan)
    # a batch's Hessian products hold (B, n, q) floats: kept near 80 MB
    batch = max(1, min(n_boot, int(1e7 // max(y.size * q, 1))))
    for start in range(0, n_boot, batch):
        nb = min(batch, n_boot - start)
        wc = rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=nb).astype(float)
        w = wc[:, cl]
        est, ok = _newton(x, y, w, np.repeat(params[None], nb, axis=0))
        est[~ok] = np.nan
        zf = x[:, k - 1:]
        mean = (w @ zf) / w.sum(axis=1, keepdims=True)
        var = (w @ zf**2) / w.sum(axis=1, keepdims=True) - mean**2
        coefs = est[:, k - 1:]
        coefs[var <= 1e-12] = np.nan  # the feature never varies in this resample: its coefficient is undefined
        reps[start:start + nb] = est
    good = np.isfinite(reps[:, : k - 1]).all(axis=1)
    reps = reps[good]
    qs = [alpha / 2.0, 1.0 - alpha / 2.0]
    th = _full_theta(reps, k, ref)
    r = base + scale * (th - (th @ centre)[:, None])
    lo, hi = np.quantile(r, qs, axis=0)
    rlo, rhi = np.quantile(_ranks(r), qs, axis=0, method="inverted_cdf").astype(int)
    clo, chi = np.nanquantile(reps[:, k - 1:], qs, axis=0) if q >= k else (np.zeros(0), np.zeros(0))
    return lo, hi, rlo, rhi, clo, chi, int((~good).sum())


def _sandwich_intervals(x: np.ndarray, y: np.ndarray, cl: np.ndarray, n_clusters: int, params: np.ndarray, k: int,
                        ref: int, centre: np.ndarray, scale: float, level: float, rating: np.ndarray,
                        rank: np.ndarray) -> tuple[np.ndarray, ...]:
    """Normal intervals from the cluster-robust sandwich (rank ranges: the rank itself)."""
    cov = _sandwich(x, y, params, cl, n_clusters)
    embed = np.insert(np.eye(k - 1), ref, 0.0, axis=0)  # (k, k-1): theta = embed @ free
    lin = scale * (np.eye(k) - centre[None, :]) @ embed
    se_r = np.sqrt(np.clip(np.diag(lin @ cov[: k - 1, : k - 1] @ lin.T), 0.0, None))
    se_c = np.sqrt(np.clip(np.diag(cov)[k - 1:], 0.0, None))
    zq = float(_norm_ppf(0.5 + level / 2.0))
    coef = params[k - 1:]
    return (rating - zq * se_r, rating + zq * se_r, rank.copy(), rank.copy(), coef - zq * se_c, coef + zq * se_c)
