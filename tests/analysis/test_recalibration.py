"""Recalibration glue: fitted on validation rows only (a spy on the fit fails the test if any test
row reaches it), numbers equal to the stats functions on the test rows, shared items refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special

import evaladdon.analysis.recalibration as recal_mod
from evaladdon.analysis.recalibration import recalibrate
from evaladdon.errors import EvalAddonError
from evaladdon.stats.families.calibration import calibration_metrics, compare_calibration
from evaladdon.stats.families.recalibrate import fit_recalibration
from evaladdon.table import finalize


def overconfident_table(seed: int = 0, n: int = 400, same_items: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for split, off in (("validation", 0), ("test", 0 if same_items else 50_000)):
        z = rng.normal(0, 1.5, n)
        y = (rng.random(n) < special.expit(z)).astype(int)
        s = special.expit(2.5 * z)
        parts.append(pd.DataFrame({
            "run": "V" if same_items and split == "validation" else "A", "source": "a.csv", "harness": "table",
            "task": "t", "model": "m", "metric": "det", "item": [f"q{i + off}" for i in range(n)], "epoch": 1,
            "value": (y == (s > 0.5)).astype(float), "raw": "x", "cluster": [f"c{i % 20}" for i in range(n)],
            "item_hash": None, "error": None, "score": s, "label": y.astype(str), "meta.split": split}))
    return finalize(pd.concat(parts, ignore_index=True))


@pytest.mark.parametrize("method", ["temperature", "platt", "isotonic"])
def test_fitted_on_validation_rows_only(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    df = overconfident_table()
    seen: list[np.ndarray] = []

    def spy(forecasts: np.ndarray, outcomes: np.ndarray, m: str = "temperature") -> object:
        seen.append(np.asarray(forecasts, dtype=float))
        return fit_recalibration(forecasts, outcomes, m)

    monkeypatch.setattr(recal_mod, "fit_recalibration", spy)
    (r,) = recalibrate(df, method, "split=validation", n_boot=200)
    val = df.loc[df["meta.split"] == "validation", "score"].to_numpy()
    test = df.loc[df["meta.split"] == "test", "score"].to_numpy()
    (fitted,) = seen
    assert np.array_equal(np.sort(fitted), np.sort(val))  # every validation row, and only them
    assert not np.isin(fitted, test).any()  # fails if any test row reached the fit
    assert r.params["n_fit"] == len(val)


def test_numbers_equal_the_stats_functions() -> None:
    df = overconfident_table(seed=1)
    (r,) = recalibrate(df, "temperature", "split=validation", n_boot=300)
    val = df[df["meta.split"] == "validation"]
    test = df[df["meta.split"] == "test"]
    fit = fit_recalibration(val["score"], val["label"].astype(float), "temperature")
    f, o, cl = test["score"].to_numpy(), test["label"].astype(float).to_numpy(), test["cluster"].to_numpy()
    before = calibration_metrics(f, o, cl, n_boot=300)
    after = calibration_metrics(fit.apply(f), o, cl, n_boot=300)
    change = {c.name: c for c in compare_calibration(f, o, fit.apply(f), o, cl, n_boot=300)}
    assert r.params["params"] == [pytest.approx(fit.params[0])] and fit.params[0] > 1.5
    for name in ("ece", "brier", "nll"):
        assert r.before.get(name).estimate == pytest.approx(before.get(name).estimate)
        assert r.after.get(name).estimate == pytest.approx(after.get(name).estimate)
        c = next(x for x in r.change if x.name == name)
        assert c.delta == pytest.approx(change[name].delta) and c.ci_low == pytest.approx(change[name].ci_low)
    assert next(x for x in r.change if x.name == "nll").ci_high < 0  # overconfidence fixed: NLL falls
    rec = r.flat()
    assert set(rec["before"]) == set(rec["after"]) and len(rec["reliability_after"]) == 15


def test_refusals() -> None:
    with pytest.raises(EvalAddonError, match="share"):
        recalibrate(overconfident_table(same_items=True), "platt", "V", n_boot=200)
    df = overconfident_table()
    with pytest.raises(EvalAddonError, match="no row"):
        recalibrate(df, "platt", "split=nope", n_boot=200)
