"""Issue 28 item 4: judge drift.  The judge's change on outputs that are byte for byte the same,
the headline difference, and the share of it the judge's change explains.  Oracles: the paired
means and scipy's ``binomtest`` on the discordant same-output items (exact McNemar); a seeded
Monte-Carlo coverage check of the share's interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from evaladdon.analysis.judge_drift import judge_drift, share_explained


def _runs(rng: np.random.Generator, n: int = 300, p_same: float = 0.6) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    same = rng.random(n) < p_same
    a = (rng.random(n) < 0.7).astype(float)
    u = rng.random(n)
    d = np.where(same, np.where(u < 0.2, -1.0, 0.0), np.where(u < 0.1, 1.0, np.where(u < 0.4, -1.0, 0.0)))
    b = np.clip(a + d, 0, 1)
    out_a = [f"answer {i}" for i in range(n)]
    out_b = [o if s else o + " (regenerated)" for o, s in zip(out_a, same, strict=True)]
    rows = []
    for run, vals, outs in (("A", a, out_a), ("B", b, out_b)):
        rows.append(pd.DataFrame({"run": run, "task": "t", "metric": "judge", "item": [f"i{i}" for i in range(n)],
                                  "epoch": 1, "value": vals, "error": None, "cluster": None, "model": "m",
                                  "source": run, "harness": "table", "raw": "", "item_hash": None,
                                  "prediction": outs}))
    return pd.concat(rows, ignore_index=True), b - a, same


def test_the_judge_change_and_the_share() -> None:
    df, d, same = _runs(np.random.default_rng(0))
    (rep,) = judge_drift(df, "A", "B")
    assert rep.n_same_output == int(same.sum()) and rep.n_shared == len(d)
    assert rep.judge_change.comparison.delta == pytest.approx(d[same].mean(), abs=1e-12)
    assert rep.headline.comparison.delta == pytest.approx(d.mean(), abs=1e-12)
    assert rep.share.estimate == pytest.approx(d[same].sum() / d.sum(), abs=1e-12)
    n10, n01 = int((d[same] < 0).sum()), int((d[same] > 0).sum())
    exact = binomtest(n01, n01 + n10, 0.5).pvalue
    flat = rep.judge_change.flat()
    assert (flat["n10"], flat["n01"]) == (n10, n01)
    assert flat["mcnemar_exact_p"] == pytest.approx(exact, rel=1e-9)


def test_share_interval_coverage() -> None:
    rng = np.random.default_rng(7)
    # b = clip(a + d): a drop only where a = 1 (0.7), a gain only where a = 0 (0.3)
    same_part = 0.6 * (-0.2 * 0.7)
    other_part = 0.4 * (0.1 * 0.3 - 0.3 * 0.7)
    truth = same_part / (same_part + other_part)
    reps, hits = 400, 0
    for _ in range(reps):  # the share's interval as judge_drift makes it (test_the_judge_change_and_the_share)
        _, d, same = _runs(rng)
        share = share_explained(d, same, np.arange(len(d)), seed=int(rng.integers(1 << 30)))
        hits += share.low <= truth <= share.high
    assert hits / reps >= 0.93, hits / reps


def test_no_same_outputs_is_said() -> None:
    df, _, _ = _runs(np.random.default_rng(1), p_same=0.0)
    (rep,) = judge_drift(df, "A", "B")
    assert rep.judge_change is None and rep.share is None
    assert "too few to measure the judge's change" in rep.notes[0]
