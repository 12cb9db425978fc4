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
- paired 0/1, ``test="mcnemar-exact"`` (the default for psi designs: the test ``compare``
  runs by default): the exact power of McNemar's exact conditional test,
  ``sum_m Binom(m; n, psi) P(reject | m)``, where given ``m`` discordant pairs the count in
  favour of the better run is ``Binom(m, (psi + |delta|)/(2 psi))`` and the test rejects when
  ``2 Binom.cdf(min(n10, n01); m, 1/2) <= alpha`` (Suissa & Shuster 1991, Stat Med
  10:543); ``n`` is the smallest reaching the target (searched where the power, a sawtooth
  in n, crosses it); the MDE solves exact power = target for ``|delta| <= psi``;
- ``test="mcnemar-connor-approx"``: Connor's (1987, Biometrics 43:207) normal
  approximation ``n = (z_{1-a/2} sqrt(psi) + z_{1-b} sqrt(psi - delta^2))^2 / delta^2``,
  which falls short of the target for the exact test (0.76-0.79 for 0.80);
- for paired 0/1 data ``|delta| <= psi``: an MDE above psi is not reported (``mde`` None and
  a note "no effect of this design is detectable at this power");
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

import functools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from evaladdon.stats._base.checks import finite, whole
from evaladdon.stats._base.dist import binom_cdf, binom_pmf, binom_ppf, norm_cdf, norm_pdf, norm_ppf, norm_sf
from evaladdon.stats._base.result import Result

__all__ = [
    "EXACT_MAX", "EXACT_SCAN_MAX", "MAX_N", "NOT_DETECTABLE", "PLAN_TESTS", "PlanTest", "PowerCurve", "PowerPlan",
    "Retrodesign", "binary_unpaired_variance", "epoch_item_variance", "mcnemar_exact_power", "plan", "power_curve",
    "power_normal", "retrodesign",
]

PlanTest = Literal["auto", "mcnemar-exact", "mcnemar-connor-approx", "wald", "mcnemar"]
PLAN_TESTS: tuple[str, ...] = ("auto", "mcnemar-exact", "mcnemar-connor-approx", "wald")
MAX_N = 10**12
NOT_DETECTABLE = "no effect of this design is detectable at this power"


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
    notes: tuple[str, ...] = ()


def _z_alpha(alpha: float, sides: int) -> float:
    alpha = finite(alpha, "alpha")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if sides not in (1, 2):
        raise ValueError(f"sides must be 1 or 2, got {sides}")
    return float(norm_ppf(1 - alpha / sides))


def _z_beta(power: float) -> float:
    power = finite(power, "power")
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power}")
    return float(norm_ppf(power))


def power_normal(delta: float, se: float, alpha: float = 0.05, sides: int = 2) -> float:
    """Power of a z test of ``delta`` with standard error ``se`` (both tails when two-sided)."""
    za = _z_alpha(alpha, sides)
    delta = finite(delta, "delta")
    se = finite(se, "se", non_negative=True)
    if se == 0:
        return 1.0 if delta != 0 else alpha
    shift = abs(delta) / se
    p = float(norm_cdf(shift - za))
    if sides == 2:
        p += float(norm_cdf(-shift - za))
    return p


def epoch_item_variance(single_run_variance: float, icc: float, epochs: int) -> float:
    """Per-item variance of a K-epoch item mean: ``sigma^2 (rho + (1 - rho)/K)``."""
    single_run_variance = finite(single_run_variance, "the variance", non_negative=True)
    if not 0 <= icc <= 1:
        raise ValueError(f"the ICC must be in [0, 1], got {icc}")
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    return single_run_variance * (icc + (1.0 - icc) / epochs)


def binary_unpaired_variance(p_a: float, p_b: float) -> float:
    """``p_A(1-p_A) + p_B(1-p_B)``: two independent arms of 0/1 scores."""
    for p in (p_a, p_b):
        if not 0 <= finite(p, "a proportion") <= 1:
            raise ValueError(f"proportions must be in [0, 1], got {p}")
    return p_a * (1 - p_a) + p_b * (1 - p_b)


