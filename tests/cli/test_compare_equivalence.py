"""``compare --equivalence M``: the TOST verdict per comparison in text, --json and --markdown,
against statsmodels' ``ttost_paired`` on the same items."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

Cli = Callable[..., tuple[int, str, str]]


def two_runs(path: Path, shift: float, task: str = "reading", n: int = 150, seed: int = 0) -> tuple[Path, Any, Any]:
    """A long table of two models on ``n`` items with scores in [0, 1] (one epoch)."""
    rng = np.random.default_rng(seed)
    a = np.clip(rng.uniform(0.2, 0.8, n), 0, 1)
    b = np.clip(a + shift + rng.normal(0, 0.05, n), 0, 1)
    ids = [f"q{i:03d}" for i in range(n)]
    df = pd.concat([pd.DataFrame({"model": m, "task": task, "id": ids, "score": v}) for m, v in (("base", a), ("cand", b))])
    df.to_csv(path, index=False)
    return path, a, b


@pytest.mark.parametrize("shift, margin", [(0.0, "2pt"), (0.015, "2pt"), (-0.04, "0.03")])
def test_json_verdict_equals_ttost_paired(tmp_path: Path, cli: Cli, shift: float, margin: str) -> None:
    weightstats = pytest.importorskip("statsmodels.stats.weightstats", reason="statsmodels is not installed")
    path, a, b = two_runs(tmp_path / "runs.csv", shift)
    code, out, err = cli("compare", path, "--baseline", "base", "--equivalence", margin, "--json")
    assert code == 0, err
    (rec,) = json.loads(out)["results"]
    m = 0.02 if margin == "2pt" else 0.03
    p, _, _ = weightstats.ttost_paired(b, a, -m, m)
    eq = rec["equivalence"]
    assert eq["margin"] == pytest.approx(m) and eq["margin_as_given"] == margin and eq["alpha"] == pytest.approx(0.05)
    assert eq["p_value"] == pytest.approx(p, rel=1e-7)
    assert eq["verdict"] == ("equivalent" if p < 0.05 else "not shown equivalent")
    assert eq["ci_level"] == pytest.approx(0.90)


def test_text_and_markdown_show_the_verdict_escaped(tmp_path: Path, cli: Cli) -> None:
    path, _, _ = two_runs(tmp_path / "runs.csv", 0.0, task="read|<b>x</b>")
    code, out, _ = cli("compare", path, "--baseline", "base", "--equivalence", "2pt", "--quiet")
    assert code == 0 and "equivalence within ±2pt" in out and "equivalent" in out and "90% CI" in out
    code, md, _ = cli("compare", path, "--baseline", "base", "--equivalence", "2pt", "--markdown")
    assert code == 0 and "| verdict |" in md and "equivalent |" in md
    assert "<b>" not in md and "read\\|\\<b\\>x\\</b\\>" in md


def test_without_the_flag_nothing_changes(tmp_path: Path, cli: Cli) -> None:
    path, _, _ = two_runs(tmp_path / "runs.csv", 0.0)
    code, out, _ = cli("compare", path, "--baseline", "base", "--json")
    assert code == 0 and "equivalence" not in json.loads(out)["results"][0]
    code, out, _ = cli("compare", path, "--baseline", "base")
    assert "TOST" not in out


def test_a_bare_number_of_points_is_refused_with_a_hint(tmp_path: Path, cli: Cli) -> None:
    path, _, _ = two_runs(tmp_path / "runs.csv", 0.0)
    code, _, err = cli("compare", path, "--baseline", "base", "--equivalence", "2")
    assert code == 2 and "did you mean 2pt?" in err and err.count("\n") == 1
    code, _, err = cli("compare", path, "--baseline", "base", "--equivalence", "0pt")
    assert code == 2 and "--equivalence" in err and "> 0" in err


def test_refused_with_a_metric_family(tmp_path: Path, cli: Cli) -> None:
    path, _, _ = two_runs(tmp_path / "runs.csv", 0.0)
    code, _, err = cli("compare", path, "--baseline", "base", "--metric", "f1_macro", "--equivalence", "2pt")
    assert code == 2 and "--equivalence tests a difference of means" in err and err.count("\n") == 1
