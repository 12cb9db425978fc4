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


def _replicates(x: np.ndarray, x0: np.ndarray, y: np.ndarray, beta: np.ndarray, cl: np.ndarray, n_clusters: int,
                n_boot: int, seed: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Bootstrap replicates (batches of multinomial cluster weights, the GLM refitted by Newton's
    method warm-started at the estimate): LC win rates, raw win rates, length coefficients and
    the count of fits that did not converge (left out)."""
    from evaladdon.stats.ranking.style_bt import _newton

    rng = np.random.default_rng(seed)
    lcs, raw, coefs = [], [], []
    degenerate = 0
    batch = max(1, min(n_boot, int(1e7 // max(y.size * x.shape[1], 1))))  # (B, n, q) floats near 80 MB
    for start in range(0, n_boot, batch):
        nb = min(batch, n_boot - start)
        w = rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=nb).astype(float)[:, cl]
        reps, ok = _newton(x, y, w, np.repeat(beta[None], nb, axis=0))
        degenerate += int((~ok).sum())
        pred = 1.0 / (1.0 + np.exp(-(reps[ok] @ x0.T)))  # each replicate's predictions, length term zeroed
        lcs.append(100.0 * (pred * w[ok]).sum(axis=1) / w[ok].sum(axis=1))
        raw.append(100.0 * (w @ y) / w.sum(axis=1))
        coefs.append(reps[ok, 1])
    return np.concatenate(lcs), np.concatenate(raw), np.concatenate(coefs), degenerate


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
        lcs, raw, coefs, degenerate = _replicates(x, x0, y, beta, cl, n_clusters, n_boot, seed)
        lo, hi = np.quantile(lcs, qs)
        wlo, whi = np.quantile(raw, qs)
        clo, chi = np.quantile(coefs, qs)
    return LengthControlledWinRate(
        win_rate=100.0 * float(y.mean()), win_rate_low=float(wlo), win_rate_high=float(whi), lc_win_rate=lc,
        lc_low=float(lo), lc_high=float(hi), intercept=float(beta[0]), length_coef=float(beta[1]),
        length_coef_low=float(clo), length_coef_high=float(chi),
        difficulty_coef=None if d is None else float(beta[2]), n=int(y.size), n_clusters=n_clusters,
        n_boot=int(n_boot), n_boot_degenerate=degenerate, level=level, seed=seed)
