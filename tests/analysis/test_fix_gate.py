"""Issue 25.9: the gate agrees with the test it reports, and one multiplicity choice applies to
p, the intervals and the gate alike (:mod:`evaladdon.stats.paired.family`).

Small exact cases: 0/1 scores with all discordant pairs one way (exact McNemar two-sided
p = 2 / 2**k, oracle ``scipy.stats.binomtest``); a family of three candidates whose adjusted p
(oracle ``statsmodels`` ``multipletests``) and intervals (oracle ``scipy.stats.t``) are checked;
and a seeded Monte-Carlo of the default gate's false-fail rate under the null, for one
comparison and family-wise over five candidates."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evaladdon.analysis.compare import Paired, compare_groups, finish_comparisons
from evaladdon.analysis.options import GateOptions
from evaladdon.analysis.results import Alignment


def _discordant(path: Path, k: int, n: int = 30) -> Path:
    """A (baseline) right and B wrong on the first ``k`` items, the rest concordant."""
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "item", "value"])
        for i in range(n):
            a = 1 if i < k or i % 2 else 0
            w.writerows([["base", i, a], ["cand", i, 0 if i < k else a]])
    return path


@pytest.mark.parametrize("k,p,decision,code", [
    (4, 0.125, "inconclusive", 0),
    (5, 0.0625, "inconclusive", 0),  # Tango's (default) interval excludes 0 here; the exact test does not reject
    (6, 0.03125, "regression shown", 1),
])
def test_gate_agrees_with_exact_mcnemar(tmp_path: Path, cli, k: int, p: float, decision: str, code: int) -> None:
    assert stats.binomtest(k, k, 0.5).pvalue == pytest.approx(p)
    path = _discordant(tmp_path / f"d{k}.csv", k)
    got, out, _ = cli("compare", path, "--baseline", "base", "--fail-on-regression", "--json")
    r = json.loads(out)["results"][0]
    assert (r["n10"], r["n01"], r["test"]) == (k, 0, "mcnemar")
    assert r["p_value"] == pytest.approx(p)
    assert r["decision"] == decision and got == code
    if k == 5:
        assert r["ci_high"] < 0  # the interval alone would have failed the build


def _family(path: Path, shifts: list[float], n: int = 60, seed: int = 2) -> Path:
    rng = np.random.default_rng(seed)
    base = rng.normal(0.0, 1.0, n)
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "item", "value"])
        w.writerows(["base", i, round(float(v), 6)] for i, v in enumerate(base))
        for j, s in enumerate(shifts):
            cand = base + s + rng.normal(0.0, 0.5, n)
            w.writerows([f"c{j}", i, round(float(v), 6)] for i, v in enumerate(cand))
    return path


@pytest.mark.parametrize("adjust", ["holm", "bonferroni", "bh", "none"])
def test_family_p_interval_gate_one_choice(tmp_path: Path, cli, adjust: str) -> None:
    from statsmodels.stats.multitest import multipletests

    path = _family(tmp_path / "f.csv", [-0.3, -0.12, 0.0])
    code, out, _ = cli("compare", path, "--baseline", "base", "--adjust", adjust, "--margin", "0", "--json")
    rows = json.loads(out)["results"]
    raw = np.array([r["p_value"] for r in rows])
    k, alpha = len(rows), 0.05
    if adjust == "none":
        level = 0.95
        assert all(r["p_adjusted"] is None for r in rows)
        p_gate = raw
    else:
        sm = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}[adjust]
        reject, p_gate, _, _ = multipletests(raw, alpha=alpha, method=sm)
        assert [r["p_adjusted"] for r in rows] == pytest.approx(list(p_gate))
        level = 1 - max(int(reject.sum()), 1) * alpha / k if adjust == "bh" else 1 - alpha / k
    for r, pg in zip(rows, p_gate, strict=True):
        assert r["level"] == pytest.approx(level)
        half = stats.t.ppf(1 - (1 - level) / 2, r["df"]) * r["se"]
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((r["delta"] - half, r["delta"] + half))
        if r["decision"] == "regression shown":
            assert pg < alpha and r["ci_high"] < 0
        if pg < alpha and r["ci_high"] < 0:
            assert r["decision"] == "regression shown"
    assert rows[0]["decision"] == "regression shown"  # a drop of 0.3 SD on 60 items is shown either way


def test_family_line_states_the_choice(tmp_path: Path, cli) -> None:
    path = _family(tmp_path / "f.csv", [-0.3, -0.12, 0.0])
    code, out, _ = cli("compare", path, "--baseline", "base", "--fail-on-regression")
    out = " ".join(out.split())  # lines are wrapped to the terminal
    assert "p: holm-adjusted over 3 comparisons; intervals simultaneous (Bonferroni), each at 98.3%" in out
    assert "the gate needs the adjusted p and the interval" in out
    assert "98.3% CI" in out


class _Arrays:
    """A pair source of per-item arrays (the pairing loop's protocol), for the Monte-Carlo."""

    def __init__(self, runs: dict[str, np.ndarray]) -> None:
        self.runs = runs

    def keys_of(self, run: str) -> list[tuple[str, str]]:
        return [("t", "acc")]

    def model_of(self, run: str) -> str:
        return run

    def pair(self, a: str, b: str, task: str, metric: str, strict: bool) -> Paired:
        n = len(self.runs[a])
        return Paired(self.runs[a], self.runs[b], None, Alignment(n, 0, 0, 0, (), {}, {}, True))

    def why_unpaired(self, *args: object) -> str:
        return ""


def _fails(runs: dict[str, np.ndarray]) -> bool:
    names = list(runs)
    res, missed = compare_groups(_Arrays(runs), [(names[0], x) for x in names[1:]], {n: n for n in names},
                                 margin=GateOptions(fail_on_regression=True).margin_for)
    return any(r.gate.is_regression for r in finish_comparisons(res, missed, [], "holm"))


@pytest.mark.parametrize("binary,k", [(True, 1), (False, 1), (True, 5), (False, 5)])
def test_default_gate_false_fail_under_null(binary: bool, k: int) -> None:
    """Every candidate equal to the baseline in distribution (paired on items): the default gate
    (margin 0, Holm over the candidates) fails the build at most at the one-sided level."""
    rng = np.random.default_rng(25 + k + binary)
    reps, n, fails = 400, 40, 0
    for _ in range(reps):
        if binary:
            p = rng.uniform(0.2, 0.9, n)
            runs = {name: (rng.uniform(size=n) < p).astype(float) for name in ["A", *(f"B{j}" for j in range(k))]}
        else:
            mu = rng.normal(0.0, 1.0, n)
            runs = {name: mu + rng.normal(0.0, 1.0, n) for name in ["A", *(f"B{j}" for j in range(k))]}
        fails += _fails(runs)
    rate = fails / reps
    assert rate <= 0.065, rate
