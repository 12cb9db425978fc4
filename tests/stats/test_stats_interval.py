"""Results of ``evaladdon.stats`` hold their interval as ``ci`` (an ``Interval``; issue 24, step 3d).

The bounds are still taken by position and by name, read as properties, carried over by
``dataclasses.replace``, and shown by ``to_dict()`` as before: ``ci_low``/``ci_high`` (``low``/``high``
for ``BootstrapResult``) in the place the fields had, never ``ci``.
"""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import pytest

from evaladdon.stats import (
    BootstrapResult, BradleyTerryResult, CorrectedDifference, CorrectedRate, Interval, MeanEstimate, MetricEstimate,
    PairedComparison, PairedMetric, PPIResult, RankingResult, bootstrap_mean, compare_paired, corrected_difference,
    estimate_mean, ppi_mean, rank_models, rogan_gladen,
)
from evaladdon.stats.ranking.bradley_terry import bradley_terry

HOLDERS = (MeanEstimate, PairedComparison, PairedMetric, MetricEstimate, CorrectedRate, PPIResult,
           CorrectedDifference, RankingResult, BradleyTerryResult, BootstrapResult)


def _results() -> list[object]:
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 60).astype(float)
    b = rng.integers(0, 2, 60).astype(float)
    scores = rng.random((40, 3))
    side_a = np.array(["x", "y", "z", "x", "y", "x"] * 5)
    side_b = np.array(["y", "z", "x", "z", "x", "y"] * 5)
    outcome = rng.integers(0, 2, 30).astype(float)
    return [
        estimate_mean(a),
        compare_paired(a, b),
        MetricEstimate("f1", 0.5, 0.4, 0.6, 0.95, "cluster bootstrap", 80),
        PairedMetric(name="f1", estimate_a=0.5, estimate_b=0.6, delta=0.1, ci_low=0.0, ci_high=0.2, level=0.95,
                     method="paired bootstrap", p_value=0.04, n_items=80),
        rogan_gladen(0.6, 0.9, 0.8, n_observed=200, n_pos=50, n_neg=50),
        ppi_mean(a[:20], b[:20], b[20:]),
        corrected_difference(0.1, 0.03, 0.9, 0.8),
        rank_models(scores, ("p", "q", "r"), n_boot=200),
        bradley_terry(side_a, side_b, outcome, n_boot=100),
        bootstrap_mean(a, n_resamples=200),
    ]


@pytest.mark.parametrize("result", _results(), ids=lambda r: type(r).__name__)
def test_the_interval_is_a_field_and_the_bounds_read_it(result: object) -> None:
    low, high = ("low", "high") if isinstance(result, BootstrapResult) else ("ci_low", "ci_high")
    ci = result.ci  # type: ignore[attr-defined]
    assert isinstance(ci, Interval)
    assert "ci" in [f.name for f in dataclasses.fields(result)]  # type: ignore[arg-type]
    assert getattr(result, low) is ci.low and getattr(result, high) is ci.high
    assert ci.level == result.level  # type: ignore[attr-defined]
    d = result.to_dict()  # type: ignore[attr-defined]
    assert "ci" not in d
    keys = list(d)
    assert keys[keys.index(low) + 1] == high
    # the bounds stand where ``ci`` is among the fields: the key order of before
    names = [f.name for f in dataclasses.fields(result)]  # type: ignore[arg-type]
    at = names.index("ci")
    assert keys == names[:at] + [low, high] + names[at + 1:]
    np.testing.assert_equal(d[low], np.asarray(ci.low).tolist())
    np.testing.assert_equal(d[high], np.asarray(ci.high).tolist())


@pytest.mark.parametrize("result", _results(), ids=lambda r: type(r).__name__)
def test_replace_carries_the_interval_over_or_takes_new_bounds(result: object) -> None:
    low, high = ("low", "high") if isinstance(result, BootstrapResult) else ("ci_low", "ci_high")
    kept = dataclasses.replace(result, level=0.5)  # type: ignore[type-var]
    assert kept.ci.low is result.ci.low and kept.ci.high is result.ci.high  # type: ignore[attr-defined]
    assert kept.ci.level == 0.5
    moved = dataclasses.replace(result, **{low: -1.0, high: 2.0})  # type: ignore[type-var]
    assert (getattr(moved, low), getattr(moved, high)) == (-1.0, 2.0)
    assert (moved.ci.low, moved.ci.high) == (-1.0, 2.0)
    np.testing.assert_equal(pickle.loads(pickle.dumps(moved)).to_dict(), moved.to_dict())


def test_known_results_keep_their_json_keys_in_order() -> None:
    m = MetricEstimate(name="f1", estimate=0.5, ci_low=0.4, ci_high=0.6, level=0.95, method="t", n_items=3)
    assert list(m.to_dict()) == ["name", "estimate", "ci_low", "ci_high", "level", "method", "n_items",
                                 "n_clusters", "se", "notes"]
    assert m.ci == Interval(0.5, 0.4, 0.6, 0.95, "t")
    assert m == MetricEstimate("f1", 0.5, 0.4, 0.6, 0.95, "t", 3)
    d = CorrectedDifference(0.1, 0.08, 0.02, 0.06, 0.14, 0.95)
    assert list(d.to_dict()) == ["delta", "observed_delta", "se", "ci_low", "ci_high", "level"]
    assert d.ci == Interval(0.1, 0.06, 0.14, 0.95, "normal")
    b = BootstrapResult(0.5, 0.4, 0.6, 0.05, 0.95, "bootstrap-percentile", 100, 10, 0)
    assert list(b.to_dict()) == ["estimate", "low", "high", "se", "level", "method", "n_resamples", "n_units",
                                 "seed"]
    assert (b.low, b.high) == (0.4, 0.6)
    p = PairedComparison.__dataclass_fields__
    assert [n for n in p if n in ("ci_low", "ci", "ci_high")] == ["ci_low", "ci_high", "ci"]  # bounds are init-only
    with pytest.raises(TypeError):
        MetricEstimate("f1", 0.5, 0.4)  # type: ignore[call-arg]  # the bounds are still required
    assert math.isnan(MetricEstimate("f1", 0.5, math.nan, math.nan, 0.95, "t", 3).ci.low)
    assert all(issubclass(c, object) and "ci" in c.__dataclass_fields__ for c in HOLDERS)
