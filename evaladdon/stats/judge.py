"""Correcting an LLM judge's pass rate with a human-labelled subsample.

The judge is a diagnostic test of "the response is correct".  On labelled items:
sensitivity ``Se = P(judge=1 | human=1)``, specificity ``Sp = P(judge=0 | human=0)``
(Wilson intervals), raw agreement and Cohen's (1960) kappa.

Rogan & Gladen (1978), Am J Epidemiol 107:71: the observed rate ``q = p Se + (1-p)(1-Sp)``
gives ``p_hat = (q_hat + Sp - 1)/(Se + Sp - 1)``, clipped to [0, 1], undefined when
``Se + Sp <= 1``.  Its delta-method variance includes the sampling error of Se and Sp
(Greenland 1996; Lang & Reiczigel 2014):
``Var = [Var(q) + p^2 Var(Se) + (1-p)^2 Var(Sp)] / (Se + Sp - 1)^2`` with
``Var(Se) = Se(1-Se)/n_pos`` and ``Var(Sp) = Sp(1-Sp)/n_neg``.  The bootstrap resamples the
evaluated and the labelled items independently; for i.i.d. 0/1 items a resample's count is
exactly ``Binomial(n, rate)``, which is how it is drawn (vectorised, no item loop).

Prediction-powered inference (Angelopoulos et al. 2023, Science 382:669) and PPI++
(Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453):
``theta = mean(y - lambda f)_labelled + lambda mean(f)_unlabelled`` with
``Var = Var(y - lambda f)/n + lambda^2 Var(f)/N``; PPI is ``lambda = 1``; PPI++ uses
``lambda = Cov(y, f) / ((1 + n/N) Var(f))`` clipped to [0, 1].
Oracles in the tests: hand computation, statsmodels ``cohens_kappa``, seeded Monte-Carlo
coverage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base import zero_se
from evaladdon.stats._base.checks import as_finite_1d, check_level, finite, whole
from evaladdon.stats._base.dist import norm_ppf
from evaladdon.stats._base.result import Interval, IntervalResult, Result, ci_bounds, holds_interval
from evaladdon.stats.intervals import proportion_interval

__all__ = [
    "CorrectedDifference", "CorrectedRate", "JudgeAgreement", "PPIResult", "corrected_difference", "judge_agreement",
    "ppi_mean", "rogan_gladen", "rogan_gladen_bootstrap",
]

NAN = float("nan")


@dataclass(frozen=True)
class JudgeAgreement(Result):
    """Judge vs human on the labelled items (``tp``: both 1, ``fp``: judge 1, human 0 ...)."""

    n_labelled: int
    tp: int
    fn: int
    fp: int
    tn: int
    sensitivity: float
    sensitivity_low: float
    sensitivity_high: float
    specificity: float
    specificity_low: float
    specificity_high: float
    agreement: float
    kappa: float

    @property
    def n_pos(self) -> int:
        return self.tp + self.fn

    @property
    def n_neg(self) -> int:
        return self.tn + self.fp


def _binary(x: npt.ArrayLike, name: str) -> np.ndarray:
    arr = as_finite_1d(x, name)
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must be 0/1 verdicts")
    return arr


def judge_agreement(judge: npt.ArrayLike, human: npt.ArrayLike, level: float = 0.95) -> JudgeAgreement:
    """Confusion counts, Se and Sp with Wilson intervals, agreement and Cohen's kappa."""
    j, h = _binary(judge, "judge"), _binary(human, "human")
    if j.size != h.size:
        raise ValueError(f"judge and human labels differ in length: {j.size} vs {h.size}")
    tp = int(np.sum((j == 1) & (h == 1)))
    fn = int(np.sum((j == 0) & (h == 1)))
    fp = int(np.sum((j == 1) & (h == 0)))
    tn = int(np.sum((j == 0) & (h == 0)))
    if tp + fn == 0 or tn + fp == 0:
        raise ValueError("the labelled items need both human positives and human negatives to estimate Se and Sp")
    n = j.size
    se_ci = proportion_interval(tp, tp + fn, "wilson", level)
    sp_ci = proportion_interval(tn, tn + fp, "wilson", level)
    po = (tp + tn) / n
    pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
    kappa = (po - pe) / (1 - pe) if pe < 1 else float("nan")
    return JudgeAgreement(
        n, tp, fn, fp, tn, se_ci.estimate, se_ci.low, se_ci.high, sp_ci.estimate, sp_ci.low, sp_ci.high, po, kappa
    )


