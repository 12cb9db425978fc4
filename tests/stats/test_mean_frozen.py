"""``estimate_mean`` gives what it gave before the sufficient-statistics refactor.

Oracle: ``tests/stats/mean_frozen.json``, the results of the code at commit d8ccdb9 on the seeded battery
of ``tests/mean_battery.py`` (every float as ``float.hex``; how it was made: ``tests/make_mean_frozen.py``).
Every text, count and flag must be equal; every float equal to 1e-12 relative (NaN to NaN, inf
to inf), an interval's ends to 1e-9. The file was written bit for bit with one numpy and
scipy, but numpy's summation and SIMD kernels differ in the last bits between versions and
CPUs, and scipy's t and normal quantiles moved to other implementations (scipy 1.13 vs 1.17:
interval ends up to 3e-10 apart); the suite must pass with every dependency at its declared
lower bound too (issue 23), so bits are not the contract.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import mean_battery
from closeness import mismatches

FROZEN = json.loads((Path(__file__).resolve().parent / "mean_frozen.json").read_text())["cases"]
CASES = mean_battery.cases()


def test_battery_is_the_frozen_one() -> None:
    assert len(CASES) == len(FROZEN) == mean_battery.N_CASES
    assert [mean_battery.input_digest(c) for c in CASES] == [f["digest"] for f in FROZEN]


def _decoded(v: Any) -> Any:
    """A frozen result with every ``float.hex`` (and ``repr`` of NaN/inf) back as a float."""
    if isinstance(v, dict):
        return {k: _decoded(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_decoded(x) for x in v]
    if isinstance(v, str) and (v.startswith(("0x", "-0x")) or v in ("nan", "inf", "-inf")):
        return float.fromhex(v) if "x" in v else float(v)
    return v


def _rel(path: str) -> float:
    return 1e-9 if path.rsplit(".", 1)[-1].startswith("ci_") else 1e-12  # (quantiles: see the docstring)


def _mismatch(got: Any, want: Any) -> list[tuple[str, Any, Any]]:
    return mismatches(_decoded(got), _decoded(want), rel_at=_rel)


@pytest.mark.parametrize("k", range(mean_battery.N_CASES))
def test_equal_to_frozen(k: int) -> None:
    assert not _mismatch(mean_battery.encode(mean_battery.run(CASES[k])), FROZEN[k]["result"]), CASES[k]["kind"]


def test_the_comparison_sees_a_changed_value() -> None:
    want = FROZEN[0]["result"]
    got = mean_battery.encode(mean_battery.run(CASES[0]))
    assert not _mismatch(got, want)
    key = next(k for k, v in _decoded(got).items() if isinstance(v, float) and math.isfinite(v) and v != 0.0)
    bumped = {**got, key: (float.fromhex(got[key]) * (1 + 1e-6)).hex()}
    assert _mismatch(bumped, want)
    assert not _mismatch({**got, key: (float.fromhex(got[key]) * (1 + 1e-15)).hex()}, want)
