"""The exact K-choice temperature of ``metrics --recalibrate temperature`` (lm-eval multiple choice).

Oracle: scipy's ``minimize_scalar`` (bounded) on the K-choice NLL written out here, row by row
over ragged choice lists (no padding), and scipy's softmax for the recalibrated forecasts;
``calibration_metrics`` on those forecasts for the after table.  Monte Carlo (seeded,
vectorised over the test rows): with logits generated overconfident by a known temperature,
the fit recovers it and the recalibrated top-label forecasts are calibrated, where the
top-label approximation it replaces is not as close.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special

from evaladdon.analysis.choice_temperature import choice_logits, choice_temperature
from evaladdon.analysis.recalibration import recalibrate
from evaladdon.stats.families.calibration import calibration_metrics
from evaladdon.stats.families.recalibrate import fit_recalibration, fit_temperature
from evaladdon.table import finalize


def _draw(rng: np.random.Generator, n: int, widths: tuple[int, ...], t_true: float) -> tuple[list[np.ndarray], np.ndarray]:
    """Logits whose calibrated softmax is at ``z / t_true``, and a gold choice drawn from it."""
    zs, gold = [], np.empty(n, dtype=np.int64)
    for i in range(n):
        z = rng.normal(0.0, 2.0 * t_true, widths[i % len(widths)])
        zs.append(z)
        gold[i] = rng.choice(len(z), p=special.softmax(z / t_true))
    return zs, gold


def _table(seed: int = 0, n: int = 300, widths: tuple[int, ...] = (4,), t_true: float = 2.5,
           drop_gold: int = 0) -> tuple[pd.DataFrame, list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    zs, gold = _draw(rng, 2 * n, widths, t_true)
    pred = np.array([int(np.argmax(z)) for z in zs])
    label = gold.astype(str).astype(object)
    label[:drop_gold] = None
    df = pd.DataFrame({
        "run": "A", "source": "s.jsonl", "harness": "lm_eval", "task": "t", "model": "m", "metric": "acc,none",
        "item": [f"d{i}" for i in range(2 * n)], "epoch": 1, "value": (pred == gold).astype(float), "raw": "x",
        "cluster": None, "item_hash": None, "error": None, "prediction": pred.astype(str), "label": label,
        "confidence": [special.softmax(z).max() for z in zs], "choice_lls": [json.dumps(z.tolist()) for z in zs],
        "meta.split": ["validation"] * n + ["test"] * n})
    return finalize(df), zs, gold


def _oracle_t(zs: list[np.ndarray], gold: np.ndarray) -> float:
    def nll(log_t: float) -> float:
        t = np.exp(log_t)
        return float(np.mean([special.logsumexp(z / t) - z[g] / t for z, g in zip(zs, gold, strict=True)]))

    return float(np.exp(optimize.minimize_scalar(nll, bounds=(-7, 7), method="bounded",
                                                 options={"xatol": 1e-10}).x))


@pytest.mark.parametrize("widths", [(4,), (3, 5, 4)])
def test_fit_and_forecasts_equal_the_scipy_oracle(widths: tuple[int, ...]) -> None:
    df, zs, gold = _table(seed=1, widths=widths)
    n = len(zs) // 2
    (r,) = recalibrate(df, "temperature", "split=validation", n_boot=200)
    t = _oracle_t(zs[:n], gold[:n])  # the validation rows only
    assert r.params["params"][0] == pytest.approx(t, rel=1e-5) and 2.0 < t < 3.2
    assert r.params["fitted_on"].startswith("choice log-likelihoods") and r.params["n_fit"] == n
    after = np.array([special.softmax(z / t).max() for z in zs[n:]])
    o = (np.array([np.argmax(z) for z in zs[n:]]) == gold[n:]).astype(float)
    want = calibration_metrics(after, o, df["item"].to_numpy()[n:], n_boot=200)
    for name in ("ece", "brier", "nll"):
        assert r.after.get(name).estimate == pytest.approx(want.get(name).estimate, rel=1e-6)
    t = r.params["params"][0]  # the K-choice NLL of the test rows at the fitted T, by scipy
    k_nll = np.mean([special.logsumexp(z / t) - z[g] / t for z, g in zip(zs[n:], gold[n:], strict=True)])
    assert r.params["choice_nll"]["after"] == pytest.approx(k_nll, rel=1e-9)
    assert r.params["choice_nll"]["after"] < r.params["choice_nll"]["before"]
    assert any("softmax over all" in note for note in r.notes)


def test_padding_changes_nothing() -> None:
    df, zs, gold = _table(seed=2, n=50, widths=(2, 6))
    z = choice_logits(df.iloc[:50])
    assert z is not None and z.shape == (50, 6)
    assert fit_temperature(z, gold[:50]) == pytest.approx(_oracle_t(zs[:50], gold[:50]), rel=1e-5)


def test_falls_back_to_top_label_with_the_reason() -> None:
    df, _, _ = _table(seed=3, drop_gold=5)  # five validation rows without a gold index
    (r,) = recalibrate(df, "temperature", "split=validation", n_boot=200)
    assert "fitted_on" not in r.params
    assert any("top-label" in n and "5 of 300 validation rows have no gold choice index" in n for n in r.notes)
    assert choice_temperature(df.drop(columns="choice_lls"), df) is None
    bad = df.copy()
    bad.loc[3, "choice_lls"] = "[1, \"x\"]"
    assert "not every" in str(choice_temperature(bad, bad))


def test_platt_and_isotonic_unchanged() -> None:
    df, _, _ = _table(seed=4)
    (r,) = recalibrate(df, "platt", "split=validation", n_boot=200)
    val = df[df["meta.split"] == "validation"]
    fit = fit_recalibration(val["confidence"], val["value"], "platt")
    assert r.params["params"] == pytest.approx(list(fit.params)) and "fitted_on" not in r.params


def test_monte_carlo_recovers_the_temperature_and_calibrates() -> None:
    """120 seeded validation sets of 200 four-choice rows whose logits are overconfident by T = 2.5:
    the fitted T is within 20 % of the truth in >= 93 % of them, and the recalibrated top-label
    forecasts of 2,000 test rows are within 0.05 of the true probability that the predicted
    choice is right (mean absolute error) in >= 93 %; the top-label fit it replaces is biased
    (its median T is off by more than 0.3, the exact fit's by less than 0.1)."""
    rng = np.random.default_rng(11)
    k, t_true, n_val, n_test, reps = 4, 2.5, 200, 2000, 120
    z_test = rng.normal(0.0, 2.0 * t_true, (n_test, k))
    p_top = special.softmax(z_test / t_true, axis=1).max(axis=1)  # P(the argmax choice is the gold one)
    ts, tops, err = np.empty(reps), np.empty(reps), np.empty(reps)
    for j in range(reps):
        z = rng.normal(0.0, 2.0 * t_true, (n_val, k))
        u = rng.random(n_val)[:, None]
        gold = (u > np.cumsum(special.softmax(z / t_true, axis=1), axis=1)).sum(axis=1)  # inverse-cdf draw
        ts[j] = fit_temperature(z, gold)
        err[j] = np.mean(np.abs(special.softmax(z_test / ts[j], axis=1).max(axis=1) - p_top))
        conf = special.softmax(z, axis=1).max(axis=1)
        tops[j] = fit_recalibration(conf, (z.argmax(axis=1) == gold).astype(float), "temperature").params[0]
    assert np.mean(np.abs(ts / t_true - 1) < 0.2) >= 0.93 and np.mean(err < 0.05) >= 0.93
    assert abs(np.median(ts) - t_true) < 0.1 and abs(np.median(tops) - t_true) > 0.3
