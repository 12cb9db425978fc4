"""Issue 26 (low): huge values printed as 300-digit numbers; now scientific notation in every
output mode (text, markdown, the HTML report), by one formatter (report.units.number)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from evaladdon.report.units import number

LONG_DIGITS = re.compile(r"\d{20,}")


def test_number() -> None:
    assert number(1.5e300, 3) == "1.50e+300"
    assert number(-4.5e299, 3, signed=True) == "-4.50e+299"
    assert number(123456.0, 3) == "123456.000"
    assert number(2_000_000) == "2000000"  # counts stay whole
    assert number(float("inf")) == "inf" and number(float("nan")) == "nan"


@pytest.fixture
def huge(tmp_path: Path) -> Path:
    path = tmp_path / "huge.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "item", "value"])
        w.writerows(["a", i, 1e300 * (1 + i % 3)] for i in range(20))
        w.writerows(["b", i, 1e300 * (1 + i % 2)] for i in range(20))
    return path


@pytest.mark.parametrize("command", [("summarize",), ("compare", "--baseline", "a")])
@pytest.mark.parametrize("mode", [(), ("--markdown",)])
def test_no_300_digit_numbers(huge: Path, cli, command: tuple[str, ...], mode: tuple[str, ...]) -> None:
    code, out, err = cli(command[0], huge, *command[1:], *mode)
    assert code == 0
    assert not LONG_DIGITS.search(out + err), out
    assert "e+300" in out.replace("\\+", "+")


def test_report_no_300_digit_numbers(huge: Path, cli, tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    code, _, err = cli("report", huge, "-o", page)
    assert code == 0, err
    text = re.sub(r"data:image/png;base64,[^\"']+", "", page.read_text())
    assert not LONG_DIGITS.search(text) and "e+300" in text


def test_json_keeps_the_numbers(huge: Path, cli) -> None:
    code, out, _ = cli("summarize", huge, "--json")
    assert code == 0 and json.loads(out)["results"][0]["mean"] == pytest.approx(1.95e300)
