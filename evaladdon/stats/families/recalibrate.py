"""Recalibration maps fitted on validation rows and applied to test rows.

Forecasts are probabilities ``f`` of a 0/1 outcome (a binary score against its label, or the
confidence of a prediction against its correctness); their logit is ``z = log f - log(1 - f)``
(``f`` clipped to ``[1e-12, 1 - 1e-12]``).

- **Temperature scaling** (Guo, Pleiss, Sun & Weinberger 2017, "On calibration of modern neural
  networks"): one parameter ``T > 0``, ``f' = sigmoid(z / T)``; with a logit matrix ``Z`` (n x K:
  e.g. lm-eval's per-choice log-likelihoods) ``f' = softmax(Z / T)``.  ``T`` minimises the
  validation NLL, fitted by L-BFGS (scipy's ``L-BFGS-B``) on ``log T`` with the analytic
  gradient.  It keeps the ranking (AUC, accuracy unchanged).
- **Platt scaling** (Platt 1999): ``f' = sigmoid(a z + b)``, the maximum-likelihood logistic
  regression of the outcome on ``z`` (no prior-corrected targets: scikit-learn's
  ``LogisticRegression(penalty=None)`` on ``z`` is the oracle), L-BFGS with the gradient.
- **Isotonic regression** (Zadrozny & Elkan 2002): the non-decreasing step function of ``f``
  minimising squared error (pool adjacent violators: scipy's ``optimize.isotonic_regression``
  on the distinct forecasts weighted by their counts), applied by linear interpolation between
  the fitted points and clipped at the ends, as scikit-learn's ``IsotonicRegression
  (out_of_bounds="clip")``.  It can output 0 or 1 (NLL then uses clipped forecasts).

scipy's optimisers are used rather than scikit-learn (not a dependency); scikit-learn is the
oracle in the tests, with an independent ``minimize_scalar`` fit of the temperature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import optimize, special

__all__ = ["METHODS", "Recalibration", "fit_recalibration", "fit_temperature", "logit"]

METHODS = ("temperature", "platt", "isotonic")
_CLIP = 1e-12


def logit(f: npt.ArrayLike) -> np.ndarray:
    p = np.clip(np.asarray(f, dtype=float), _CLIP, 1 - _CLIP)
    return np.log(p) - np.log1p(-p)


def _nll_t(u: np.ndarray, z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean NLL of ``sigmoid(z / T)`` (or ``softmax``) at ``T = exp(u)`` and its derivative in ``u``."""
    t = float(np.exp(u[0]))
    if z.ndim == 1:
        s = z / t
        nll = float(np.mean(np.logaddexp(0.0, s) - y * s))
        grad = float(np.mean((special.expit(s) - y) * s))  # d/du of the mean, ds/du = -s
        return nll, np.array([-grad])
    s = z / t
    lse = special.logsumexp(s, axis=1)
    picked = s[np.arange(len(y)), y.astype(np.int64)]
    p = np.exp(s - lse[:, None])
    nll = float(np.mean(lse - picked))
    grad = float(np.mean(picked - (p * s).sum(axis=1)))  # d/du (lse - picked) = -(E_p[s] - s_y)
    return nll, np.array([grad])


def fit_temperature(z: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """The temperature minimising the mean NLL: ``z`` logits (n,) with 0/1 ``y``, or (n, K) with
    class indices ``y``; L-BFGS on ``log T``."""
    za, ya = np.asarray(z, dtype=float), np.asarray(y, dtype=float)
    if za.shape[0] != ya.shape[0] or za.shape[0] < 2:
        raise ValueError("temperature scaling needs at least two validation rows, one outcome per row")
    res = optimize.minimize(_nll_t, np.zeros(1), args=(za, ya), jac=True, method="L-BFGS-B",
                            bounds=[(-7.0, 7.0)])
    return float(np.exp(res.x[0]))


def _nll_platt(ab: np.ndarray, z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    s = ab[0] * z + ab[1]
    r = special.expit(s) - y
    return float(np.mean(np.logaddexp(0.0, s) - y * s)), np.array([np.mean(r * z), np.mean(r)])


@dataclass(frozen=True)
class Recalibration:
    """A fitted map from forecasts to recalibrated forecasts (``apply``)."""

    method: str
    params: tuple[float, ...]
    x: tuple[float, ...] = ()
    y: tuple[float, ...] = ()
    n_fit: int = 0

    def apply(self, f: npt.ArrayLike) -> np.ndarray:
        if self.method == "temperature":
            return np.asarray(special.expit(logit(f) / self.params[0]))
        if self.method == "platt":
            return np.asarray(special.expit(self.params[0] * logit(f) + self.params[1]))
        return np.interp(np.asarray(f, dtype=float), np.asarray(self.x), np.asarray(self.y))

    def describe(self) -> str:
        if self.method == "temperature":
            return f"temperature scaling, T = {self.params[0]:.4g} (fitted on {self.n_fit} validation rows)"
        if self.method == "platt":
            return (f"Platt scaling, sigmoid({self.params[0]:.4g} z + {self.params[1]:.4g}) "
                    f"(fitted on {self.n_fit} validation rows)")
        return f"isotonic regression, {len(self.x)} fitted points (fitted on {self.n_fit} validation rows)"


def _isotonic(f: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    xs, inv, counts = np.unique(f, return_inverse=True, return_counts=True)
    means = np.bincount(inv, weights=y) / counts
    fitted = optimize.isotonic_regression(means, weights=counts.astype(float), increasing=True).x
    return xs, np.asarray(fitted)


def fit_recalibration(forecasts: npt.ArrayLike, outcomes: npt.ArrayLike, method: str = "temperature") -> Recalibration:
    """Fit ``method`` (:data:`METHODS`) on these (validation) forecasts and 0/1 outcomes."""
    f = np.asarray(forecasts, dtype=float)
    y = np.asarray(outcomes, dtype=float)
    if f.ndim != 1 or f.shape != y.shape or f.size < 2:
        raise ValueError("recalibration needs at least two validation rows with a forecast and an outcome")
    if not (np.all(np.isfinite(f)) and np.all((f >= 0) & (f <= 1)) and np.all((y == 0) | (y == 1))):
        raise ValueError("recalibration needs forecasts in [0, 1] and 0/1 outcomes")
    if y.min() == y.max():
        raise ValueError("the validation rows need both outcomes (0 and 1) to fit a recalibration")
    if method == "temperature":
        return Recalibration("temperature", (fit_temperature(logit(f), y),), n_fit=f.size)
    if method == "platt":
        res = optimize.minimize(_nll_platt, np.array([1.0, 0.0]), args=(logit(f), y), jac=True, method="L-BFGS-B")
        return Recalibration("platt", (float(res.x[0]), float(res.x[1])), n_fit=f.size)
    if method == "isotonic":
        xs, ys = _isotonic(f, y)
        return Recalibration("isotonic", (), tuple(xs.tolist()), tuple(ys.tolist()), n_fit=f.size)
    raise ValueError(f"unknown recalibration {method!r} (one of {', '.join(METHODS)})")
