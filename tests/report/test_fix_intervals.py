"""Issue 25.14: one interval convention in every output mode, ``-0.660 to -0.589`` (never
``-0.660--0.589`` or ``-0.660,-0.589``), written by one formatter (report.units.interval)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from evaladdon.report.units import interval

OLD_FORMS = re.compile(r"\d-[-\d]|\d,[-+\d]")  # 0.398-0.624, -0.660--0.589, +0.2,+16.5


def test_formatter() -> None:
    assert interval(-0.66, -0.589) == "-0.660 to -0.589"
    assert interval(-0.0123, 0.0456, points=True) == "-1.2 to +4.6"
    assert interval(-2.4, -1.5, points=False) == "-2.400 to -1.500"
    assert interval(1, 3) == "1 to 3"
    assert interval(None, None) == "-"


@pytest.fixture
def negative(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    path = tmp_path / "nll.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "item", "value"])
        w.writerows(["m", i, round(-0.62 + rng.normal(0, 0.12), 4)] for i in range(50))
    return path


@pytest.mark.parametrize("mode", [(), ("--markdown",)])
def test_summarize_negative_interval(negative: Path, cli, mode: tuple[str, ...]) -> None:
    code, out, _ = cli("summarize", negative, *mode)
    assert code == 0
    assert "-0.636 to -0.573" in out and "-0.636--0.573" not in out


@pytest.mark.parametrize("mode", [(), ("--markdown",)])
def test_compare_real_logs(real_logs: Path, cli, mode: tuple[str, ...]) -> None:
    code, out, _ = cli("compare", real_logs / "inspect_ai_logsets" / "set2", "--all-pairs", "--adjust", "none", *mode)
    assert code == 0
    plus = "\\+" if mode else "+"  # markdown escapes a leading +
    assert f"-12.6 to {plus}32.6" in out and "-12.6," not in out
    rows = [x for x in out.splitlines() if "popularity/match" in x and " vs " not in x]  # table rows, not verdicts
    assert rows and not any(OLD_FORMS.search(r.split("popularity/match", 1)[1]) for r in rows), rows


def test_summarize_real_logs(real_logs: Path, cli) -> None:
    code, out, _ = cli("summarize", real_logs / "inspect_ai_logsets" / "set2")
    assert code == 0
    rows = [x for x in out.splitlines() if "popularity/match" in x]
    assert rows and all(re.search(r"\d\.\d{3} to \d\.\d{3}", r) for r in rows), rows


def test_rank_win_rate_real_logs(real_logs: Path, cli) -> None:
    code, out, _ = cli("rank", real_logs / "arena_hard_battles")
    assert code == 0
    assert "0.835 to 0.933" in out and "0.835-0.933" not in out
    assert "1 to 2" in out
