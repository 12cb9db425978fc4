"""AlpacaEval 2's length-controlled win rate: oracle AlpacaEval's own fitting recipe
(``glm_winrate.fit_LogisticRegressionCV`` with ``n_splits=0`` on its patsy design), run test-side
with scikit-learn, and a seeded Monte-Carlo of the interval's coverage."""

from __future__ import annotations

import numpy as np
import pytest

from evaladdon.stats.lc_winrate import length_controlled_winrate


def _annotations(rng: np.random.Generator, n: int, b0: float, b_len: float) -> tuple[np.ndarray, ...]:
    len_base = rng.integers(200, 2000, n).astype(float)
    len_model = rng.integers(200, 3000, n).astype(float)
    delta = len_base - len_model
    logit = b0 + b_len * np.tanh(delta / 750.0)
    p = 1 / (1 + np.exp(-logit))
    y = (rng.random(n) < p).astype(float)
    return y, len_model, len_base


def _alpaca_eval_recipe(y: np.ndarray, len_model: np.ndarray, len_base: np.ndarray, **lr: object) -> float:
    """glm_winrate.py's steps without the downloaded instruction difficulty and gamed baselines:
    features, the patsy design of its formula, the duplicated rows weighted by the preference,
    scikit-learn's LogisticRegression without intercept, prediction with std_delta_len = 0."""
    pd = pytest.importorskip("pandas")
    patsy = pytest.importorskip("patsy")
    linear = pytest.importorskip("sklearn.linear_model")
    df = pd.DataFrame({"output_1": ["a" * int(v) for v in len_base], "output_2": ["b" * int(v) for v in len_model],
                       "preference": y + 1.0})
    std_delta_len = df["output_1"].str.len() - df["output_2"].str.len()
    data = pd.DataFrame({"preference": df["preference"] - 1, "std_delta_len": std_delta_len / std_delta_len.std(),
                         "not_gamed_baseline": True})
    formula = "np.tanh(std_delta_len) + not_gamed_baseline.astype(float) - 1"
    train = patsy.dmatrix(formula, data, return_type="dataframe")
    test_df = data[["not_gamed_baseline"]].copy()
    test_df["std_delta_len"] = 0
    test = patsy.build_design_matrices([train.design_info], test_df, return_type="dataframe")[0]
    x_dup = pd.concat([train, train], axis=0)
    y_dup = np.r_[np.ones(len(train)), np.zeros(len(train))]
    w_dup = np.r_[data["preference"], 1 - data["preference"]]
    model = linear.LogisticRegression(fit_intercept=False, **lr)
    model.fit(x_dup, y_dup, sample_weight=w_dup)
    return float(model.predict_proba(test)[:, 1].mean() * 100)


def test_matches_alpaca_eval_recipe() -> None:
    rng = np.random.default_rng(5)
    y, lm, lb = _annotations(rng, 805, -0.4, -1.0)
    y[::9] = 0.5  # draws
    res = length_controlled_winrate(y, lm, lb, n_boot=0)
    mle = _alpaca_eval_recipe(y, lm, lb, C=1e10, tol=1e-12, max_iter=10_000)
    assert res.lc_win_rate == pytest.approx(mle, abs=1e-5)
    # AlpacaEval's default solver and penalty (L1, liblinear, C=100): the same number to 0.05 points
    shipped = _alpaca_eval_recipe(y, lm, lb, C=100, l1_ratio=1.0, solver="liblinear", random_state=123)
    assert res.lc_win_rate == pytest.approx(shipped, abs=0.05)
    assert res.win_rate == pytest.approx(100 * y.mean())
    assert res.length_coef < 0  # longer model answers (negative delta) win more


def test_interval_coverage() -> None:
    """MC: the default bootstrap interval covers the true LC win rate 100 sigma(b0) (>= 93 %)."""
    rng = np.random.default_rng(20261202)
    b0 = -0.5
    truth = 100 / (1 + np.exp(-b0))
    hits = []
    for _ in range(200):
        y, lm, lb = _annotations(rng, 300, b0, -1.2)
        res = length_controlled_winrate(y, lm, lb, n_boot=300, seed=int(rng.integers(1 << 30)))
        hits.append(res.lc_low <= truth <= res.lc_high)
    assert np.mean(hits) >= 0.93, np.mean(hits)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="probabilities"):
        length_controlled_winrate([0.2, 1.5, 0.3], [1, 2, 3], [3, 2, 1])
    with pytest.raises(ValueError, match="one value per instruction"):
        length_controlled_winrate([0.2, 0.5], [1, 2, 3], [3, 2, 1])
