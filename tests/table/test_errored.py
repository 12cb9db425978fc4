"""Which rows are errored samples and how ``--errors`` scores them (evaladdon/table/errored.py)."""

from __future__ import annotations

import numpy as np
import pytest

from evaladdon.adapters.inspect.walk import SAMPLE_ERROR, UNSCORED
from evaladdon.adapters.promptfoo import GRADER_ERROR, PROVIDER_ERROR
from evaladdon.errors import EvalAddonError
from evaladdon.table.errored import ERRORED_REASONS, apply_policy, check_policy, count_errors, errored_mask, is_errored
from evaladdon.table.usable import CORPUS_LEVEL, MISSING_FROM_LOG


def test_the_adapters_spellings_are_the_errored_reasons() -> None:
    assert {SAMPLE_ERROR, UNSCORED, PROVIDER_ERROR} == set(ERRORED_REASONS)
    assert is_errored("limit reached (token)") and is_errored("limit reached (working)")
    for other in (GRADER_ERROR, "missing value", "non-numeric value", "non-finite value (inf)", CORPUS_LEVEL,
                  MISSING_FROM_LOG, None, 3):
        assert not is_errored(other), other


def test_count_errors_counts_only_errored_reasons() -> None:
    assert count_errors({"sample error": 3, "non-numeric value": 2, "limit reached (time)": 1}) == 4
    assert count_errors({}) == 0


def _group() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values = np.array([1.0, 0.0, np.nan, np.nan, np.nan, 1.0, np.nan])
    error = np.array([None, None, "sample error", "non-numeric value", "limit reached (token)", None, None], dtype=object)
    return values, error, np.array([e is not None for e in error])


def test_errored_mask() -> None:
    values, error, has_error = _group()
    assert errored_mask(error, has_error).tolist() == [False, False, True, False, True, False, False]


def test_exclude_changes_nothing_and_fail_scores_errored_rows_zero() -> None:
    values, error, has_error = _group()
    same = apply_policy(values, error, has_error, "exclude")
    assert same[0] is values and same[2] is has_error and same[3] == 2
    v, e, h, n = apply_policy(values, error, has_error, "fail")
    assert n == 2
    assert v[[2, 4]].tolist() == [0.0, 0.0] and np.isnan(v[[3, 6]]).all()  # others untouched
    assert e[2] is None and e[4] is None and e[3] == "non-numeric value"
    assert h.tolist() == [False, False, False, True, False, False, False]
    assert np.isnan(values[2]) and error[2] == "sample error"  # the inputs are not written to
    best = apply_policy(values, error, has_error, "fail", fill=1.0)[0]
    assert best[[2, 4]].tolist() == [1.0, 1.0]


def test_fail_leaves_a_metric_off_the_unit_interval_alone() -> None:
    values, error, has_error = _group()
    values = values * 5.0  # a 0-5 score has no worst value to give an errored sample
    values[0] = 5.0
    v, _, h, n = apply_policy(values, error, has_error, "fail")
    assert v is values and h is has_error and n == 2


def test_check_policy() -> None:
    assert check_policy("bounds") == "bounds"
    with pytest.raises(EvalAddonError, match="choose one of exclude, fail, bounds"):
        check_policy("drop")


def test_apply_policy_table_fails_errored_rows_of_unit_groups_only() -> None:
    import pandas as pd

    from evaladdon.table.errored import apply_policy_table

    df = pd.DataFrame({"run": ["a"] * 4 + ["b"] * 3, "task": "t", "metric": ["m"] * 4 + ["score"] * 3,
                       "item": ["1", "2", "3", "4", "1", "2", "3"],
                       "value": [1.0, np.nan, 0.0, np.nan, 4.5, np.nan, 2.0],
                       "error": [None, "sample error", None, "non-numeric value", None, "provider error", None]})
    same, n = apply_policy_table(df, "exclude")
    assert same is df and n == 2
    got, n = apply_policy_table(df, "fail")
    assert n == 2
    assert got["value"].iloc[1] == 0.0 and pd.isna(got["error"].iloc[1])  # a 0/1 metric: failed
    assert np.isnan(got["value"].iloc[3]) and got["error"].iloc[3] == "non-numeric value"  # not errored
    assert np.isnan(got["value"].iloc[5]) and got["error"].iloc[5] == "provider error"  # a 0-5 score: no worst
    assert df["error"].iloc[1] == "sample error"  # the input is not written to
