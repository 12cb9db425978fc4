"""Calibration: scikit-learn and direct loops as oracles, the Murphy/Stephenson identity,
Monte-Carlo coverage against values integrated from a known forecast/outcome law."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

from evaladdon.stats.calibration import NAMES, calibration_metrics, compare_calibration

sk = pytest.importorskip("sklearn.metrics")


def _ece_direct(f: np.ndarray, o: np.ndarray, edges: np.ndarray) -> float:
    total = 0.0
    for j in range(len(edges) - 1):
        last = j == len(edges) - 2
        inside = (f >= edges[j]) & ((f <= edges[j + 1]) if last else (f < edges[j + 1]))
        if inside.any():
            total += inside.sum() / f.size * abs(o[inside].mean() - f[inside].mean())
    return total


def test_point_values_match_oracles() -> None:
    rng = np.random.default_rng(0)
    f = rng.beta(2, 2, 500)
    o = (rng.random(500) < f**1.5).astype(float)
    r = calibration_metrics(f, o, n_boot=200)
    assert r.get("brier").estimate == pytest.approx(sk.brier_score_loss(o, f), abs=1e-12)
    assert r.get("nll").estimate == pytest.approx(sk.log_loss(o, f), abs=1e-12)
    assert r.get("ece").estimate == pytest.approx(_ece_direct(f, o, np.linspace(0, 1, 16)), abs=1e-12)
    q = np.quantile(f, np.linspace(0, 1, 16))  # equal mass: bins between sample quantiles
    assert r.get("ece_equal_mass").estimate == pytest.approx(_ece_direct(f, o, q), abs=1e-12)
    decomposition = (r.get("brier_reliability").estimate - r.get("brier_resolution").estimate
                     + r.get("brier_uncertainty").estimate + r.get("brier_within_bin").estimate)
    assert decomposition == pytest.approx(r.get("brier").estimate, abs=1e-12)
    assert r.get("brier_uncertainty").estimate == pytest.approx(o.mean() * (1 - o.mean()))
    assert sum(b.count for b in r.bins) == 500 and r.n_bins == 15


def test_forecasts_constant_within_bins_give_classic_murphy() -> None:
    """When f takes one value per bin, WBV = WBC = 0 and Murphy's identity holds alone."""
    rng = np.random.default_rng(1)
    f = rng.choice(np.arange(10) / 10 + 0.05, 400)
    o = (rng.random(400) < f).astype(float)
    r = calibration_metrics(f, o, n_bins=10, n_boot=200)
    assert abs(r.get("brier_within_bin").estimate) < 1e-12
    rel, res, unc = (r.get(n).estimate for n in ("brier_reliability", "brier_resolution", "brier_uncertainty"))
    assert rel - res + unc == pytest.approx(sk.brier_score_loss(o, f))


def _truth() -> dict[str, float]:
    """f ~ U(0,1), P(o=1 | f) = f^2 (over-confident); 15 equal-width bins."""
    edges = np.linspace(0, 1, 16)
    ece = sum(abs((h**3 - lo**3) / 3 - (h**2 - lo**2) / 2) for lo, h in zip(edges[:-1], edges[1:], strict=True))
    nll = integrate.quad(lambda x: -(x * x * np.log(x) + (1 - x * x) * np.log1p(-x)), 0, 1)[0]
    return {"ece": ece, "ece_equal_mass": ece, "brier": 1 / 6, "nll": nll}


def test_cluster_bootstrap_coverage() -> None:
    truth = _truth()
    rng = np.random.default_rng(4)
    n_c, size, reps = 60, 10, 150
    cl = np.repeat(np.arange(n_c), size)
    hits = dict.fromkeys(truth, 0)
    for i in range(reps):
        f = rng.random(cl.size)
        u = rng.choice([-0.8, 0.8], n_c)[cl]  # cluster effect with mean 0: P(o|f) = f^2 (1 + u (1-f))
        o = (rng.random(cl.size) < f * f * (1 + u * (1 - f))).astype(float)
        r = calibration_metrics(f, o, cl, n_boot=400, seed=i)
        for k in truth:
            hits[k] += r.get(k).ci_low <= truth[k] <= r.get(k).ci_high
    cover = {k: v / reps for k, v in hits.items()}
    assert all(0.88 <= c <= 0.99 for c in cover.values()), cover


def test_debiased_ece_squared_is_less_biased() -> None:
    """Forecasts constant within bins (Kumar et al.'s setting): the debiased ECE^2 is unbiased."""
    rng = np.random.default_rng(6)
    centres = np.arange(10) / 10 + 0.05
    truth = float(np.mean((centres**2 - centres) ** 2))
    plug, debiased = [], []
    for _ in range(200):
        f = rng.choice(centres, 200)
        o = (rng.random(200) < f * f).astype(float)
        r = calibration_metrics(f, o, n_bins=10, n_boot=100)
        debiased.append(r.get("ece_sq_debiased").estimate)
        plug.append(r.get("brier_reliability").estimate)  # the plug-in squared error
    se = np.std(debiased) / np.sqrt(200)
    assert abs(np.mean(debiased) - truth) < 3 * se
    assert np.mean(plug) - truth > 3 * se


def test_paired_comparison() -> None:
    rng = np.random.default_rng(9)
    reps, hits = 120, 0
    for i in range(reps):
        f = rng.random(300)
        o = (rng.random(300) < f).astype(float)  # A calibrated (truth Brier 1/6)
        fb = np.clip(f + 0.2, 0, 1)  # B over-confident on the same outcomes
        truth = integrate.quad(lambda x: (min(x + 0.2, 1) - 1) ** 2 * x + min(x + 0.2, 1) ** 2 * (1 - x), 0, 1)[0]
        res = {r.name: r for r in compare_calibration(f, o, fb, o, np.arange(300) // 3, n_boot=300, seed=i)}
        b = res["brier"]
        hits += b.ci_low <= truth - 1 / 6 <= b.ci_high
    assert 0.88 <= hits / reps <= 0.99
    same = compare_calibration(f, o, f, o, n_boot=200)
    assert all(r.delta == 0 for r in same)
    assert [r.name for r in same] == list(NAMES)


def test_refusals() -> None:
    with pytest.raises(ValueError):
        calibration_metrics([0.2, 1.2], [0, 1])
    with pytest.raises(ValueError):
        calibration_metrics([0.2, 0.3], [0, 2])
    with pytest.raises(ValueError):
        calibration_metrics([0.2, 0.3], [0, 1, 1])
