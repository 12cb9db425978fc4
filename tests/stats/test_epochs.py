"""Epoch variance decomposition against a hand computation with explicit loops."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaladdon.stats import epoch_variance


def hand(values: list[list[float]]) -> dict[str, float]:
    means = [sum(v) / len(v) for v in values]
    item_vars = []
    for v in values:
        if len(v) >= 2:
            m = sum(v) / len(v)
            item_vars.append(sum((a - m) ** 2 for a in v) / (len(v) - 1))
    within = sum(item_vars) / len(item_vars)
    n = len(values)
    grand = sum(means) / n
    var_means = sum((m - grand) ** 2 for m in means) / (n - 1)
    per_item = []
    for v in values:
        if len(v) >= 2:
            m = sum(v) / len(v)
            s2 = sum((a - m) ** 2 for a in v) / (len(v) - 1)
        else:
            s2 = within
        per_item.append(s2 / len(v))
    between = max(var_means - sum(per_item) / n, 0.0)
    inv_k = sum(1 / len(v) for v in values) / n
    return {
        "within": within,
        "between": between,
        "icc": between / (between + within),
        "se_model": math.sqrt((between + within * inv_k) / n),
        "se_item": math.sqrt(var_means / n),
    }


def test_matches_hand_computation_unequal_epochs() -> None:
    rng = np.random.default_rng(5)
    values = [list(rng.binomial(1, p, size=k).astype(float)) for p, k in zip(rng.uniform(0, 1, 40), rng.integers(1, 6, 40), strict=True)]
    values[0] = [1.0, 0.0, 1.0]  # make sure some item is repeated
    expected = hand(values)
    flat = np.concatenate(values)
    items = np.repeat(np.arange(len(values)), [len(v) for v in values])
    r = epoch_variance(flat, items)
    assert r.within_var == pytest.approx(expected["within"])
    assert r.between_var == pytest.approx(expected["between"])
    assert r.icc == pytest.approx(expected["icc"])
    assert r.se_model == pytest.approx(expected["se_model"])
    assert r.se_item == pytest.approx(expected["se_item"])
    assert r.n_epochs_min >= 1 and r.n_epochs_max <= 5


def test_projections_and_floor() -> None:
    rng = np.random.default_rng(6)
    p = rng.uniform(0.1, 0.9, 200)
    x = rng.binomial(1, np.repeat(p, 4)).astype(float)
    r = epoch_variance(x, np.repeat(np.arange(200), 4))
    assert r.projected_se(n_epochs=math.inf) == pytest.approx(r.se_floor)
    assert r.projected_se() == pytest.approx(r.se_model)
    assert r.se_double_items < r.se_double_epochs < r.se_model  # more items beat more epochs
    assert r.se_floor < r.se_double_epochs
    # true ICC here is Var(p)/(Var(p) + E[p(1-p)]): check it is in the right region
    true_icc = p.var() / (p.var() + np.mean(p * (1 - p)))
    assert r.icc == pytest.approx(true_icc, abs=0.08)


def test_refuses_without_repeats() -> None:
    with pytest.raises(ValueError, match="two or more epochs"):
        epoch_variance([1.0, 0.0, 1.0], ["a", "b", "c"])
