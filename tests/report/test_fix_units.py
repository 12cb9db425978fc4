"""Issue 25.1: a comparison is shown in points only when its values lie in [0, 1] (0/1 scores,
proportions, a BLEU logged on [0, 1]); a 1-5 jury score is shown in its own units in every
output mode (text, markdown, JSON, HTML report, MDE sentence, gate line), and the gate's
``--margin`` is read in the units shown.  No real log in the corpus holds a per-item score off
[0, 1] that ``compare`` can pair (HELM's aci_bench jury is not in it), so the files are long
tables built to the reader's documented format (``item``, ``value``, ``model``, ``task``,
``metric``)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest


def _write(path: Path, rows: list[tuple[str, str, str, int, float]]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "task", "metric", "item", "value"])
        w.writerows(rows)
    return path


@pytest.fixture
def jury(tmp_path: Path) -> Path:
    """A 1-5 jury score that drops by exactly 2.4 on average (3 -> 1 on 60 %, 4 -> 1 ... )."""
    rng = np.random.default_rng(7)
    rows = []
    for i in range(40):
        a = int(rng.integers(4, 6))
        b = a - (3 if i % 5 < 2 else 2)
        rows += [("base", "aci", "jury", i, float(a)), ("cand", "aci", "jury", i, float(b))]
    return _write(tmp_path / "jury.csv", rows)


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """One file with a 0/1 accuracy and a 1-5 jury score of the same two runs."""
    rows = []
    for i in range(40):
        rows += [("base", "t", "acc", i, float(i % 2)), ("cand", "t", "acc", i, float(0 if i % 4 == 1 else i % 2))]
        rows += [("base", "t", "jury", i, 4.0 + i % 2), ("cand", "t", "jury", i, 3.0 + i % 2)]
    return _write(tmp_path / "mixed.csv", rows)


def _delta(path: Path, cli, metric: str = "jury") -> float:
    code, out, _ = cli("compare", path, "--baseline", "base", "--json")
    assert code == 0
    return next(r for r in json.loads(out)["results"] if r["metric"] == metric)["delta"]


def test_jury_text_in_own_units(jury: Path, cli) -> None:
    delta = _delta(jury, cli)
    assert delta == pytest.approx(-2.4)
    code, out, _ = cli("compare", jury, "--baseline", "base")
    assert code == 0
    assert "-240" not in out and "points" not in out, out
    assert "aci/jury: -2.400, 95% CI -" in out
    assert "delta and CI in the metric's own units" in out
    line = next(x for x in out.splitlines() if x.startswith("aci/jury"))
    assert " -2.400 " in line and " to " in line


def test_jury_markdown_in_own_units(jury: Path, cli) -> None:
    code, out, _ = cli("compare", jury, "--baseline", "base", "--markdown")
    assert code == 0
    assert "-240" not in out and "points" not in out
    assert "| -2.400 |" in out


def test_jury_json_says_units(jury: Path, cli) -> None:
    code, out, _ = cli("compare", jury, "--baseline", "base", "--json")
    assert json.loads(out)["results"][0]["units"] == "metric"


def test_jury_report_in_own_units(jury: Path, cli, tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    code, _, err = cli("report", jury, "-o", page)
    assert code == 0, err
    text = page.read_text()
    verdict = re.search(r"<p class='verdict'>([^<]*)", text)
    assert verdict is not None
    assert "aci/jury: -2.400, 95% CI" in verdict.group(1) and "points" not in verdict.group(1)
    assert "delta (units)" in text and "delta (pts)" not in text


def test_jury_gate_margin_in_own_units(jury: Path, cli) -> None:
    # a drop of 2.4 on a 1-5 scale: shown with margin 3 (own units) it is no regression
    code, out, _ = cli("compare", jury, "--baseline", "base", "--fail-on-regression", "--margin", "3")
    assert code == 0, out
    assert "gate: no regression shown within m = 3" in out
    code, out, _ = cli("compare", jury, "--baseline", "base", "--fail-on-regression", "--margin", "0.5")
    assert code == 1 and "gate: regression shown, m = 0.5" in out
    code, _, err = cli("compare", jury, "--baseline", "base", "--margin", "2pt")
    assert code == 2 and "points apply to metrics in [0, 1]" in err


def test_mixed_table_each_metric_in_its_units(mixed: Path, cli) -> None:
    code, out, _ = cli("compare", mixed, "--baseline", "base", "--margin", "0.02", "--adjust", "none", "--wide")
    assert code == 0
    acc = next(x for x in out.splitlines() if x.startswith("cand vs base on t/acc"))
    jury_line = next(x for x in out.splitlines() if x.startswith("cand vs base on t/jury"))
    assert "-25.0 points" in acc and "m = 2.0 points (0.02)" in acc
    assert "t/jury: -1.000, 95% CI" in jury_line and "points" not in jury_line
    assert jury_line.endswith("m = 0.02")
    assert "except in the metric's own units for t/jury" in out


def test_unit_interval_metric_in_points(tmp_path: Path, cli) -> None:
    """The documented rule: a BLEU logged on [0, 1] is a proportion of its scale, in points."""
    rows = []
    for i in range(30):
        a = 0.1 + 0.01 * i
        rows += [("base", "mt", "bleu", i, a), ("cand", "mt", "bleu", i, a + 0.2 + (0.01 if i % 2 else -0.01))]
    path = _write(tmp_path / "bleu.csv", rows)
    code, out, _ = cli("compare", path, "--baseline", "base")
    assert code == 0 and "mt/bleu: +20.0 points" in out


@pytest.fixture
def classified(tmp_path: Path) -> Path:
    rng = np.random.default_rng(11)
    path = tmp_path / "cls.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "item", "value", "prediction", "label", "confidence"])
        for i in range(80):
            label = int(rng.integers(0, 2))
            for run, acc in (("A", 0.8), ("B", 0.65)):
                pred = label if rng.uniform() < acc else 1 - label
                w.writerow([run, i, float(pred == label), pred, label, round(float(rng.uniform(0.55, 0.95)), 3)])
    return path


def test_metric_family_units(classified: Path, cli) -> None:
    """``compare --metric``: f1 (in [0, 1]) in points, nll (nats) in its own units; the gate's margin
    shown in the same units."""
    code, out, _ = cli("compare", classified, "--metric", "f1_macro", "--n-boot", "200", "--json")
    delta = json.loads(out)["results"][0]["delta"]
    code, out, _ = cli("compare", classified, "--metric", "f1_macro", "--n-boot", "200", "--margin", "2pt")
    assert code == 0 and "delta and CI in points" in out
    assert f"{100 * delta:+.1f}" in out and "m = 2.0 points (0.02)" in out
    code, out, _ = cli("compare", classified, "--metric", "nll", "--n-boot", "200", "--margin", "0.1")
    assert code == 0 and "in the metric's own units" in out and "(m = 0.1," in out
