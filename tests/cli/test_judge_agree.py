"""``evaladdon judge agree FILES...``: agreement between judges (and humans) on the same items."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

Cli = Callable[..., tuple[int, str, str]]


def _write(tmp_path: Path, seed: int = 0, n: int = 60) -> tuple[list[Path], Path, np.ndarray]:
    """Three judges' 1-5 grades of n items (judge3 misses the first five) and human grades."""
    rng = np.random.default_rng(seed)
    z = rng.integers(1, 6, n)
    grades = np.full((n, 4), np.nan)
    files = []
    for j in range(3):
        v = np.where(rng.random(n) < 0.6, z, rng.integers(1, 6, n))
        rows = [(i, v[i]) for i in range(n) if not (j == 2 and i < 5)]
        for i, x in rows:
            grades[i, j] = x
        f = tmp_path / f"judge{j + 1}.csv"
        f.write_text("item,value,topic\n" + "".join(f"q{i},{x},t{i % 6}\n" for i, x in rows))
        files.append(f)
    h = np.where(rng.random(n) < 0.8, z, rng.integers(1, 6, n))
    grades[:, 3] = h
    labels = tmp_path / "human.csv"
    labels.write_text("item,label\n" + "".join(f"q{i},{h[i]}\n" for i in range(n)))
    return files, labels, grades


def test_agree_json_matches_the_oracles(tmp_path: Path, cli: Cli) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    files, labels, grades = _write(tmp_path)
    code, out, err = cli("judge", "agree", *files, "--labels", labels, "--n-boot", "200", "--json")
    assert code == 0, err
    res = json.loads(out)["results"]
    by = {(r["coefficient"], tuple(r["raters"])): r for r in res}
    both = ~np.isnan(grades[:, 0]) & ~np.isnan(grades[:, 2])
    c13 = by[("cohen_kappa", ("judge1", "judge3"))]
    assert c13["n_items"] == 55 and c13["estimate"] == pytest.approx(
        metrics.cohen_kappa_score(grades[both, 0], grades[both, 2]), abs=1e-12)
    w1h = by[("weighted_kappa", ("judge1", "human"))]
    assert w1h["estimate"] == pytest.approx(metrics.cohen_kappa_score(grades[:, 0], grades[:, 3], weights="quadratic"),
                                            abs=1e-12)
    assert w1h["ci_low"] < w1h["estimate"] < w1h["ci_high"]
    fleiss = by[("fleiss_kappa", ("judge1", "judge2", "judge3", "human"))]
    assert fleiss["n_items"] == 55  # items every rater scored
    kr = pytest.importorskip("krippendorff")
    alpha = by[("alpha_ordinal", ("judge1", "judge2", "judge3", "human"))]
    assert alpha["estimate"] == pytest.approx(kr.alpha(reliability_data=grades.T, level_of_measurement="ordinal"),
                                              abs=1e-10)
    assert all(r["interval"] == "BCa cluster bootstrap over items" for r in res)


def test_agree_clusters_text_and_markdown(tmp_path: Path, cli: Cli) -> None:
    files, _, _ = _write(tmp_path)
    code, out, _ = cli("judge", "agree", *files[:2], "--cluster", "topic", "--n-boot", "200", "--json")
    res = json.loads(out)["results"]
    assert code == 0 and all(r["n_clusters"] == 6 for r in res)
    assert res[0]["interval"] == "BCa cluster bootstrap over clusters"
    code, text, err = cli("judge", "agree", *files, "--n-boot", "200")
    assert code == 0 and "Cohen's kappa" in text and "Krippendorff's alpha (interval)" in text
    assert "judge1 vs judge2" in text and "3 raters" in err
    code, md, _ = cli("judge", "agree", *files, "--n-boot", "0", "--markdown")
    assert code == 0 and md.startswith("| coefficient | raters |") and "Gwet's AC1" in md


def test_agree_real_inspect_runs(real_logs: Path, cli: Cli) -> None:
    """Three models' match verdicts on the same 100 items (agreement of their correctness)."""
    code, out, err = cli("judge", "agree", real_logs / "inspect_ai_logsets" / "set", "--n-boot", "200", "--json")
    assert code == 0, err
    res = json.loads(out)["results"]
    assert len({tuple(r["raters"]) for r in res if len(r["raters"]) == 2}) == 3
    assert all(r["n_items"] == 100 for r in res)


def test_agree_errors_and_the_plain_judge_is_unchanged(tmp_path: Path, cli: Cli, real_logs: Path) -> None:
    files, labels, _ = _write(tmp_path)
    code, _, err = cli("judge", "agree", files[0])
    assert code == 2 and "at least two raters; found 1" in err
    code, _, err = cli("judge", "agree", files[0], files[1], "--method", "ppi")
    assert code == 2 and "--method applies to the judge correction" in err
    code, _, err = cli("judge", "agree", real_logs / "inspect_ai_logsets" / "set2")
    assert code == 2 and "one verdict per item" in err and "Traceback" not in err
    code, _, err = cli("judge", files[0])
    assert code == 2 and err == "evaladdon: error: the following arguments are required: --labels\n"
    code, _, err = cli("judge", files[0], "--labels", labels, "--cluster", "topic")
    assert code == 2 and "--cluster and --n-boot apply to judge agree" in err
