"""Power, MDE and sample size against statsmodels and seeded simulations; type S/M."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.power import NormalIndPower

from evaladdon.stats import (
    binary_unpaired_variance,
    epoch_item_variance,
    plan,
    power_curve,
    retrodesign,
)

Z = sps.norm.ppf(0.975) + sps.norm.ppf(0.8)


def test_published_unpaired_mde() -> None:
    r = plan(n=198, variance=0.5)
    assert r.mde == pytest.approx(0.140785, abs=5e-7)
    assert r.mde == pytest.approx(Z * math.sqrt(0.5 / 198))


def test_unpaired_matches_normal_ind_power() -> None:
    sigma = 0.45
    for n in (50, 200, 1000):
        ours = plan(n=n, delta=0.08, variance=2 * sigma**2)
        ref = NormalIndPower().power(effect_size=0.08 / sigma, nobs1=n, alpha=0.05, ratio=1.0)
        assert ours.power == pytest.approx(ref, rel=1e-9)
    need = plan(delta=0.08, variance=2 * sigma**2)
    ref_n = NormalIndPower().solve_power(effect_size=0.08 / sigma, alpha=0.05, power=0.8, ratio=1.0)
    assert need.n == math.ceil(ref_n)


def test_paired_one_sample_matches_normal_ind_power_ratio0() -> None:
    sd_d = 0.5
    ours = plan(n=120, delta=0.1, variance=sd_d**2)
    ref = NormalIndPower().power(effect_size=0.1 / sd_d, nobs1=120, alpha=0.05, ratio=0)
    assert ours.power == pytest.approx(ref, rel=1e-9)
    one = plan(n=120, delta=0.1, variance=sd_d**2, sides=1)
    ref1 = NormalIndPower().power(effect_size=0.1 / sd_d, nobs1=120, alpha=0.05, ratio=0, alternative="larger")
    assert one.power == pytest.approx(ref1, rel=1e-9)


def test_psi_designs_closed_forms() -> None:
    psi, n = 0.3, 400
    r = plan(n=n, discordance=psi, test="wald")
    assert r.mde == pytest.approx(Z * math.sqrt((psi - r.mde**2) / n))
    need = plan(delta=0.06, discordance=psi, test="wald")
    assert need.n == math.ceil(Z**2 * (psi - 0.06**2) / 0.06**2)
    mc = plan(delta=0.06, discordance=psi, test="mcnemar-connor-approx")
    za, zb = sps.norm.ppf(0.975), sps.norm.ppf(0.8)
    assert mc.n == math.ceil((za * math.sqrt(psi) + zb * math.sqrt(psi - 0.0036)) ** 2 / 0.0036)
    assert mc.power == pytest.approx(0.8, abs=0.01)


def test_epochs_and_deff_scale_the_variance() -> None:
    assert epoch_item_variance(0.25, 0.4, 1) == pytest.approx(0.25)
    assert epoch_item_variance(0.25, 0.4, 4) == pytest.approx(0.25 * (0.4 + 0.6 / 4))
    base = plan(n=300, variance=0.5)
    clustered = plan(n=300, variance=0.5, deff=2.0)
    assert clustered.mde == pytest.approx(base.mde * math.sqrt(2))
    assert binary_unpaired_variance(0.5, 0.5) == 0.5


def test_refusals() -> None:
    with pytest.raises(ValueError):
        plan(n=100)
    with pytest.raises(ValueError):
        plan(n=100, variance=0.5, discordance=0.2)
    with pytest.raises(ValueError, match="at or below the discordance"):
        plan(delta=0.3, discordance=0.2)
    with pytest.raises(ValueError, match="discordance"):
        plan(delta=0.1, variance=0.3, test="mcnemar")


def test_planned_n_reaches_planned_power_in_simulation_paired_binary() -> None:
    """Simulate paired 0/1 runs with discordance psi and difference delta at the planned n."""
    rng = np.random.default_rng(17)
    psi, delta = 0.25, 0.07
    p01, p10 = (psi + delta) / 2, (psi - delta) / 2
    for test in ("wald", "mcnemar-connor-approx"):
        n = plan(delta=delta, discordance=psi, test=test).n
        reps, rejections = 1500, 0
        counts = rng.multinomial(n, [p10, p01, 1 - psi], size=reps)
        for n10, n01, _ in counts:
            if test.startswith("mcnemar"):  # the exact test (Connor's plan approximates it)
                m = min(n10, n01)
                p = min(1.0, 2 * sps.binom.cdf(m, n10 + n01, 0.5)) if n10 + n01 else 1.0
            else:  # the paired Wald z test the Wald plan is for
                d_hat, psi_hat = (n01 - n10) / n, (n01 + n10) / n
                se = np.sqrt(max(psi_hat - d_hat**2, 1e-12) / n)
                p = 2 * sps.norm.sf(abs(d_hat) / se)
            rejections += p <= 0.05
        assert 0.75 <= rejections / reps <= 0.86, test


def test_planned_n_reaches_power_continuous() -> None:
    rng = np.random.default_rng(18)
    n = plan(delta=0.1, variance=0.36).n
    reps = 1500
    d = rng.normal(0.1, 0.6, size=(reps, n))
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    power = np.mean(np.abs(t) > sps.t.ppf(0.975, n - 1))
    assert 0.76 <= power <= 0.84


def test_retrodesign_against_simulation() -> None:
    rng = np.random.default_rng(19)
    r = retrodesign(0.1, 0.1)
    est = rng.normal(0.1, 0.1, 400_000)
    sig = np.abs(est) > sps.norm.ppf(0.975) * 0.1
    assert r.power == pytest.approx(sig.mean(), abs=0.003)
    assert r.type_s == pytest.approx(np.mean(est[sig] < 0), abs=0.004)
    assert r.type_m == pytest.approx(np.mean(np.abs(est[sig])) / 0.1, rel=0.01)


def test_power_curve_monotone() -> None:
    c = power_curve(200, 0.5)
    assert c.power[0] == pytest.approx(0.05)
    assert all(b >= a for a, b in zip(c.power, c.power[1:], strict=False))