@functools.lru_cache(maxsize=32)
def _critical(lo: int, hi: int, tail: float) -> np.ndarray:
    """Largest ``k`` with ``Binom.cdf(k; m, 1/2) <= tail`` (``-1`` when none), per ``m`` in
    ``lo..hi``.  Cached: it does not depend on the effect, so a search over the effect (MDE) or
    over n (sample size) computes the binomial quantiles once instead of at every step."""
    m = np.arange(lo, hi + 1, dtype=float)
    k = binom_ppf(tail, m, 0.5)
    out = np.where(binom_cdf(k, m, 0.5) <= tail, k, k - 1.0)
    out.setflags(write=False)
    return out


def _reject_given_m(lo: int, hi: int, pi: float, alpha: float, sides: int) -> np.ndarray:
    """P(the exact test rejects | m discordant pairs) for ``m`` in ``lo..hi``, the better run's
    share being ``pi``."""
    m = np.arange(lo, hi + 1, dtype=float)
    if sides == 2:
        c = _critical(lo, hi, alpha / 2.0)
        return binom_cdf(c, m, 1.0 - pi) + binom_cdf(c, m, pi)
    return binom_cdf(_critical(lo, hi, alpha), m, 1.0 - pi)


def _m_range(n: int, psi: float) -> tuple[int, int]:
    """Numbers of discordant pairs carrying all but ~1e-15 of ``Binom(n, psi)``."""  # noqa: D401
    if psi >= 1:
        return n, n
    if n <= 300:
        return 0, n
    # +-(10 sd + 25) around n psi: beyond it Binom(n, psi) holds < 1e-15 (Chernoff), and
    # scipy's discrete ppf is too slow at millions of pairs to find the range exactly
    half = 10.0 * math.sqrt(n * psi * (1.0 - psi)) + 25.0
    return max(int(n * psi - half), 0), min(int(math.ceil(n * psi + half)), n)


def _check_exact(n: int, discordance: float, delta: float, alpha: float, sides: int) -> tuple[int, float, float]:
    n = whole(n, "n", 1)
    psi = finite(discordance, "the discordance rate psi")
    d = abs(finite(delta, "delta"))
    if not 0 < psi <= 1:
        raise ValueError(f"the discordance rate must be in (0, 1], got {psi}")
    if d > psi * (1 + 1e-12):
        raise ValueError(f"|delta| = {d:g} must be at or below the discordance rate psi = {psi:g}")
    _z_alpha(alpha, sides)
    return n, psi, min((psi + d) / (2.0 * psi), 1.0)  # pi: share of discordant pairs favouring the better run


def mcnemar_exact_power(n: int, discordance: float, delta: float, alpha: float = 0.05, sides: int = 2) -> float:
    """Exact power of McNemar's exact test with ``n`` pairs, discordance ``psi``, difference ``delta``.

    ``sum_m Binom(m; n, psi) * P(reject | m)`` (module doc), vectorised over ``m`` with
    scipy's binomial; ``m`` is restricted to where ``Binom(m; n, psi) > 1e-15`` at either
    tail.  Two-sided: reject when ``2 Binom.cdf(min(n10, n01); m, 1/2) <= alpha`` (the
    p-value of :func:`evaladdon.stats.mcnemar`); one-sided in the direction of ``delta``.
    Oracle in the tests: brute enumeration of all multinomial tables for small ``n``.
    """
    n, psi, pi = _check_exact(n, discordance, delta, alpha, sides)
    lo, hi = _m_range(n, psi)
    return float(min(np.sum(_discordant_weights(n, psi, lo, hi) * _reject_given_m(lo, hi, pi, alpha, sides)), 1.0))


@functools.lru_cache(maxsize=32)
def _discordant_weights(n: int, psi: float, lo: int, hi: int) -> np.ndarray:
    """``Binom(m; n, psi)`` for ``m`` in ``lo..hi`` (cached: a search over the effect at fixed
    n and psi, as the MDE's, reuses them)."""
    out = binom_pmf(np.arange(lo, hi + 1, dtype=float), n, psi) if psi < 1 else np.ones(1)
    out.setflags(write=False)
    return out


