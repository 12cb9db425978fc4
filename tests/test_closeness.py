"""The tests' one comparison of nested results (``closeness.mismatches``) sees what it must."""

from __future__ import annotations

import math

from closeness import mismatches


def test_floats_agree_within_the_tolerance_and_only_when_finite() -> None:
    assert not mismatches(1.0, 1.0 + 1e-15) and mismatches(1.0, 1.0 + 1e-9)
    assert not mismatches(math.nan, math.nan) and mismatches(math.nan, 0.0)
    assert not mismatches(math.inf, math.inf) and mismatches(math.inf, 1e308) and mismatches(math.inf, -math.inf)
    assert not mismatches(0.0, 1e-13, atol=1e-12) and mismatches(0.0, 1e-13)
    assert not mismatches({"ci_high": 1.0}, {"ci_high": 1.0 + 1e-10}, rel_at=lambda p: 1e-9 if "ci_" in p else 1e-12)


def test_everything_else_must_be_equal_and_of_one_type() -> None:
    assert mismatches(1, 1.0) and mismatches("a", "b") and mismatches([1, 2], [1, 2, 3])
    assert mismatches({"a": 1}, {"b": 1}) == [(" (keys)", ["a"], ["b"])]
    assert not mismatches({"a": 1.0, "b": 2}, {"b": 2, "a": 1.0})
    assert mismatches({"a": 1.0, "b": 2}, {"b": 2, "a": 1.0}, ordered_keys=True)
    assert mismatches({"x": [0.5, {"y": "p"}]}, {"x": [0.5, {"y": "q"}]}) == [(".x[1].y", "p", "q")]
