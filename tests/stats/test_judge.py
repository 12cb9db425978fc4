"""Judge agreement, Rogan-Gladen (delta method and bootstrap), PPI/PPI++, corrected difference."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from evaladdon.stats import (
    corrected_difference,
    judge_agreement,
    ppi_mean,
    rogan_gladen,
    rogan_gladen_bootstrap,
)


def test_published_value() -> None:
    r = rogan_gladen(0.5, 0.9, 0.8, n_observed=500)
    assert r.estimate == pytest.approx(0.428571, abs=5e-7)


def test_refuses_chance_judge_and_clips() -> None:
    with pytest.raises(ValueError, match="no better than chance"):
        rogan_gladen(0.5, 0.5, 0.5, n_observed=10)
    r = rogan_gladen(0.05, 0.9, 0.9, n_observed=100)
    assert r.clipped and r.estimate == 0.0 and r.unclipped < 0 and any("clipped" in n for n in r.notes)


def test_agreement_counts_and_kappa() -> None:
    judge = np.array([1, 1, 1, 0, 0, 1, 0, 1, 1, 0])
    human = np.array([1, 1, 0, 0, 0, 1, 1, 1, 1, 0])
    a = judge_agreement(judge, human)
    assert (a.tp, a.fn, a.fp, a.tn) == (5, 1, 1, 3)
    assert a.sensitivity == pytest.approx(5 / 6) and a.specificity == pytest.approx(3 / 4)
    ref = cohens_kappa(np.array([[a.tp, a.fp], [a.fn, a.tn]]))
    assert a.kappa == pytest.approx(ref.kappa)
    with pytest.raises(ValueError, match="both human positives"):
        judge_agreement([1, 0], [1, 1])


def test_delta_method_includes_se_sp_uncertainty() -> None:
    known = rogan_gladen(0.5, 0.9, 0.8, n_observed=2000)
    est = rogan_gladen(0.5, 0.9, 0.8, n_observed=2000, n_pos=50, n_neg=50)
    assert est.se > known.se
    p, j = est.estimate, 0.7
    expected = np.sqrt((0.25 / 2000 + p**2 * 0.09 / 50 + (1 - p) ** 2 * 0.16 / 50) / j**2)
    assert est.se == pytest.approx(expected)


def test_rogan_gladen_coverage_and_naive_undercoverage() -> None:
    """~100 labelled items: the full delta-method interval covers near nominal; the one that
    ignores Var(Se) and Var(Sp) undercovers."""
    rng = np.random.default_rng(23)
    p_true, se_true, sp_true, n_eval, n_lab = 0.6, 0.85, 0.8, 3000, 100
    reps, cover_full, cover_naive, cover_boot = 600, 0, 0, 0
    for i in range(reps):
        truth = rng.random(n_eval) < p_true
        judge = np.where(truth, rng.random(n_eval) < se_true, rng.random(n_eval) > sp_true).astype(float)
        lab = rng.choice(n_eval, n_lab, replace=False)
        agr = judge_agreement(judge[lab], truth[lab].astype(float))
        q = judge.mean()
        full = rogan_gladen(q, agr.sensitivity, agr.specificity, n_observed=n_eval, n_pos=agr.n_pos, n_neg=agr.n_neg)
        naive = rogan_gladen(q, agr.sensitivity, agr.specificity, n_observed=n_eval)
        cover_full += full.ci_low <= p_true <= full.ci_high
        cover_naive += naive.ci_low <= p_true <= naive.ci_high
        if i < 200:
            boot = rogan_gladen_bootstrap(q, n_eval, agr, n_resamples=2000, seed=i)
            cover_boot += boot.ci_low <= p_true <= boot.ci_high
    assert 0.91 <= cover_full / reps <= 0.985
    assert cover_naive / reps < 0.6
    assert 0.88 <= cover_boot / 200 <= 0.99


def test_ppi_hand_computation_and_coverage() -> None:
    y = np.array([1, 0, 1, 1, 0, 1, 0, 1], dtype=float)
    f = np.array([1, 0, 1, 0, 0, 1, 1, 1], dtype=float)
    fu = np.array([1, 1, 0, 1, 0, 1, 1, 0, 1, 1], dtype=float)
    r = ppi_mean(y, f, fu, tuned=False)
    assert r.estimate == pytest.approx(fu.mean() - (f - y).mean())
    assert r.se == pytest.approx(np.sqrt(np.var(f - y, ddof=1) / 8 + np.var(fu, ddof=1) / 10))
    rng = np.random.default_rng(29)
    reps, cover, width_ppi, width_classic = 400, 0, 0.0, 0.0
    for _ in range(reps):
        truth = (rng.random(2100) < 0.55).astype(float)
        judge = np.where(truth == 1, rng.random(2100) < 0.9, rng.random(2100) < 0.15).astype(float)
        rr = ppi_mean(truth[:100], judge[:100], judge[100:])
        cover += rr.ci_low <= 0.55 <= rr.ci_high
        width_ppi += rr.se
        width_classic += rr.classical_se
    assert 0.92 <= cover / reps <= 0.98
    assert width_ppi < width_classic  # the judge's verdicts buy precision


def test_corrected_difference() -> None:
    r = corrected_difference(0.07, 0.02, 0.9, 0.8, n_pos=60, n_neg=40)
    j = 0.7
    d = 0.07 / j
    assert r.delta == pytest.approx(d)
    assert r.se == pytest.approx(np.sqrt(0.02**2 + d**2 * (0.09 / 60 + 0.16 / 40)) / j)
