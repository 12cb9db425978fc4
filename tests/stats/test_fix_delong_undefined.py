"""Issue 25.3: an undefined (or zero) DeLong variance is NaN with a note, never a certainty.

One positive (or one negative), all positives (or negatives) in one cluster, or two runs whose
structural components differ by a constant leave the paired DeLong variance undefined or zero;
the interval, se and p are then NaN, a note says why, and the regression gate is inconclusive
(it never acts on them).  Before the fix: se 0, p 0, a zero-width interval, "regression shown".
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

from evaladdon.stats import INCONCLUSIVE, compare_roc_auc, regression_gate, roc_auc


def _undefined(r: Any) -> None:
    assert math.isnan(r.se) and math.isnan(r.ci_low) and math.isnan(r.ci_high) and math.isnan(r.p_value)
    assert r.notes and "no interval" in r.notes[0]
    assert regression_gate(r.ci_low, r.ci_high).decision == INCONCLUSIVE


def _scores(n: int = 30) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=n), rng.normal(size=n)


@pytest.mark.parametrize("label", [1, 0])
def test_single_positive_or_negative(label: int) -> None:
    sa, sb = _scores()
    y = np.full(sa.size, 1 - label)
    y[0] = label
    sa[0] += 4.0 if label else -4.0  # A ranks the lone item right, B wrong: a large delta
    sb[0] -= 4.0 if label else -4.0
    r = compare_roc_auc(sa, sb, y)
    assert r.delta < -0.9
    _undefined(r)


@pytest.mark.parametrize("label", [1, 0])
def test_clustered_all_of_one_class_in_one_cluster(label: int) -> None:
    sa, sb = _scores(40)
    cl = np.repeat(np.arange(8), 5)
    y = np.where(cl == 0, label, 1 - label)  # cluster 0 holds every item of the class `label`
    y[5] = label  # ... and one item of cluster 1 too: still two clusters with a `label`, defined
    assert math.isfinite(compare_roc_auc(sa, sb, y, cl).se)
    y[5] = 1 - label  # now one cluster holds them all: Obuchowski's I/(I-1) is 1/0
    r = compare_roc_auc(sa, sb, y, cl)
    _undefined(r)
    assert ("a positive: 1," if label else "a negative: 1;") in r.notes[0]
    one = roc_auc(sa, y, cl)  # the single-run estimate says the same
    assert math.isnan(one.ci_low) and one.notes and "cluster" in one.notes[0]


def test_zero_variance_of_the_difference() -> None:
    y = np.array([0, 0, 0, 1, 1, 1])
    sa = np.zeros(6)  # every pair tied: AUC 0.5, components all 0.5
    sb = y.astype(float)  # perfect: components all 1; the difference is the constant 0.5
    r = compare_roc_auc(sa, sb, y)
    assert r.delta == 0.5
    _undefined(r)
    same = compare_roc_auc(sb, sb, y)  # identical runs: no [0, 0] certainty either
    assert same.delta == 0.0
    _undefined(same)


def test_cli_gate_does_not_fail_on_an_undefined_variance(tmp_path: Path,
                                                        cli: Callable[..., tuple[int, str, str]]) -> None:
    rng = np.random.default_rng(0)
    n = 30
    y = np.zeros(n, int)
    y[0] = 1
    rows = []
    for run, shift in (("A", 3.0), ("B", 0.0)):
        s = rng.normal(size=n) + shift * y
        rows += [dict(run=run, task="t", model=run, metric="m", item=f"q{i}", epoch=1, value=float(y[i]),
                      score=float(s[i]), label=int(y[i])) for i in range(n)]
    path = tmp_path / "one_positive.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    code, out, err = cli("compare", path, "--metric", "roc_auc", "--fail-on-regression")
    assert code == 0 and "regression shown" not in err
    assert "inconclusive" in out and "1 positive(s) and 29 negative(s)" in out
    code, out, _ = cli("compare", path, "--metric", "roc_auc", "--fail-on-regression", "--json")
    (rec,) = json.loads(out)["results"]
    assert code == 0 and rec["decision"] == INCONCLUSIVE
    assert rec["se"] is None and rec["p_value"] is None and rec["ci_low"] is None and rec["notes"]
