"""Label budget of a judge correction: oracle a seeded Monte-Carlo of the widths the corrections
(:func:`rogan_gladen`, :func:`ppi_mean`) actually report on simulated judges and labels."""

from __future__ import annotations

import numpy as np
import pytest

from evaladdon.stats.judge import judge_agreement, ppi_mean, rogan_gladen
from evaladdon.stats.judge_budget import label_budget, ppi_width, rogan_gladen_width

SE, SP, P, N = 0.9, 0.85, 0.6, 2000
Q = P * SE + (1 - P) * (1 - SP)


def _achieved(rng: np.random.Generator, n_labels: int, sims: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Widths of the Rogan–Gladen and PPI intervals over ``sims`` simulated evaluations."""
    rg, ppi = [], []
    for _ in range(sims):
        y = (rng.random(N) < P).astype(float)
        f = np.where(y == 1, rng.random(N) < SE, rng.random(N) >= SP).astype(float)
        lab = rng.permutation(N)[:n_labels]
        rest = np.setdiff1d(np.arange(N), lab)
        agr = judge_agreement(f[lab], y[lab])
        r = rogan_gladen(float(f.mean()), agr.sensitivity, agr.specificity, n_observed=N, n_pos=agr.n_pos,
                         n_neg=agr.n_neg)
        rg.append(r.ci_high - r.ci_low)
        pp = ppi_mean(y[lab], f[lab], f[rest], tuned=False)
        ppi.append(pp.ci_high - pp.ci_low)
    return np.array(rg), np.array(ppi)


def test_planned_widths_match_the_reported_intervals() -> None:
    rg_plan, ppi_plan = label_budget(SE, SP, Q, n_judged=N, width=0.10)
    assert rg_plan.true_rate == pytest.approx(P)
    assert rg_plan.labels_needed is not None and ppi_plan.labels_needed is not None
    # the smallest n: the planned width at n meets the target, at n - 1 it does not
    for fn, n in ((rogan_gladen_width, rg_plan.labels_needed), (ppi_width, ppi_plan.labels_needed)):
        assert fn(n, SE, SP, Q, N) <= 0.10 < fn(n - 1, SE, SP, Q, N)
    rng = np.random.default_rng(20261202)
    rg_w, _ = _achieved(rng, rg_plan.labels_needed)
    _, ppi_w = _achieved(rng, ppi_plan.labels_needed)
    # MC: the reported widths average the target (within 2 %) at the planned budgets
    assert rg_w.mean() == pytest.approx(0.10, rel=0.02), rg_w.mean()
    assert ppi_w.mean() == pytest.approx(0.10, rel=0.02), ppi_w.mean()


def test_width_bought_by_given_labels() -> None:
    rg_plan, ppi_plan = label_budget(SE, SP, Q, n_judged=N, labels=150)
    rg_w, ppi_w = _achieved(np.random.default_rng(7), 150)
    assert rg_w.mean() == pytest.approx(rg_plan.width_at_labels, rel=0.03)
    assert ppi_w.mean() == pytest.approx(ppi_plan.width_at_labels, rel=0.03)


def test_unreachable_and_unlimited() -> None:
    rg_plan, ppi_plan = label_budget(SE, SP, Q, n_judged=200, width=0.05)
    assert rg_plan.labels_needed is None and "no number of labels" in rg_plan.notes[0]
    assert rg_plan.floor_width > 0.05 and ppi_plan.labels_needed is None
    rg_inf, ppi_inf = label_budget(SE, SP, Q, width=0.05)
    a = P * SE * (1 - SE) + (1 - P) * SP * (1 - SP)
    z = 1.959963984540054
    assert rg_inf.labels_needed == int(np.ceil(a * (2 * z / 0.05) ** 2 / (SE + SP - 1) ** 2))
    var_r = P * (1 - SE) + (1 - P) * (1 - SP) - (P - Q) ** 2
    assert ppi_inf.labels_needed == int(np.ceil(var_r * (2 * z / 0.05) ** 2))


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="no better than chance"):
        label_budget(0.5, 0.4, 0.5, width=0.1)
    with pytest.raises(ValueError, match="impossible"):
        label_budget(0.9, 0.9, 0.95, width=0.1)
    with pytest.raises(ValueError, match="target width"):
        label_budget(0.9, 0.9, 0.5, width=0.0)
