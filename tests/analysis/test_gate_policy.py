"""The gate policy's verdicts (evaladdon.analysis.gate_policy) on comparisons built from arrays:
seeded Monte-Carlo of the default (non-inferiority, Holm) at and inside the allowed drop, and the
items-needed statement checked by simulating that many items."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaladdon.analysis.gate_policy import GO, INSUFFICIENT, NO_GO, judge
from evaladdon.analysis.policy import parse_policy
from evaladdon.analysis.results import Alignment, RunComparison
from evaladdon.stats import compare_paired

POLICY = parse_policy({"benchmarks": [{"task": "t", "tier": "critical", "max_drop": "5pt"}]}, "p.yaml")


def comparison(a: np.ndarray, b: np.ndarray) -> RunComparison:
    al = Alignment(a.size, 0, 0, 0, (), {}, {}, True)
    return RunComparison("A", "B", "m", "m", "t", "acc", al, compare_paired(a, b), label_a="A", label_b="B")


def pairs(rng: np.random.Generator, reps: int, n: int, psi: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """0/1 pairs with discordance ``psi`` and true difference ``delta`` (B - A)."""
    up, down = (psi + delta) / 2, (psi - delta) / 2
    u = rng.random((reps, n))
    a = (rng.random((reps, n)) < 0.6).astype(float)
    a = np.where(u < up, 0.0, np.where(u < up + down, 1.0, a))
    b = a + np.where(u < up, 1.0, np.where(u < up + down, -1.0, 0.0))
    return a, b


def verdicts(a: np.ndarray, b: np.ndarray) -> list[str]:
    return [judge(POLICY, {"auto": [comparison(a[r], b[r])]}).benchmarks[0].verdict for r in range(a.shape[0])]


def test_mc_go_at_the_allowed_drop_is_rare_binary() -> None:
    """True difference exactly -5 points (the allowed drop), 1,200 0/1 items (McNemar, Tango):
    GO (non-inferiority shown) in at most 2.5 % of 1,000 runs (+ MC error), as the one-sided
    alpha/2 promises."""
    a, b = pairs(np.random.default_rng(11), 1000, 1200, 0.3, -0.05)
    rate = np.mean([v == GO for v in verdicts(a, b)])
    assert rate <= 0.025 + 2 * math.sqrt(0.025 * 0.975 / 1000), rate


def test_mc_go_at_the_allowed_drop_is_rare_continuous() -> None:
    """Scores in [0, 1], true difference exactly -5 points, 300 items (paired t): GO in at most
    2.5 % of 2,000 runs (+ MC error)."""
    rng = np.random.default_rng(14)
    a = rng.uniform(0.2, 0.8, (2000, 300))
    b = a - 0.05 + rng.normal(0, 0.2, (2000, 300))
    rate = np.mean([v == GO for v in verdicts(a, b)])
    assert rate <= 0.025 + 2 * math.sqrt(0.025 * 0.975 / 2000), rate


def test_mc_no_go_without_a_drop_is_rare() -> None:
    """No true difference: NO-GO (a drop beyond 5 points shown) essentially never."""
    a, b = pairs(np.random.default_rng(12), 300, 1200, 0.3, 0.0)
    assert np.mean([v == NO_GO for v in verdicts(a, b)]) <= 0.005


def test_mc_the_items_needed_reach_the_stated_power() -> None:
    """A pilot of 100 items is INSUFFICIENT-EVIDENCE and states the items needed; at that many
    items and no true difference, the gate says GO in at least 80 % of 1,000 runs (less 2 MC SEs)."""
    rng = np.random.default_rng(13)
    a, b = pairs(rng, 1, 100, 0.3, 0.0)
    first = judge(POLICY, {"auto": [comparison(a[0], b[0])]}).benchmarks[0]
    assert first.verdict == INSUFFICIENT and first.n_needed is not None and first.n_needed > 100
    psi = first.comparison.comparison.discordance.n_discordant / 100  # type: ignore[union-attr]
    a, b = pairs(rng, 1000, first.n_needed, psi, 0.0)
    rate = np.mean([v == GO for v in verdicts(a, b)])
    assert rate >= 0.8 - 2 * math.sqrt(0.8 * 0.2 / 1000), (first.n_needed, rate)


def test_a_family_of_benchmarks_is_adjusted_by_holm() -> None:
    """Three benchmarks judged together: their p-values are Holm-adjusted (statsmodels' oracle)."""
    multitest = pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels is not installed")
    policy = parse_policy({"benchmarks": [{"task": "t*", "tier": "critical", "max_drop": "1pt"}]}, "p.yaml")
    rng = np.random.default_rng(3)
    comps = []
    for k, shift in enumerate((-0.15, -0.05, 0.0)):
        a, b = pairs(rng, 1, 300, 0.3, shift)
        comps.append(RunComparison("A", "B", "m", "m", f"t{k}", "acc", Alignment(300, 0, 0, 0, (), {}, {}, True),
                                   compare_paired(a[0], b[0]), label_a="A", label_b="B"))
    got = judge(policy, {"auto": comps})
    raw = [c.comparison.p_value for c in comps]
    expected = multitest.multipletests(raw, method="holm")[1]
    assert [v.comparison.p_adjusted for v in got.benchmarks] == pytest.approx(list(expected))  # type: ignore[union-attr]


def test_an_equivalence_margin_of_zero_is_an_error_naming_the_key() -> None:
    from evaladdon.errors import EvalAddonError

    policy = parse_policy({"benchmarks": [{"task": "t", "tier": "critical", "max_relative_drop": "5%",
                                           "mode": "equivalence"}]}, "p.yaml")
    a = np.zeros(20)
    with pytest.raises(EvalAddonError, match=r"^p\.yaml: benchmarks\[0\]: the allowed change on t/acc is 0"):
        judge(policy, {"auto": [comparison(a, np.r_[np.ones(2), np.zeros(18)])]})
