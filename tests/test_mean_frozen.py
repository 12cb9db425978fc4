"""``estimate_mean`` gives what it gave before the sufficient-statistics refactor.

Oracle: ``tests/mean_frozen.json``, the results of the code at commit d8ccdb9 on the seeded battery
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

FROZEN = json.loads((Path(__file__).resolve().parent / "mean_frozen.json").read_text())["cases"]
CASES = mean_battery.cases()


def test_battery_is_the_frozen_one() -> None:
    assert len(CASES) == len(FROZEN) == mean_battery.N_CASES
    assert [mean_battery.input_digest(c) for c in CASES] == [f["digest"] for f in FROZEN]


def _float(v: Any) -> float | None:
    """The float a frozen value encodes (``float.hex``, or ``repr`` of NaN/inf), else None."""
    if not isinstance(v, str):
        return None
    try:
        return float.fromhex(v) if v.startswith(("0x", "-0x")) else (float(v) if v in ("nan", "inf", "-inf") else None)
    except ValueError:
        return None


def _mismatch(got: Any, want: Any, where: str = "") -> str | None:
    """Where ``got`` and ``want`` differ (floats to 1e-12 relative), or None."""
    g, w = _float(got), _float(want)
    if g is not None and w is not None:
        rel = 1e-9 if where.rsplit(".", 1)[-1].startswith("ci_") else 1e-12  # (quantiles: see the docstring)
        same = (math.isnan(g) and math.isnan(w)) or g == w or abs(g - w) <= rel * max(abs(g), abs(w))
        return None if same else f"{where}: {g!r} != {w!r}"
    if isinstance(got, dict) and isinstance(want, dict):
        if list(got) != list(want):
            return f"{where}: keys {list(got)} != {list(want)}"
        return next((m for k in got if (m := _mismatch(got[k], want[k], f"{where}.{k}"))), None)
    if isinstance(got, list) and isinstance(want, list):
        if len(got) != len(want):
            return f"{where}: {len(got)} != {len(want)} entries"
        return next((m for i, (a, b) in enumerate(zip(got, want)) if (m := _mismatch(a, b, f"{where}[{i}]"))), None)
    return None if got == want else f"{where}: {got!r} != {want!r}"


@pytest.mark.parametrize("k", range(mean_battery.N_CASES))
def test_equal_to_frozen(k: int) -> None:
    assert _mismatch(mean_battery.encode(mean_battery.run(CASES[k])), FROZEN[k]["result"]) is None, CASES[k]["kind"]


def test_the_comparison_sees_a_changed_value() -> None:
    want = FROZEN[0]["result"]
    got = mean_battery.encode(mean_battery.run(CASES[0]))
    assert _mismatch(got, want) is None
    key = next(k for k, v in got.items() if _float(v) not in (None, 0.0) and math.isfinite(_float(v) or 0.0))
    bumped = {**got, key: (float.fromhex(got[key]) * (1 + 1e-9)).hex()}
    assert _mismatch(bumped, want) is not None
    assert _mismatch({**got, key: (float.fromhex(got[key]) * (1 + 1e-15)).hex()}, want) is None