@holds_interval
class CorrectedRate(IntervalResult):
    """A judge-corrected pass rate; ``estimate`` is clipped to [0, 1] (``clipped`` says so)."""

    _ci_of = ("estimate", "method")
    estimate: float
    unclipped: float
    observed: float
    sensitivity: float
    specificity: float
    se: float
    ci_low: float
    ci_high: float
    ci: Interval = field(init=False, metadata=ci_bounds())
    level: float
    method: str
    clipped: bool
    notes: tuple[str, ...] = ()


def _checked_rg_inputs(observed: float, sensitivity: float, specificity: float, observed_se: float | None,
                       n_observed: int | None, n_pos: int | None, n_neg: int | None,
                       ) -> tuple[float | None, int | None]:
    """:func:`rogan_gladen`'s arguments checked (rates in [0, 1], ``observed_se >= 0``, whole counts,
    Youden's ``J = Se + Sp - 1 > 0``); returns ``observed_se`` and ``n_observed`` as checked."""
    for name, v in (("observed", observed), ("sensitivity", sensitivity), ("specificity", specificity)):
        if not 0 <= finite(v, name) <= 1:
            raise ValueError(f"{name} must be in [0, 1], got {v}")
    if observed_se is not None:
        observed_se = finite(observed_se, "observed_se", non_negative=True)
    if n_observed is not None:
        n_observed = whole(n_observed, "n_observed", 1)
    for name, count in (("n_pos", n_pos), ("n_neg", n_neg)):
        if count is not None:
            whole(count, name, 0)
    if sensitivity + specificity - 1.0 <= 0:
        raise ValueError(
            f"Se + Sp = {sensitivity + specificity:.4f} <= 1: a judge no better than chance cannot be corrected"
        )
    return observed_se, n_observed


