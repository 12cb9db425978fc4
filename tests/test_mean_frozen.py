"""``estimate_mean`` gives bit for bit what it gave before the sufficient-statistics refactor.

Oracle: ``tests/mean_frozen.json``, the results of the code at commit d8ccdb9 on the seeded battery
of ``tests/mean_battery.py`` (every float as ``float.hex``; how it was made: ``tests/make_mean_frozen.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mean_battery

FROZEN = json.loads((Path(__file__).resolve().parent / "mean_frozen.json").read_text())["cases"]
CASES = mean_battery.cases()


def test_battery_is_the_frozen_one() -> None:
    assert len(CASES) == len(FROZEN) == mean_battery.N_CASES
    assert [mean_battery.input_digest(c) for c in CASES] == [f["digest"] for f in FROZEN]


@pytest.mark.parametrize("k", range(mean_battery.N_CASES))
def test_bit_identical_to_frozen(k: int) -> None:
    assert mean_battery.encode(mean_battery.run(CASES[k])) == FROZEN[k]["result"], CASES[k]["kind"]
