"""The linearized logit-scale interval of a ratio of cluster totals (one class's F1/F-beta):
its SE against statsmodels' cluster-robust SE of the mean of the item-level linearized scores,
its ends against the formula written out by hand with scipy's t quantile, and its use by
``classification_metrics`` (clustered, unclustered, the fallback where F is 1)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from evaladdon.stats.families.classification import classification_metrics
from evaladdon.stats.families.ratio_interval import linearized_ratio_interval

sm = pytest.importorskip("statsmodels.api")


def _items(seed: int, n_clusters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_clusters)
    cl = np.repeat(np.arange(n_clusters), sizes)
    yt = rng.integers(0, 3, cl.size)
    yp = np.where(rng.random(cl.size) < 0.4 + 0.5 * rng.random(n_clusters)[cl], yt, rng.integers(0, 3, cl.size))
    return yt, yp, cl


@pytest.mark.parametrize("beta,seed", [(1.0, 0), (2.0, 1), (0.5, 2)])
def test_se_is_statsmodels_cluster_se_of_linearized_scores(beta: float, seed: int) -> None:
    yt, yp, cl = _items(seed, 25)
    n, b2 = yt.size, beta * beta
    for k in range(3):
        y_i = (1 + b2) * ((yt == k) & (yp == k))  # one item's share of (1 + b^2) tp
        x_i = b2 * (yt == k) + (yp == k)  # of b^2 t + p
        y_c = np.bincount(cl, weights=y_i)[:, None]
        x_c = np.bincount(cl, weights=x_i)[:, None]
        ratio, se, low, high = linearized_ratio_interval(y_c, x_c, 0.95)
        r = y_i.sum() / x_i.sum()
        z = n * (y_i - r * x_i) / x_i.sum()  # influence of each item on R; mean(z) = 0
        fit = sm.OLS(z, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": cl})
        assert ratio[0] == pytest.approx(r, rel=1e-12)
        assert se[0] == pytest.approx(float(fit.bse[0]), rel=1e-10)
        # the ends: expit(logit R -+ t_{C-1} SE / (R (1 - R))), written out
        q = sps.t.ppf(0.975, 24)
        lg = np.log(r / (1 - r))
        half = q * se[0] / (r * (1 - r))
        assert low[0] == pytest.approx(1 / (1 + np.exp(-(lg - half))), rel=1e-12)
        assert high[0] == pytest.approx(1 / (1 + np.exp(-(lg + half))), rel=1e-12)


def test_classification_uses_it_for_one_class_f_only() -> None:
    yt, yp, cl = _items(3, 30)
    res = classification_metrics(yt, yp, cl, n_boot=200, beta=2.0)
    b2 = 4.0
    for c in res.labels:
        k = int(c)
        y_c = np.bincount(cl, weights=(1 + b2) * ((yt == k) & (yp == k)))[:, None]
        x_c = np.bincount(cl, weights=b2 * (yt == k) + (yp == k))[:, None]
        _, se, low, high = linearized_ratio_interval(y_c, x_c, 0.95)
        e = res.get(f"f2[{c}]")
        assert (e.ci_low, e.ci_high, e.se) == pytest.approx((low[0], high[0], se[0]), rel=1e-12)
        assert e.method == "cluster delta-method CR1 SE, logit scale, t(29)"
        assert "delta-method" in res.get(f"f1[{c}]").method
        assert "bootstrap" in res.get(f"precision[{c}]").method and "bootstrap" in res.get(f"recall[{c}]").method
    assert "bootstrap" in res.get("f2_macro").method and "bootstrap" in res.get("f1_macro").method
    # BCa, asked for, stays BCa for every metric
    assert all("bca" in e.method for e in classification_metrics(yt, yp, cl, n_boot=200, method="bca").metrics)
    # unclustered: items are the units, t(n - 1)
    e = classification_metrics(yt, yp, n_boot=200).get("f1[0]")
    assert e.method == f"item delta-method CR1 SE, logit scale, t({yt.size - 1})" and e.ci_low < e.estimate < e.ci_high


def test_f_of_one_keeps_the_bootstrap_with_a_note() -> None:
    yt = np.array(list("aabbcc"))
    yp = np.array(list("aabbca"))
    res = classification_metrics(yt, yp, n_boot=200)
    e = res.get("f1[b]")
    assert e.estimate == 1.0 and "bootstrap percentile" in e.method
    assert any("no linearized interval" in n for n in e.notes)
    ratio, se, low, high = linearized_ratio_interval(np.zeros((3, 1)), np.zeros((3, 1)), 0.95)
    assert np.isnan(ratio[0]) and np.isnan(low[0]) and np.isnan(high[0])


def test_beta_one_gives_both_f1_entries_the_same_interval() -> None:
    yt, yp, cl = _items(4, 20)
    res = classification_metrics(yt, yp, cl, n_boot=200, beta=1.0)
    for c in res.labels:
        both = [e for e in res.metrics if e.name == f"f1[{c}]"]
        assert len(both) == 2 and all("delta-method" in e.method for e in both)
        assert both[0].ci == both[1].ci