def rogan_gladen(
    observed: float,
    sensitivity: float,
    specificity: float,
    *,
    n_observed: int | None = None,
    observed_se: float | None = None,
    n_pos: int | None = None,
    n_neg: int | None = None,
    level: float = 0.95,
) -> CorrectedRate:
    """Rogan-Gladen corrected rate with a delta-method SE and Wald interval (module doc).

    ``observed_se`` (e.g. a clustered SE) overrides ``sqrt(q(1-q)/n_observed)``.  Without
    ``n_pos``/``n_neg`` Se and Sp are taken as known exactly (a note says so; the interval
    then undercovers when they were estimated).  Without ``n_observed`` or ``observed_se``
    only the point estimate exists: SE and interval are NaN, with a note.  A delta-method SE
    of zero (e.g. q = 1 with Se = Sp = 1) falls back to the Wilson interval of q on the
    ``n_observed`` items mapped through the (increasing) correction, with a note.
    """
    level = check_level(level)
    observed_se, n_observed = _checked_rg_inputs(observed, sensitivity, specificity, observed_se, n_observed,
                                                 n_pos, n_neg)
    j = sensitivity + specificity - 1.0
    raw = (observed + specificity - 1.0) / j
    p = min(max(raw, 0.0), 1.0)
    notes: list[str] = []
    if raw != p:
        notes.append(f"the corrected rate {raw:.4f} lies outside [0, 1] and was clipped")
    if observed_se is not None:
        var_q = observed_se**2
    elif n_observed is not None:
        var_q = observed * (1 - observed) / n_observed
    else:
        notes.append("no sample size: give n_observed or observed_se for the SE and interval (point estimate only)")
        return CorrectedRate(p, raw, observed, sensitivity, specificity, NAN, NAN, NAN, level,
                             "rogan-gladen", raw != p, tuple(notes))
    var_se = sensitivity * (1 - sensitivity) / n_pos if n_pos else 0.0
    var_sp = specificity * (1 - specificity) / n_neg if n_neg else 0.0
    if not n_pos or not n_neg:
        notes.append("Se/Sp taken as known exactly: their sampling error is not in the SE")
    var = (var_q + p * p * var_se + (1 - p) ** 2 * var_sp) / (j * j)
    se = math.sqrt(var)
    z = float(norm_ppf(0.5 + level / 2))
    low, high, method = max(p - z * se, 0.0), min(p + z * se, 1.0), "rogan-gladen-delta"
    if zero_se.se_is_zero(se, np.array([1.0])) and n_observed is not None:
        q_low, q_high = zero_se.wilson_bounds(observed, n_observed, level)
        low = min(max((q_low + specificity - 1.0) / j, 0.0), 1.0)
        high = min(max((q_high + specificity - 1.0) / j, 0.0), 1.0)
        method = "rogan-gladen-wilson-fallback"
        notes.append(f"the delta-method SE is 0: the interval maps the Wilson interval of the observed rate on "
                     f"{n_observed} items through the correction (zero-SE fallback)")
    return CorrectedRate(
        estimate=p,
        unclipped=raw,
        observed=observed,
        sensitivity=sensitivity,
        specificity=specificity,
        se=se,
        ci_low=low,
        ci_high=high,
        level=level,
        method=method,
        clipped=raw != p,
        notes=tuple(notes),
    )


def rogan_gladen_bootstrap(
    observed: float,
    n_observed: int,
    agreement: JudgeAgreement,
    *,
    n_resamples: int = 10_000,
    level: float = 0.95,
    seed: int | None = 0,
) -> CorrectedRate:
    """Percentile bootstrap of the corrected rate, resampling evaluated and labelled items.

    Replicates whose resampled ``Se + Sp <= 1`` are left out and counted in ``notes``.
    """
    level = check_level(level)
    point = rogan_gladen(observed, agreement.sensitivity, agreement.specificity, n_observed=n_observed,
                         n_pos=agreement.n_pos, n_neg=agreement.n_neg, level=level)
    rng = np.random.default_rng(seed)
    q = rng.binomial(n_observed, observed, n_resamples) / n_observed
    se = rng.binomial(agreement.n_pos, agreement.sensitivity, n_resamples) / agreement.n_pos
    sp = rng.binomial(agreement.n_neg, agreement.specificity, n_resamples) / agreement.n_neg
    j = se + sp - 1.0
    ok = j > 0
    reps = np.clip((q[ok] + sp[ok] - 1.0) / j[ok], 0.0, 1.0)
    alpha = 1 - level
    low, high = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    notes = list(point.notes)
    if (~ok).any():
        notes.append(f"{int((~ok).sum())} of {n_resamples} replicates had Se + Sp <= 1 and were left out")
    return CorrectedRate(point.estimate, point.unclipped, observed, agreement.sensitivity, agreement.specificity,
                         float(reps.std(ddof=1)), float(low), float(high), level, "rogan-gladen-bootstrap",
                         point.clipped, tuple(notes))


@holds_interval
class PPIResult(IntervalResult):
    _ci_of = ("estimate", "method")
    estimate: float
    se: float
    ci_low: float
    ci_high: float
    ci: Interval = field(init=False, metadata=ci_bounds())
    level: float
    method: str
    lam: float
    n_labelled: int
    n_unlabelled: int
    classical_estimate: float
    classical_se: float
    notes: tuple[str, ...] = ()


