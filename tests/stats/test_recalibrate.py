"""Recalibration fits: an independent temperature fit (scipy ``minimize_scalar`` on the NLL, binary
and softmax), scikit-learn's ``LogisticRegression`` (Platt) and ``IsotonicRegression`` as oracles."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, special

from evaladdon.stats.families.recalibrate import fit_recalibration, fit_temperature, logit

sk_lm = pytest.importorskip("sklearn.linear_model")
sk_iso = pytest.importorskip("sklearn.isotonic")


def _overconfident(seed: int, n: int = 800) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1.5, n)
    y = (rng.random(n) < special.expit(z)).astype(float)
    return special.expit(2.5 * z + 0.3), y  # too sharp and shifted


def test_temperature_matches_minimize_scalar_binary() -> None:
    f, y = _overconfident(0)
    z = logit(f)

    def nll(t: float) -> float:
        p = np.clip(special.expit(z / t), 1e-15, 1 - 1e-15)
        return float(-np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)))

    ref = optimize.minimize_scalar(nll, bounds=(0.05, 20), method="bounded", options={"xatol": 1e-8}).x
    t = fit_temperature(z, y)
    assert t == pytest.approx(ref, rel=1e-4) and t > 1.5  # overconfident: T > 1
    r = fit_recalibration(f, y, "temperature")
    assert r.params[0] == pytest.approx(t) and np.allclose(r.apply(f), special.expit(z / t))


def test_temperature_matches_minimize_scalar_softmax() -> None:
    """Logits of K = 4 choices (as lm-eval's per-choice log-likelihoods)."""
    rng = np.random.default_rng(1)
    zz = rng.normal(0, 1, (600, 4))
    y = np.array([rng.choice(4, p=p) for p in special.softmax(zz, axis=1)])
    sharp = 3.0 * zz

    def nll(t: float) -> float:
        return float(np.mean(special.logsumexp(sharp / t, axis=1) - sharp[np.arange(600), y] / t))

    ref = optimize.minimize_scalar(nll, bounds=(0.05, 20), method="bounded", options={"xatol": 1e-8}).x
    assert fit_temperature(sharp, y) == pytest.approx(ref, rel=1e-4)
    assert fit_temperature(sharp, y) == pytest.approx(3.0, rel=0.2)


def test_platt_matches_sklearn_logistic_regression() -> None:
    f, y = _overconfident(2)
    lr = sk_lm.LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(logit(f)[:, None], y)
    r = fit_recalibration(f, y, "platt")
    assert r.params[0] == pytest.approx(lr.coef_[0, 0], rel=1e-3)
    assert r.params[1] == pytest.approx(lr.intercept_[0], abs=1e-3)
    assert np.allclose(r.apply(f), lr.predict_proba(logit(f)[:, None])[:, 1], atol=1e-4)


def test_isotonic_matches_sklearn() -> None:
    f, y = _overconfident(3)
    f = np.round(f, 2)  # ties
    iso = sk_iso.IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(f, y)
    r = fit_recalibration(f, y, "isotonic")
    new = np.random.default_rng(4).random(500)
    assert np.allclose(r.apply(new), iso.predict(new), atol=1e-12)
    assert np.allclose(r.apply(f), iso.predict(f), atol=1e-12)


def test_refusals() -> None:
    with pytest.raises(ValueError, match="both outcomes"):
        fit_recalibration([0.2, 0.4], [1, 1])
    with pytest.raises(ValueError, match="unknown"):
        fit_recalibration([0.2, 0.4], [0, 1], "beta")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fit_recalibration([0.2, 1.4], [0, 1])