def _exact_powers(ns: np.ndarray, psi: float, pi: float, alpha: float, sides: int) -> np.ndarray:
    """Exact power at each n of ``ns`` at once: ``P(reject | m)`` is shared by every n."""
    lo, hi = _m_range(int(ns.min()), psi)[0], _m_range(int(ns.max()), psi)[1]
    m = np.arange(lo, hi + 1, dtype=float)
    reject = _reject_given_m(lo, hi, pi, alpha, sides)
    out = np.empty(ns.size)
    step = max(1, 4_000_000 // m.size)
    for i in range(0, ns.size, step):  # chunks of n values, vectorised within
        weight = binom_pmf(m[None, :], ns[i : i + step, None], psi) if psi < 1 else np.ones((1, 1))
        out[i : i + step] = weight @ reject
    return out


EXACT_SCAN_MAX = 200_000  # above: the exact power's teeth are negligible; search to 0.05 %
EXACT_MAX = 10_000_000  # above: exact and normal-approximation plans agree; Connor's n is used


def _exact_sample_size(psi: float, d: float, alpha: float, target: float, sides: int, start: int) -> int:
    """Smallest n whose exact McNemar power reaches ``target`` (sawtooth-aware search).

    ``start`` is a normal-approximation n.  Up to ``EXACT_SCAN_MAX`` the crossing is found
    exactly and the window below it scanned for an earlier n that reaches the target (the
    power of an exact test is a sawtooth in n); above it the search stops at 0.05 % of n.
    """
    def pw(n: int) -> float:
        return mcnemar_exact_power(n, psi, d, alpha, sides)

    hi = max(2, start)
    while pw(hi) < target:
        hi = int(hi * 1.02) + 2
        if hi > MAX_N:
            raise ValueError(f"detecting delta = {d:g} needs more than {MAX_N:.0e} items")
    lo = max(1, int(hi * 0.8))
    while lo > 1 and pw(lo) >= target:
        lo = lo // 2
    while hi - lo > max(1, (hi // 2000) if hi > EXACT_SCAN_MAX else 1):  # a crossing of the target
        mid = (lo + hi) // 2
        if pw(mid) >= target:
            hi = mid
        else:
            lo = mid
    if hi > EXACT_SCAN_MAX:
        return hi
    # the power is a sawtooth in n: look below the crossing for an earlier n that reaches it
    window = np.arange(max(2, hi - min(max(50, hi // 10), 1000)), hi, dtype=float)
    if window.size:
        pi = min((psi + d) / (2.0 * psi), 1.0)
        reaching = window[_exact_powers(window, psi, pi, alpha, sides) >= target]
        if reaching.size:
            return int(reaching[0])
    return hi


def _squared_ratio(num: float, den: float) -> float:
    """``(num/den)^2`` that gives inf instead of raising OverflowError (``delta = 1e-300``)."""
    r = num / den
    return r * r if r < 1e150 else math.inf


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
    test: PlanTest = "auto",
    design: str = "",
) -> PowerPlan:
    """MDE at ``n``, required ``n`` for ``delta``, and achieved power (see module doc).

    Give ``variance`` (per-item variance of the difference, before ``deff``) or
    ``discordance`` (psi, paired 0/1).  Give ``n`` (then the MDE, and the power at
    ``delta`` if given) or ``delta`` (then the required n and its power).  ``test="auto"``
    plans for the test ``compare`` runs by default: McNemar's exact test for a psi design
    without clustering (``deff = 1``), else the normal approximation (``wald``) for the
    paired t test.  ``"mcnemar"`` is an alias of ``"mcnemar-exact"``.
    """
    za, zb = _z_alpha(alpha, sides), _z_beta(power)
    deff = finite(deff, "deff", positive=True)
    n, delta, variance, discordance = _checked_plan_inputs(n, delta, variance, discordance)
    notes: list[str] = []
    chosen = _plan_test(test, discordance, deff, notes)
    d_abs = abs(delta) if delta is not None else None
    if discordance is not None and d_abs is not None and d_abs > discordance:
        raise ValueError(f"|delta| = {d_abs:g} must be at or below the discordance rate psi = {discordance:g}: for "
                         "paired 0/1 data the difference is at most the share of items the runs disagree on")
    dz = _Design(chosen, variance, discordance, deff, alpha, sides, za)
    mde = n_req = achieved = None
    if n is not None:
        mde = _mde(dz, n, za + zb, power, notes)
    if d_abs is not None:
        if n is None:
            n_req = _required_n(dz, d_abs, zb, power, notes)
            achieved = dz.power_at(n_req, d_abs)
        else:
            achieved = dz.power_at(n, d_abs)
    used_var = dz.var_at(d_abs) if d_abs is not None else (dz.var_at(0.0) if variance is not None else None)
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
        test=chosen,
        discordance=discordance,
        notes=tuple(notes),
    )


def _checked_plan_inputs(n: int | None, delta: float | None, variance: float | None, discordance: float | None,
                         ) -> tuple[int | None, float | None, float | None, float | None]:
    """:func:`plan`'s ``n``, ``delta``, ``variance`` and ``discordance`` checked (exactly one of
    variance and psi; n or delta; ``2 <= n <= MAX_N``; delta non-zero; psi in (0, 1])."""
    if (variance is None) == (discordance is None):
        raise ValueError("give exactly one of variance (sd^2) or discordance (psi)")
    if n is None and delta is None:
        raise ValueError("give n (for the MDE) or delta (for the sample size), or both")
    if n is not None:
        n = whole(n, "n", 2)
        if n > MAX_N:
            raise ValueError(f"n must be at most {MAX_N:.0e}, got {n}")
    if delta is not None:
        delta = finite(delta, "delta")
        if delta == 0:
            raise ValueError("delta must be non-zero")
    if variance is not None:
        variance = finite(variance, "variance", positive=True)
    if discordance is not None:
        discordance = finite(discordance, "the discordance rate psi")
        if not 0 < discordance <= 1:
            raise ValueError(f"the discordance rate must be in (0, 1], got {discordance}")
    return n, delta, variance, discordance


def _plan_test(test: str, discordance: float | None, deff: float, notes: list[str]) -> str:
    """The test planned for: ``"mcnemar"`` is ``"mcnemar-exact"``; ``auto`` is McNemar's exact test
    for an unclustered psi design, else ``wald``; McNemar needs psi, and its exact test ``deff = 1``."""
    test = "mcnemar-exact" if test == "mcnemar" else test
    if test not in PLAN_TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(PLAN_TESTS)}")
    if test == "auto":
        test = "mcnemar-exact" if discordance is not None and deff == 1.0 else "wald"
        if discordance is not None and deff != 1.0:
            notes.append("clustered pairs: compare runs the clustered t test; planned with the normal "
                         "approximation times the design effect")
    if test.startswith("mcnemar") and discordance is None:
        raise ValueError("McNemar planning needs the discordance rate psi")
    if test == "mcnemar-exact" and deff != 1.0:
        raise ValueError("the exact McNemar test is for unclustered pairs; with a design effect plan with wald")
    return test


@dataclass(frozen=True)
class _Design:
    """A checked design of :func:`plan`: the test, the variance or the discordance psi, the design
    effect, ``alpha``, ``sides`` and ``z_alpha``; its variance and power at a difference."""

    test: str
    variance: float | None
    discordance: float | None
    deff: float
    alpha: float
    sides: int
    za: float

    def var_at(self, d: float) -> float:
        """The per-item variance of the difference at true difference ``d``, times ``deff``
        (``psi - d^2`` for paired 0/1)."""
        if self.variance is not None:
            return self.variance * self.deff
        assert self.discordance is not None
        return (self.discordance - d * d) * self.deff

    def power_at(self, n_: int, d: float) -> float:
        """The power at ``n_`` items and true difference ``d``: McNemar's exact power (up to
        ``EXACT_MAX``), Connor's (1987) normal approximation, or the normal (wald) power."""
        if self.test == "mcnemar-exact" and n_ <= EXACT_MAX:
            assert self.discordance is not None
            return mcnemar_exact_power(n_, self.discordance, d, self.alpha, self.sides)
        if self.test.startswith("mcnemar"):
            psi = self.discordance
            assert psi is not None
            if d * d >= psi:
                return 1.0
            zb_ = (d * math.sqrt(n_ / self.deff) - self.za * math.sqrt(psi)) / math.sqrt(psi - d * d)
            return float(norm_cdf(zb_))
        v = self.var_at(d)
        return 1.0 if v <= 0 else power_normal(d, math.sqrt(v / n_), self.alpha, self.sides)


def _mde(dz: _Design, n: int, z: float, power: float, notes: list[str]) -> float | None:
    """The minimum detectable effect at ``n`` items and target ``power`` (``z = z_alpha + z_beta``):
    a root of the McNemar power (exact or Connor's), ``z sqrt(var deff / n)``, or for psi with wald
    ``z sqrt(psi deff / (n + z^2 deff))``; None (with a note) when no ``|delta| <= psi`` reaches it."""
    discordance, deff = dz.discordance, dz.deff
    if dz.test in ("mcnemar-exact", "mcnemar-connor-approx"):
        assert discordance is not None
        f = lambda d: dz.power_at(n, d) - power  # noqa: E731
        top = discordance * (1 - 1e-12) if dz.test == "mcnemar-connor-approx" else discordance
        from evaladdon.stats._base.root import brentq  # scipy's brentq, without importing scipy.optimize

        mde = float(brentq(f, 1e-12, top, xtol=1e-10)) if f(top) >= 0 else None
    elif dz.variance is not None:
        mde = z * math.sqrt(dz.variance * deff / n)
    else:
        assert discordance is not None
        mde = z * math.sqrt(discordance * deff / (n + z * z * deff))
        if mde > discordance:
            mde = None
    if mde is None:
        notes.append(f"{NOT_DETECTABLE}: with {n} items and discordance {discordance:g} even the largest "
                     f"possible difference (|delta| = psi) is detected with less than {power:.0%} power")
    return mde


def _required_n(dz: _Design, d_abs: float, zb: float, power: float, notes: list[str]) -> int:
    """The items needed to detect ``|delta| = d_abs`` with target ``power``: ``(z sd / delta)^2``
    (Connor's formula for psi), rounded up, then for McNemar's exact test the smallest n whose
    exact power reaches the target (:func:`_exact_sample_size`, up to ``EXACT_MAX``)."""
    if dz.test == "mcnemar-connor-approx":
        assert dz.discordance is not None
        root = dz.za * math.sqrt(dz.discordance) + zb * math.sqrt(dz.discordance - d_abs * d_abs)
        raw = _squared_ratio(root, d_abs) * dz.deff
    else:
        raw = _squared_ratio((dz.za + zb) * math.sqrt(dz.var_at(d_abs)), d_abs)
    if not raw <= MAX_N:
        raise ValueError(f"detecting delta = {d_abs:g} needs more than {MAX_N:.0e} items "
                         f"(about {raw:.3g}); plan for a larger difference")
    n_req = max(2, math.ceil(raw - 1e-9))
    if dz.test == "mcnemar-exact":
        assert dz.discordance is not None
        if n_req <= EXACT_MAX:
            n_req = _exact_sample_size(dz.discordance, d_abs, dz.alpha, power, dz.sides, n_req)
        else:
            notes.append(f"more than {EXACT_MAX:.0e} pairs: the exact test's plan equals the normal "
                         "approximation's at this size; n from the normal approximation")
    return n_req


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
    n = whole(n, "n", 1)
    variance = finite(variance, "variance", positive=True)
    deff = finite(deff, "deff", positive=True)
    se = math.sqrt(variance * deff / n)
    if deltas is None:
        deltas = np.linspace(0.0, 4.5 * se, 46)
    d = np.asarray(deltas, dtype=float)
    za = _z_alpha(alpha, sides)
    pw = norm_cdf(np.abs(d) / se - za) + (norm_cdf(-np.abs(d) / se - za) if sides == 2 else 0.0)
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
    effect, se = finite(effect, "the effect"), finite(se, "se")
    if se <= 0:
        raise ValueError(f"se must be positive, got {se}")
    if effect == 0:
        raise ValueError("the true effect must be non-zero for type S/M")
    z = _z_alpha(alpha, 2)
    lam = abs(effect) / se
    a, b = z - lam, -z - lam  # standardised rejection thresholds around the true effect
    p_hi, p_lo = float(norm_sf(a)), float(norm_cdf(b))
    pw = p_hi + p_lo
    # E[|est| ; significant] / se for est/se ~ N(lam, 1)
    e_abs = lam * p_hi + float(norm_pdf(a)) - lam * p_lo + float(norm_pdf(b))
    return Retrodesign(effect, se, alpha, pw, p_lo / pw, e_abs / pw / lam)