def ppi_mean(
    human_labelled: npt.ArrayLike,
    judge_labelled: npt.ArrayLike,
    judge_unlabelled: npt.ArrayLike,
    *,
    tuned: bool = True,
    level: float = 0.95,
) -> PPIResult:
    """PPI (``tuned=False``) or PPI++ estimate of the mean human score (module doc)."""
    level = check_level(level)
    y = as_finite_1d(human_labelled, "human_labelled")
    f = as_finite_1d(judge_labelled, "judge_labelled")
    fu = as_finite_1d(judge_unlabelled, "judge_unlabelled")
    if y.size != f.size:
        raise ValueError("human and judge labels on the labelled items differ in length")
    n, big_n = y.size, fu.size
    if n < 2 or big_n < 2:
        raise ValueError("PPI needs at least two labelled and two unlabelled items")
    if tuned:
        var_f = float(np.concatenate([f, fu]).var(ddof=1))
        cov = float(np.cov(y, f, ddof=1)[0, 1])
        lam = cov / ((1 + n / big_n) * var_f) if var_f > 0 else 0.0
        lam = min(max(lam, 0.0), 1.0)
    else:
        lam = 1.0
    resid = y - lam * f
    est = float(resid.mean() + lam * fu.mean())
    var = float(resid.var(ddof=1) / n + lam * lam * fu.var(ddof=1) / big_n)
    se = math.sqrt(var)
    z = float(norm_ppf(0.5 + level / 2))
    low, high, method = est - z * se, est + z * se, "ppi++" if tuned else "ppi"
    notes: list[str] = []
    if zero_se.se_is_zero(se, np.concatenate([y, f, fu])):
        if all(zero_se.within(v, 0.0, 1.0) for v in (y, f, fu)):
            # the human labels are the ground truth: their n items are the units (conservative)
            low, high = zero_se.bounded_interval(est, n, level)
            method += "-zero-se-wilson"
            notes.append(f"the PPI SE is 0: the interval is the Wilson score interval of a [0, 1] mean on the "
                         f"{n} human-labelled items as units (zero-SE fallback)")
        else:
            low = high = NAN
            notes.append("the PPI SE is 0 and the scores are not bounded in [0, 1]: no interval can be estimated")
    return PPIResult(est, se, low, high, level, method, lam, n, big_n,
                     float(y.mean()), float(y.std(ddof=1) / math.sqrt(n)), tuple(notes))


@holds_interval
class CorrectedDifference(IntervalResult):
    _ci_of = ("delta", "interval_method")
    interval_method: ClassVar[str] = "normal"
    delta: float
    observed_delta: float
    se: float
    ci_low: float
    ci_high: float
    ci: Interval = field(init=False, metadata=ci_bounds())
    level: float


def corrected_difference(
    observed_delta: float,
    observed_delta_se: float,
    sensitivity: float,
    specificity: float,
    *,
    n_pos: int | None = None,
    n_neg: int | None = None,
    level: float = 0.95,
) -> CorrectedDifference:
    """Difference of two runs graded by the same judge, scaled by ``1/(Se + Sp - 1)``.

    ``Var = [Var(D_obs) + D^2 (Var(Se) + Var(Sp))] / J^2`` with ``D = D_obs/J``
    (delta method; the common misclassification cancels in the numerator).
    """
    level = check_level(level)
    observed_delta = finite(observed_delta, "observed_delta")
    observed_delta_se = finite(observed_delta_se, "observed_delta_se", non_negative=True)
    j = finite(sensitivity, "sensitivity") + finite(specificity, "specificity") - 1.0
    if j <= 0:
        raise ValueError("Se + Sp <= 1: a judge no better than chance cannot be corrected")
    d = observed_delta / j
    var_se = sensitivity * (1 - sensitivity) / n_pos if n_pos else 0.0
    var_sp = specificity * (1 - specificity) / n_neg if n_neg else 0.0
    se = math.sqrt(observed_delta_se**2 + d * d * (var_se + var_sp)) / j
    z = float(norm_ppf(0.5 + level / 2))
    return CorrectedDifference(d, observed_delta, se, d - z * se, d + z * se, level)
