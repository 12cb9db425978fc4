"""Power, minimum detectable effect (MDE) and sample size for comparing two runs.

Normal approximation throughout (Card et al. 2020, "With Little Power Comes Great
Responsibility", EMNLP; Miller 2024, section 5).  ``z = z_{1-a/2} + z_{1-b}`` two-sided
(``z_{1-a}`` one-sided); ``V`` is the variance of ONE item's contribution to the
difference (so ``Var(delta_hat) = V/n``):

- unpaired, two independent arms of ``n`` items each: ``V = sigma_A^2 + sigma_B^2``
  (0/1 scores: ``p_A(1-p_A) + p_B(1-p_B)``);
- paired with a known ``Var(d)``: ``V = Var(d)``;
- paired 0/1 from the discordance rate ``psi``: ``V = psi - delta^2`` (depends on delta, so
  ``MDE = z sqrt(psi / (n + z^2))`` and ``n = z^2 (psi - delta^2)/delta^2``);
- exact-McNemar planning (Connor 1987, Biometrics 43:207):
  ``n = (z_{1-a/2} sqrt(psi) + z_{1-b} sqrt(psi - delta^2))^2 / delta^2``;
- epochs: per-item variance ``omega^2 + sigma_w^2/K`` = ``sigma^2 (rho + (1 - rho)/K)`` for
  a single-run variance ``sigma^2`` and ICC ``rho``;
- clusters: ``V`` times the design effect ``deff``.

``MDE = z sqrt(V/n)``, ``n = ceil(z^2 V / delta^2)``, and power at ``(n, delta)`` counts
both rejection tails, ``Phi(delta/se - z_{1-a/2}) + Phi(-delta/se - z_{1-a/2})``, as
statsmodels ``NormalIndPower`` does (the oracle in the tests, with seeded simulations).

Type S / type M (Gelman & Carlin 2014, "Beyond Power Calculations", Perspect Psychol Sci
9:641): for an estimate ``N(D, s^2)`` tested two-sided at ``a``, the chance a significant
estimate has the wrong sign, and the expected exaggeration ``E|est| / D`` given
significance, in closed form (truncated normal moments; Lu, Qiu & Deng 2019).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import optimize
from scipy import stats as sps

from evaladdon.stats._result import Result

PlanTest = Literal["wald", "mcnemar"]


@dataclass(frozen=True)
class PowerPlan(Result):
    """A power calculation: what was given and what follows.

    ``variance`` is the per-item variance of the difference used (for ``psi`` designs at
    the effect in question, ``psi - delta^2``), after epochs and ``deff``.
    """

    n: int | None
    mde: float | None
    delta: float | None
    power: float | None
    variance: float | None
    alpha: float
    target_power: float
    sides: int
    deff: float
    design: str
    test: str
    discordance: float | None = None


def _z_alpha(alpha: float, sides: int) -> float:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if sides not in (1, 2):
        raise ValueError(f"sides must be 1 or 2, got {sides}")
    return float(sps.norm.ppf(1 - alpha / sides))


def _z_beta(power: float) -> float:
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power}")
    return float(sps.norm.ppf(power))


def power_normal(delta: float, se: float, alpha: float = 0.05, sides: int = 2) -> float:
    """Power of a z test of ``delta`` with standard error ``se`` (both tails when two-sided)."""
    za = _z_alpha(alpha, sides)
    if se <= 0:
        return 1.0 if delta != 0 else alpha
    shift = abs(delta) / se
    p = float(sps.norm.cdf(shift - za))
    if sides == 2:
        p += float(sps.norm.cdf(-shift - za))
    return p


def epoch_item_variance(single_run_variance: float, icc: float, epochs: int) -> float:
    """Per-item variance of a K-epoch item mean: ``sigma^2 (rho + (1 - rho)/K)``."""
    if not 0 <= icc <= 1:
        raise ValueError(f"the ICC must be in [0, 1], got {icc}")
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    return single_run_variance * (icc + (1.0 - icc) / epochs)


def binary_unpaired_variance(p_a: float, p_b: float) -> float:
    """``p_A(1-p_A) + p_B(1-p_B)``: two independent arms of 0/1 scores."""
    for p in (p_a, p_b):
        if not 0 <= p <= 1:
            raise ValueError(f"proportions must be in [0, 1], got {p}")
    return p_a * (1 - p_a) + p_b * (1 - p_b)


def plan(
    *,
    n: int | None = None,
    delta: float | None = None,
    variance: float | None = None,
    discordance: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    sides: int = 2,
    deff: float = 1.0,
    test: PlanTest = "wald",
    design: str = "",
) -> PowerPlan:
    """MDE at ``n``, required ``n`` for ``delta``, and achieved power (see module doc).

    Give ``variance`` (per-item variance of the difference, before ``deff``) or
    ``discordance`` (psi, paired 0/1).  Give ``n`` (then the MDE, and the power at
    ``delta`` if given) or ``delta`` (then the required n and its power).
    """
    za, zb = _z_alpha(alpha, sides), _z_beta(power)
    z = za + zb
    if deff <= 0:
        raise ValueError(f"deff must be positive, got {deff}")
    if (variance is None) == (discordance is None):
        raise ValueError("give exactly one of variance (sd^2) or discordance (psi)")
    if n is None and delta is None:
        raise ValueError("give n (for the MDE) or delta (for the sample size), or both")
    if n is not None and n < 2:
        raise ValueError(f"n must be at least 2, got {n}")
    if delta is not None and delta == 0:
        raise ValueError("delta must be non-zero")
    if variance is not None and variance <= 0:
        raise ValueError(f"variance must be positive, got {variance}")
    if discordance is not None and not 0 < discordance <= 1:
        raise ValueError(f"the discordance rate must be in (0, 1], got {discordance}")
    if test == "mcnemar" and discordance is None:
        raise ValueError("the McNemar planning formula needs the discordance rate psi")
    if test not in ("wald", "mcnemar"):
        raise ValueError(f"unknown test {test!r}; choose wald or mcnemar")
    d_abs = abs(delta) if delta is not None else None
    if discordance is not None and d_abs is not None and d_abs >= discordance:
        raise ValueError(f"|delta| = {d_abs} must be below the discordance rate psi = {discordance}")

    def var_at(d: float) -> float:
        if variance is not None:
            return variance * deff
        assert discordance is not None
        return (discordance - d * d) * deff

    def power_at(n_: float, d: float) -> float:
        if test == "mcnemar":
            assert discordance is not None
            zb_ = (d * math.sqrt(n_ / deff) - za * math.sqrt(discordance)) / math.sqrt(discordance - d * d)
            return float(sps.norm.cdf(zb_))
        return power_normal(d, math.sqrt(var_at(d) / n_), alpha, sides)

    mde = n_req = achieved = None
    if n is not None:
        if test == "mcnemar":
            assert discordance is not None
            f = lambda d: power_at(n, d) - power  # noqa: E731
            mde = float(optimize.brentq(f, 1e-12, discordance * (1 - 1e-12))) if f(discordance * (1 - 1e-12)) > 0 else None
        elif variance is not None:
            mde = z * math.sqrt(variance * deff / n)
        else:
            assert discordance is not None
            mde = z * math.sqrt(discordance * deff / (n + z * z * deff))
    if d_abs is not None:
        if n is None:
            if test == "mcnemar":
                assert discordance is not None
                raw = (za * math.sqrt(discordance) + zb * math.sqrt(discordance - d_abs**2)) ** 2 / d_abs**2 * deff
            else:
                raw = z * z * var_at(d_abs) / d_abs**2
            n_req = max(2, math.ceil(raw - 1e-9))
            achieved = power_at(n_req, d_abs)
        else:
            achieved = power_at(n, d_abs)
    used_var = var_at(d_abs) if d_abs is not None else (var_at(0.0) if variance is not None else None)
    return PowerPlan(
        n=int(n) if n is not None else n_req,
        mde=mde,
        delta=delta,
        power=achieved,
        variance=used_var,
        alpha=alpha,
        target_power=power,
        sides=sides,
        deff=deff,
        design=design or ("paired 0/1 (psi)" if discordance is not None else "given variance"),
        test=test,
        discordance=discordance,
    )


@dataclass(frozen=True)
class PowerCurve(Result):
    delta: tuple[float, ...]
    power: tuple[float, ...]
    n: int
    se: float
    alpha: float


def power_curve(
    n: int, variance: float, deltas: npt.ArrayLike | None = None, alpha: float = 0.05, sides: int = 2, deff: float = 1.0
) -> PowerCurve:
    """Power against the true difference at ``n`` items, for plotting."""
    se = math.sqrt(variance * deff / n)
    if deltas is None:
        deltas = np.linspace(0.0, 4.5 * se, 46)
    d = np.asarray(deltas, dtype=float)
    za = _z_alpha(alpha, sides)
    pw = sps.norm.cdf(np.abs(d) / se - za) + (sps.norm.cdf(-np.abs(d) / se - za) if sides == 2 else 0.0)
    return PowerCurve(tuple(d.tolist()), tuple(np.asarray(pw).tolist()), int(n), se, alpha)


@dataclass(frozen=True)
class Retrodesign(Result):
    """Gelman & Carlin's design analysis of a comparison with true effect ``effect``."""

    effect: float
    se: float
    alpha: float
    power: float
    type_s: float
    type_m: float


def retrodesign(effect: float, se: float, alpha: float = 0.05) -> Retrodesign:
    """Power, type S (wrong sign) and type M (exaggeration) for ``N(effect, se^2)``."""
    if se <= 0:
        raise ValueError(f"se must be positive, got {se}")
    if effect == 0:
        raise ValueError("the true effect must be non-zero for type S/M")
    z = _z_alpha(alpha, 2)
    lam = abs(effect) / se
    a, b = z - lam, -z - lam  # standardised rejection thresholds around the true effect
    p_hi, p_lo = float(sps.norm.sf(a)), float(sps.norm.cdf(b))
    pw = p_hi + p_lo
    # E[|est| ; significant] / se for est/se ~ N(lam, 1)
    e_abs = lam * p_hi + float(sps.norm.pdf(a)) - lam * p_lo + float(sps.norm.pdf(b))
    return Retrodesign(effect, se, alpha, pw, p_lo / pw, e_abs / pw / lam)
