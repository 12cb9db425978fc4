"""The decision glue: validation rows choose, test rows are scored; the numbers equal the stats
functions on the same rows; test rows never move the threshold; shared items are refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaladdon.analysis.decisions import DecisionOptions, decide, split_validation
from evaladdon.errors import EvalAddonError
from evaladdon.stats.families.threshold import choose_threshold, evaluate_threshold, parse_rule
from evaladdon.table import finalize


def detector_table(seed: int = 0, n: int = 300, runs: tuple[str, ...] = ("A", "B"), same_items: bool = False,
                   errors: int = 0) -> pd.DataFrame:
    """Per run a validation and a test split (other items unless ``same_items``), 30 topics."""
    rng = np.random.default_rng(seed)
    rows = []
    for run_i, run in enumerate(runs):
        for split, off in (("validation", 0), ("test", 0 if same_items else 10_000)):
            y = (rng.random(n) < 0.3).astype(int)
            s = 1 / (1 + np.exp(-(rng.normal(y * (1.2 + 0.4 * run_i), 1) - 1)))
            rows.append(pd.DataFrame({
                "run": run, "source": f"{run}.csv", "harness": "table", "task": "t", "model": run, "metric": "det",
                "item": [f"q{i + off}" for i in range(n)], "epoch": 1, "value": (y == (s > 0.5)).astype(float),
                "raw": "x", "cluster": [f"c{i % 30}" for i in range(n)], "item_hash": None, "error": None,
                "score": s, "label": y.astype(str), "meta.split": split}))
    df = pd.concat(rows, ignore_index=True)
    if errors:
        df.loc[df.index[-errors:], ["value", "error"]] = [np.nan, "sample error"]
    return finalize(df)


def test_numbers_equal_the_stats_functions_on_the_split_rows() -> None:
    df = detector_table(errors=4)
    rule = parse_rule("cost:FP=1,FN=5")
    res = decide(df, DecisionOptions(rule=rule, validation="split=validation", prevalence=0.01))
    assert [r.run for r in res] == ["A", "B"]
    for r in res:
        mine = df[df["run"] == r.run]
        val = mine[mine["meta.split"] == "validation"]
        test = mine[(mine["meta.split"] == "test") & mine["error"].isna()]
        t = choose_threshold(val["score"], val["label"].astype(float), rule).threshold
        ev = evaluate_threshold(test["score"], test["label"].astype(float), t, test["cluster"].to_numpy(),
                                fp_cost=1, fn_cost=5, prevalence=0.01)
        assert r.threshold == t and r.counts == ev.counts
        for e in r.estimates:
            ref = ev.get(e.name)
            assert (e.estimate, e.ci_low, e.ci_high, e.n_clusters) == (ref.estimate, ref.ci_low, ref.ci_high, 30)
    assert res[1].dropped == {"sample error": 4} and not res[0].dropped
    assert res[0].validation is not None and res[0].validation["n_items"] == 300


def test_test_rows_never_move_the_threshold() -> None:
    """Fitting on test rows would fail here: scrambling every test score and label leaves the
    threshold (and the validation record) unchanged."""
    df = detector_table(seed=3)
    opts = DecisionOptions(rule=parse_rule("precision@recall=0.8"), validation="split=validation")
    before = decide(df, opts)
    test = df["meta.split"] == "test"
    rng = np.random.default_rng(9)
    df2 = df.copy()
    df2.loc[test, "score"] = rng.random(int(test.sum()))
    df2.loc[test, "label"] = rng.integers(0, 2, int(test.sum())).astype(str)
    after = decide(df2, opts)
    assert [r.threshold for r in before] == [r.threshold for r in after]
    assert [r.validation for r in before] == [r.validation for r in after]
    assert [r.counts for r in before] != [r.counts for r in after]


def test_shared_items_are_refused() -> None:
    df = detector_table(same_items=True)
    with pytest.raises(EvalAddonError, match="share 300 of 300 item"):
        decide(df, DecisionOptions(rule=parse_rule("tpr@fpr=0.05"), validation="split=validation"))
    # a validation *run* of the same items: refused too
    with pytest.raises(EvalAddonError, match="share"):
        decide(detector_table(), DecisionOptions(rule=parse_rule("tpr@fpr=0.05"), validation="A"))
    # item_hash, when both sides log one, decides what "the same item" is
    df = detector_table(same_items=True)
    df["item_hash"] = np.where(df["meta.split"] == "test", "t", "v") + df["item"]
    res = decide(df, DecisionOptions(rule=parse_rule("tpr@fpr=0.05"), validation="split=validation"))
    assert len(res) == 2


def test_validation_run_and_refusals() -> None:
    df = detector_table(runs=("val", "A"))
    df = df[((df["run"] == "val") & (df["meta.split"] == "validation")) | ((df["run"] == "A")
                                                                           & (df["meta.split"] == "test"))]
    val, test, how = split_validation(df, "val")
    assert set(val["run"]) == {"val"} and set(test["run"]) == {"A"} and how == "run val"
    (r,) = decide(df, DecisionOptions(rule=parse_rule("tpr@fpr=0.05"), validation="val"))
    assert r.run == "A" and r.validation is not None and r.validation["fpr"] <= 0.05
    with pytest.raises(EvalAddonError, match="--validation"):
        decide(df, DecisionOptions(rule=parse_rule("tpr@fpr=0.05"), validation="nosuch"))
    with pytest.raises(EvalAddonError, match="needs --validation"):
        decide(df, DecisionOptions(rule=parse_rule("tpr@fpr=0.05")))
    with pytest.raises(EvalAddonError, match="no row"):
        split_validation(df, "split=nope")


def test_prevalence_of_given_predictions() -> None:
    df = detector_table()
    df = df[df["meta.split"] == "test"].copy()
    df["prediction"] = (df["score"] >= 0.5).astype(int).astype(str)
    res = decide(df, DecisionOptions(prevalence=0.0005))
    for r in res:
        mine = df[df["run"] == r.run]
        ev = evaluate_threshold(mine["prediction"].astype(float), mine["label"].astype(float), 1.0,
                                mine["cluster"].to_numpy(), prevalence=0.0005)
        assert r.threshold is None and r.counts == ev.counts
        assert r.estimates[-2].name == "precision@prevalence"
        assert r.estimates[-2].estimate == ev.get("precision@prevalence").estimate
        assert any("differs" in n for n in r.notes)
