"""Confidence sequences for the mean of scores in ``[0, 1]`` (Waudby-Smith & Ramdas 2024).

- :func:`betting_sequence`: the **hedged capital** CS (WSR 2024, JRSS-B 86(1), Sec. 4.3, Thm 3).
  For a candidate mean ``m`` two gamblers bet for and against ``m``:
  ``K+_t(m) = prod_{i<=t} (1 + l+_i(m)(x_i - m))``, ``K-_t(m) = prod_{i<=t} (1 - l-_i(m)(x_i - m))``
  with the predictable plug-in bet ``lambda_i`` truncated to ``l+_i(m) = min(lambda_i, c/m)`` and
  ``l-_i(m) = min(lambda_i, c/(1-m))`` (``c = 1/2``); the hedged capital is
  ``K_t(m) = max(theta K+_t(m), (1-theta) K-_t(m))`` (``theta = 1/2``), a nonnegative martingale
  under ``m = truth``, so by Ville's inequality ``C_t = {m : K_t(m) < 1/alpha}`` has
  ``P(exists t: truth not in C_t) <= alpha``.  ``C_t`` is an interval (WSR Prop. 4: ``K_t`` is
  quasiconvex in ``m``); it is found on a fixed grid of ``grid`` candidate means and its ends are
  rounded *outward* to the neighbouring grid points (never narrower than the exact set).  One more
  sample costs O(grid) (one factor per candidate), computed here in time blocks without a Python
  loop per sample.
- :func:`bernstein_sequence`: the predictable plug-in **empirical-Bernstein** CS (WSR 2024, Thm 2;
  Howard et al. 2021): ``sum_i lambda_i x_i / sum_i lambda_i ± (log(2/alpha) + sum_i v_i psi_E(lambda_i))
  / sum_i lambda_i`` with ``v_i = 4 (x_i - mu_{i-1})^2``, ``psi_E(l) = (-log(1-l) - l)/4``, ``c = 1/2``;
  closed form, O(1) per sample.

Oracle: an independent loop implementation in ``tests/stats/test_sequential_bounded.py`` (the
``confseq`` package does not build here).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from evaladdon.stats.sequential.sequence import (
    ConfidenceSequence,
    FloatArray,
    as_unit_scores,
    check_alpha,
    plugin_bets,
    plugin_moments,
    running_intersection,
)

__all__ = ["BETTING_GRID", "bernstein_sequence", "betting_sequence", "hedged_log_capital"]

BETTING_GRID = 1000
_BLOCK = 1024
_BET_CAP = 0.5


def hedged_log_capital(x: ArrayLike, m: ArrayLike, alpha: float = 0.05, cap: float = _BET_CAP,
                       theta: float = 0.5) -> FloatArray:
    """``log K_t(m)`` of the hedged capital process after each sample (last axis of ``x`` is time).

    ``x`` of shape ``(..., T)`` and a candidate ``m`` broadcastable against ``x[..., :1]``; the
    result has the broadcast shape with time last.  ``K_t(truth) >= 1/alpha`` at some t has
    probability <= alpha (Ville's inequality).
    """
    xs = as_unit_scores(x)
    alpha = check_alpha(alpha)
    lam = plugin_bets(plugin_moments(xs)[1], alpha, cap)
    mm = np.asarray(m, dtype=float)[..., None]
    with np.errstate(divide="ignore"):
        lp = np.minimum(lam, cap / mm)
        lm = np.minimum(lam, cap / (1.0 - mm))
    up = np.cumsum(np.log1p(lp * (xs - mm)), axis=-1)
    down = np.cumsum(np.log1p(-lm * (xs - mm)), axis=-1)
    out: FloatArray = np.maximum(np.log(theta) + up, np.log1p(-theta) + down)
    return out


def betting_sequence(x: ArrayLike, alpha: float = 0.05, grid: int = BETTING_GRID, cap: float = _BET_CAP,
                     theta: float = 0.5) -> ConfidenceSequence:
    """The hedged-capital betting CS for the mean of ``x`` in [0, 1] (module doc; WSR 2024 Thm 3).

    ``P(exists t: mean not in [low_t, high_t]) <= alpha`` for i.i.d. (or any conditionally
    mean-``m``) scores in [0, 1].  ``estimate`` is the running mean.
    """
    xs = as_unit_scores(x)
    alpha = check_alpha(alpha)
    if grid < 3:
        raise ValueError(f"grid must be >= 3, got {grid}")
    lam = plugin_bets(plugin_moments(xs)[1], alpha, cap)
    m = (np.arange(grid, dtype=float) + 0.5) / grid
    edges = np.concatenate([[0.0], m, [1.0]])
    lp, lm = np.minimum(lam[:, None], cap / m), np.minimum(lam[:, None], cap / (1.0 - m))
    threshold = np.log(1.0 / alpha)
    low, high = np.empty(xs.size), np.empty(xs.size)
    up, down = np.zeros(grid), np.zeros(grid)
    for start in range(0, xs.size, _BLOCK):  # blocks of samples, vectorised within: bounded memory
        stop = min(start + _BLOCK, xs.size)
        dx = xs[start:stop, None] - m
        cu = up + np.cumsum(np.log1p(lp[start:stop] * dx), axis=0)
        cd = down + np.cumsum(np.log1p(-lm[start:stop] * dx), axis=0)
        up, down = cu[-1], cd[-1]
        logk = np.maximum(np.log(theta) + cu, np.log1p(-theta) + cd)
        low[start:stop], high[start:stop] = _grid_ends(logk, threshold, edges)
    low, high = running_intersection(low, high)
    mean = np.cumsum(xs) / np.arange(1, xs.size + 1)
    return ConfidenceSequence("betting (hedged capital)", alpha, mean, low, high)


def _grid_ends(logk: FloatArray, threshold: float, edges: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Outward-rounded ends of ``{m : log K(m) < threshold}`` per row (grid index j is ``edges[j+1]``).

    The accepted set is an interval (quasiconvexity); its ends lie strictly between the last
    rejected and the first accepted grid point, so the rejected neighbours (or 0 and 1) are
    reported.  When no grid point is accepted, the set (if any) lies next to the minimum of K:
    the neighbours of the argmin are reported.
    """
    ok = logk < threshold
    grid = logk.shape[1]
    any_ok = ok.any(axis=1)
    first = np.where(any_ok, ok.argmax(axis=1), logk.argmin(axis=1))
    last = np.where(any_ok, grid - 1 - ok[:, ::-1].argmax(axis=1), first)
    return edges[first], edges[last + 2]


def bernstein_sequence(x: ArrayLike, alpha: float = 0.05, cap: float = _BET_CAP) -> ConfidenceSequence:
    """The predictable plug-in empirical-Bernstein CS (WSR 2024, Thm 2) for the mean of ``x`` in [0, 1].

    ``P(exists t: mean not in [low_t, high_t]) <= alpha``; closed form from running sums (O(1) per
    sample); ``estimate`` is the ``lambda``-weighted mean at the centre of the interval.
    """
    xs = as_unit_scores(x)
    alpha = check_alpha(alpha)
    mu_prev, s2_prev = plugin_moments(xs)
    lam = plugin_bets(s2_prev, alpha, cap)
    psi = (-np.log1p(-lam) - lam) / 4.0
    v = 4.0 * (xs - mu_prev) ** 2
    sum_lam = np.cumsum(lam, axis=-1)
    centre = np.cumsum(lam * xs, axis=-1) / sum_lam
    half = (np.log(2.0 / alpha) + np.cumsum(v * psi, axis=-1)) / sum_lam
    low, high = running_intersection(np.maximum(centre - half, 0.0), np.minimum(centre + half, 1.0))
    return ConfidenceSequence("empirical Bernstein", alpha, centre, low, high)
