"""AlpacaEval 2's length-controlled win rate, with a bootstrap interval.

Reference: Dubois, Galambosi, Liang & Hashimoto (2024), "Length-Controlled AlpacaEval"; code:
``alpaca_eval/metrics/glm_winrate.py`` (``get_length_controlled_winrate``, GLM
``length_controlled_v1``).  The GLM for one model against the baseline, per instruction i:

    logit P(model preferred)_i = b0 + b_len tanh(std_delta_len_i) [+ b_d difficulty_i]

with ``delta_len_i = len(output_1) - len(output_2)`` (baseline minus model, in characters) and
``std_delta_len = delta_len / sd(delta_len)`` (sample SD, ddof 1, as pandas' ``std``); the
preference enters as a probability ``preference - 1`` in [0, 1] (a draw = 0.5), fitted by
maximising the Bernoulli likelihood with fractional outcomes (AlpacaEval's duplicated-rows trick
is the same likelihood).  The length-controlled win rate is the mean over instructions of the
prediction with the length term set to zero: ``100 mean_i sigma(b0 + b_d difficulty_i)``
(``100 sigma(b0)`` without a difficulty).

Differences from AlpacaEval's shipped number, said in the output: AlpacaEval adds the
``instruction_difficulty`` fitted on its whole leaderboard and regularises towards two "gamed"
baselines (files downloaded from its Hugging Face dataset, not in an annotation file), and fits
by L1 logistic regression with a cross-validated penalty; here the fit is the plain MLE on the
annotations given, with the difficulty term only when the caller supplies one.

Interval: percentile bootstrap over instructions (or clusters), refitting the GLM in every
replicate (Newton's method vectorised over replicates); ``sd(delta_len)`` is held at its
full-data value.  Oracle in the tests: AlpacaEval's own fitting recipe (``fit_LogisticRegressionCV``
with ``n_splits=0``: scikit-learn's logistic regression on the duplicated rows) run test-side.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import check_level
from evaladdon.stats._base.result import Result

__all__ = ["LengthControlledWinRate", "length_controlled_winrate"]


@dataclass(frozen=True)
class LengthControlledWinRate(Result):
    """Raw and length-controlled win rates (percent) with intervals, and the GLM's coefficients."""

    win_rate: float
    win_rate_low: float
    win_rate_high: float
    lc_win_rate: float
    lc_low: float
    lc_high: float
    intercept: float
    length_coef: float
    length_coef_low: float
    length_coef_high: float
    difficulty_coef: float | None
    n: int
    n_clusters: int
    n_boot: int
    n_boot_degenerate: int
    level: float
    seed: int | None


def _design(delta_len: np.ndarray, difficulty: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The GLM's design and the design with the length term zeroed (for the prediction)."""
    sd = delta_len.std(ddof=1) if delta_len.size > 1 else 0.0
    std = delta_len / sd if sd > 0 else np.zeros_like(delta_len)
    cols = [np.ones_like(delta_len), np.tanh(std)]
    if difficulty is not None:
        cols.append(difficulty)
    x = np.column_stack(cols)
    x0 = x.copy()
    x0[:, 1] = 0.0
    return x, x0


def length_controlled_winrate(
    preference: npt.ArrayLike, len_model: npt.ArrayLike, len_baseline: npt.ArrayLike,
    cluster: npt.ArrayLike | None = None, difficulty: npt.ArrayLike | None = None, *, n_boot: int = 1000,
    level: float = 0.95, seed: int | None = 0,
) -> LengthControlledWinRate:
    """The length-controlled win rate (module doc) of a model against the baseline.

    ``preference``: the probability that the model's answer is preferred (AlpacaEval's
    ``preference - 1``), per instruction; ``len_model``/``len_baseline``: the answers' lengths."""
    from evaladdon.stats.ranking.style_bt import _newton

    level = check_level(level)
    y = np.asarray(preference, dtype=float)
    lm, lb = np.asarray(len_model, dtype=float), np.asarray(len_baseline, dtype=float)
    d = None if difficulty is None else np.asarray(difficulty, dtype=float)
    if not (y.shape == lm.shape == lb.shape) or y.ndim != 1 or (d is not None and d.shape != y.shape):
        raise ValueError("preference, lengths (and difficulty) need one value per instruction")
    if y.size < 3 or not (np.isfinite(y).all() and np.isfinite(lm).all() and np.isfinite(lb).all()):
        raise ValueError("need at least three instructions with finite preferences and lengths")
    if ((y < 0) | (y > 1)).any():
        raise ValueError("preferences must be probabilities in [0, 1] (AlpacaEval's preference - 1)")
    x, x0 = _design(lb - lm, d)
    est, ok = _newton(x, y, np.ones((1, y.size)), np.zeros((1, x.shape[1])))
    if not ok[0]:
        raise ValueError("the length-controlled GLM did not converge (the model always or never wins)")
    beta = est[0]
    lc = 100.0 * float(np.mean(1.0 / (1.0 + np.exp(-(x0 @ beta)))))
    cl = np.arange(y.size) if cluster is None else np.unique(np.asarray(cluster).astype(str), return_inverse=True)[1]
    n_clusters = int(cl.max()) + 1
    qs = [(1 - level) / 2, (1 + level) / 2]
    lo = hi = wlo = whi = clo = chi = float("nan")
    degenerate = 0
    if n_boot:
        rng = np.random.default_rng(seed)
        w = rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=n_boot).astype(float)[:, cl]
        reps, okb = _newton(x, y, w, np.repeat(beta[None], n_boot, axis=0))
        degenerate = int((~okb).sum())
        pred = 1.0 / (1.0 + np.exp(-(reps[okb] @ x0.T)))  # (B, n): each replicate's predictions
        lcs = 100.0 * (pred * w[okb]).sum(axis=1) / w[okb].sum(axis=1)
        raw = 100.0 * (w @ y) / w.sum(axis=1)
        lo, hi = np.quantile(lcs, qs)
        wlo, whi = np.quantile(raw, qs)
        clo, chi = np.quantile(reps[okb, 1], qs)
    return LengthControlledWinRate(
        win_rate=100.0 * float(y.mean()), win_rate_low=float(wlo), win_rate_high=float(whi), lc_win_rate=lc,
        lc_low=float(lo), lc_high=float(hi), intercept=float(beta[0]), length_coef=float(beta[1]),
        length_coef_low=float(clo), length_coef_high=float(chi),
        difficulty_coef=None if d is None else float(beta[2]), n=int(y.size), n_clusters=n_clusters,
        n_boot=int(n_boot), n_boot_degenerate=degenerate, level=level, seed=seed)
