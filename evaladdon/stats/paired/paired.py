"""Paired comparison of two runs on the same items: ``delta = mean_B - mean_A``.

Inputs are aligned item-level values (epochs already averaged within each item), ``a`` the
baseline and ``b`` the candidate, ``d_i = b_i - a_i``.

- ``se_paired = s(d)/sqrt(n)``; paired t on ``n - 1`` df (Student 1908; oracle
  ``scipy.stats.ttest_rel``); clustered: CR1/CR2 on ``d`` (:mod:`evaladdon.stats.cluster`).
- beside it, always: ``se_unpaired = sqrt(s^2(a)/n + s^2(b)/n)``, the correlation of the
  runs, and the share of variance that pairing removed, ``1 - Var(d)/(Var(a) + Var(b))``.
- 0/1 scores with one epoch: the discordance table, McNemar (exact by default), and the
  paired intervals of :mod:`evaladdon.stats.paired_binary` (Tango's score interval by default:
  Newcombe's covered 90.8-92.4 % at n <= 100 when the runs agree on almost every item,
  Tango's >= 93.7 % on the same exact grid; docs/statistics.md).
- the sign-flip permutation test and a (cluster) bootstrap interval on request.
- clustered: CR2 with the Bell-McCaffrey df by default (CR1 with ``C - 1`` df on request).
- an SE of zero (or round-off) never gives p = 0 or a zero-width interval: the exact sign
  test on the units and the Wilson interval of :mod:`evaladdon.stats.zero_se`.
- values near the float limit are divided by a power of two first (exact; no inf).
Reference: Dietterich (1998); Miller (2024) section 4.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import field

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base import zero_se
from evaladdon.stats._base.checks import as_finite_1d, check_level, is_binary, pow2_scale, whole
from evaladdon.stats._base.dist import t_sf
from evaladdon.stats._base.result import Interval, IntervalResult, ci_bounds, holds_interval
from evaladdon.stats.resampling import bootstrap_totals, ratio_of_totals
from evaladdon.stats.cluster import ClusteredSE, clustered_se, codes, cr1_note  # codes: first-appearance ints as they are
from evaladdon.stats.intervals import t_bounds
from evaladdon.stats.paired.mcnemar import Discordance, McNemarResult, discordance, mcnemar
from evaladdon.stats.paired.paired_binary import PAIRED_BINARY_METHODS, paired_binary_interval
from evaladdon.stats.paired.permutation import sign_flip_test

__all__ = ["PAIRED_INTERVALS", "PAIRED_TESTS", "PairedComparison", "compare_paired"]

PAIRED_TESTS: tuple[str, ...] = (
    "auto",
    "mcnemar",
    "mcnemar-midp",
    "mcnemar-chi2",
    "mcnemar-chi2-cc",
    "t",
    "permutation",
)
PAIRED_INTERVALS: tuple[str, ...] = ("auto", "t", "bootstrap", *PAIRED_BINARY_METHODS)

NAN = float("nan")


@holds_interval
class PairedComparison(IntervalResult):
    """Everything about ``mean_B - mean_A`` on shared items; see the module doc.

    ``p_value`` is from ``test``; ``ci_low``/``ci_high`` from ``ci_method``.  ``se`` is the
    SE the t test and interval use (clustered when clusters are given).
    """

    _ci_of = ("delta", "ci_method")
    n: int
    mean_a: float
    mean_b: float
    delta: float
    se: float
    df: float
    se_paired: float
    se_unpaired: float
    correlation: float
    variance_removed: float
    ci_low: float
    ci_high: float
    ci: Interval = field(init=False, metadata=ci_bounds())
    ci_method: str
    level: float
    test: str
    p_value: float
    t_statistic: float
    t_p_value: float
    binary: bool
    discordance: Discordance | None
    mcnemar: McNemarResult | None
    binary_intervals: dict[str, tuple[float, float]] | None
    n_clusters: int | None
    se_cluster: float | None
    se_cluster_cr2: float | None
    df_cluster_cr2: float | None
    permutation_p: float | None
    notes: tuple[str, ...] = ()


def _paired_t(delta: float, se: float, df: float) -> tuple[float, float]:
    """t statistic and two-sided p; callers replace a zero SE by the sign test first."""
    if not se > 0 or not df > 0:
        return NAN, NAN
    t = delta / se
    return t, float(2.0 * t_sf(abs(t), df))


def compare_paired(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    one_epoch: bool = True,
    level: float = 0.95,
    test: str = "auto",
    interval: str = "auto",
    cluster_method: str = "cr2",
    n_permutations: int = 10_000,
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> PairedComparison:
    """Compare candidate ``b`` with baseline ``a`` item by item (see module doc).

    ``one_epoch`` says each value is a single run's score (needed for McNemar: item means
    over several epochs are not Bernoulli even when they are 0 or 1).
    """
    level = check_level(level)
    x_a = as_finite_1d(a, "a")
    x_b = as_finite_1d(b, "b")
    if x_a.size != x_b.size:
        raise ValueError(f"paired runs must have the same items: {x_a.size} vs {x_b.size} values")
    if cluster_method not in ("cr1", "cr2"):
        raise ValueError(f"cluster_method must be 'cr1' or 'cr2', got {cluster_method!r}")
    n_permutations = whole(n_permutations, "n_permutations", 1)
    n_resamples = whole(n_resamples, "n_resamples", 1)
    scale = pow2_scale(x_a, x_b)
    if scale != 1.0:
        x_a, x_b = x_a / scale, x_b / scale
    r = _compare(x_a, x_b, clusters, one_epoch, level, test, interval, cluster_method, n_permutations, n_resamples,
                 seed)
    if scale == 1.0:
        return r

    def lin(v: float | None) -> float | None:
        return None if v is None else v * scale

    return dataclasses.replace(
        r, mean_a=r.mean_a * scale, mean_b=r.mean_b * scale, delta=r.delta * scale, se=r.se * scale,
        se_paired=r.se_paired * scale, se_unpaired=r.se_unpaired * scale, ci_low=r.ci_low * scale,
        ci_high=r.ci_high * scale, se_cluster=lin(r.se_cluster), se_cluster_cr2=lin(r.se_cluster_cr2),
        notes=(*r.notes, f"values were scaled by 2^-{int(math.log2(scale))} to avoid overflow"))


def _compare(
    x_a: np.ndarray,
    x_b: np.ndarray,
    clusters: npt.ArrayLike | None,
    one_epoch: bool,
    level: float,
    test: str,
    interval: str,
    cluster_method: str,
    n_permutations: int,
    n_resamples: int,
    seed: int | None,
) -> PairedComparison:
    test, interval = _checked_choices(test, interval)
    n = x_a.size
    d = x_b - x_a
    delta = float(d.mean())
    notes: list[str] = []
    if n < 2:
        raise ValueError("a paired comparison needs at least two shared items")
    var_a, var_b, var_d = float(x_a.var(ddof=1)), float(x_b.var(ddof=1)), float(d.var(ddof=1))
    se_paired = math.sqrt(var_d / n)
    se_unpaired = math.sqrt((var_a + var_b) / n)
    corr = float(np.corrcoef(x_a, x_b)[0, 1]) if var_a > 0 and var_b > 0 else NAN
    removed = 1.0 - var_d / (var_a + var_b) if var_a + var_b > 0 else NAN
    binary = is_binary(x_a) and is_binary(x_b) and one_epoch

    se, df = se_paired, float(n - 1)
    cl = cluster_codes = None
    if clusters is not None:
        cluster_codes, _ = codes(clusters, n, "clusters")
        cl = clustered_se(d, cluster_codes)
        se, df = _clustered_choice(cl, cluster_method, notes)
    se_zero = zero_se.se_is_zero(se, d)
    t_stat, t_p = _paired_t(delta, se, df) if not (math.isnan(se) or se_zero) else (NAN, NAN)
    unit_codes, n_units = codes(cluster_codes, n, "clusters")
    units = zero_se.unit_word(n_units, clusters is not None)
    sign_p = NAN
    if se_zero:
        sign_p, pos, neg = zero_se.sign_test(np.bincount(unit_codes, weights=d, minlength=n_units))
        notes.append(f"the estimated SE of the difference is 0: no t test; the exact sign test on the {units} "
                     f"({pos} up, {neg} down) gives p = {sign_p:.3g} (zero-SE fallback)")

    table, mc, binary_cis = _binary_tables(x_a, x_b, level) if binary else (None, None, None)
    chosen_test, p_value, perm_p = _p_value(test, d, cluster_codes, binary, mc, t_p if not se_zero else None, sign_p,
                                            n_permutations, seed)

    chosen_ci = interval
    if interval == "auto":
        chosen_ci = "tango" if binary and clusters is None else "t"
    if chosen_ci in PAIRED_BINARY_METHODS:
        if binary_cis is None or clusters is not None:
            raise ValueError(f"the {chosen_ci} interval needs 0/1 scores with one epoch and no clusters")
        low, high = binary_cis[chosen_ci]
    elif se_zero:
        chosen_ci, low, high = _zero_se_interval(x_a, x_b, delta, n_units, units, level, clusters is not None, notes)
    elif chosen_ci == "bootstrap":
        totals = np.column_stack(
            [np.bincount(unit_codes, weights=d, minlength=n_units), np.bincount(unit_codes, minlength=n_units).astype(float)]
        )
        bs = bootstrap_totals(totals, ratio_of_totals, n_resamples=n_resamples, level=level, seed=seed)
        low, high = bs.low, bs.high
    else:
        low, high = t_bounds(delta, se, df, level)
    return PairedComparison(
        n=n, mean_a=float(x_a.mean()), mean_b=float(x_b.mean()), delta=delta, se=float(se), df=float(df),
        se_paired=se_paired, se_unpaired=se_unpaired, correlation=corr, variance_removed=float(removed),
        ci_low=float(low), ci_high=float(high),
        ci_method=chosen_ci if chosen_ci != "t" or clusters is None else f"t-cluster-{cluster_method}",
        level=level, test=chosen_test, p_value=float(p_value), t_statistic=float(t_stat), t_p_value=float(t_p),
        binary=binary, discordance=table, mcnemar=mc, binary_intervals=binary_cis,
        n_clusters=None if cl is None else cl.n_clusters, se_cluster=None if cl is None else cl.se_cr1,
        se_cluster_cr2=None if cl is None else cl.se_cr2, df_cluster_cr2=None if cl is None else cl.df_cr2,
        permutation_p=perm_p, notes=tuple(notes),
    )


def _p_value(test: str, d: np.ndarray, cluster_codes: np.ndarray | None, binary: bool, mc: McNemarResult | None,
             t_p: float | None, sign_p: float, n_permutations: int, seed: int | None,
             ) -> tuple[str, float, float | None]:
    """The test run, its p-value, and the permutation test's p-value (None unless it ran).
    ``auto`` is McNemar's exact test for unclustered 0/1 scores, else t; ``t_p`` is None when the SE
    is zero, and then the t test becomes the exact sign test (p-value ``sign_p``)."""
    clustered = cluster_codes is not None
    chosen_test = test
    if test == "auto":
        chosen_test = "mcnemar" if binary and not clustered else "t"
    if chosen_test.startswith("mcnemar") and (mc is None or clustered):
        raise ValueError(f"{chosen_test} needs 0/1 scores with one epoch and no clusters; use t or permutation")
    if chosen_test == "permutation":
        perm_p = sign_flip_test(d, cluster_codes, n_permutations=n_permutations, seed=seed).p_value
        return chosen_test, perm_p, perm_p
    if chosen_test == "t":
        return ("sign-exact", sign_p, None) if t_p is None else ("t", t_p, None)
    assert mc is not None
    p_value = {
        "mcnemar": mc.exact_p,
        "mcnemar-midp": mc.mid_p,
        "mcnemar-chi2": mc.chi2_p,
        "mcnemar-chi2-cc": mc.chi2_cc_p,
    }[chosen_test]
    return chosen_test, p_value, None


def _checked_choices(test: str, interval: str) -> tuple[str, str]:
    """``test`` and ``interval`` in canonical spelling (lower case, ``-``), checked against
    :data:`PAIRED_TESTS` and :data:`PAIRED_INTERVALS`."""
    test = test.lower().replace("_", "-")
    interval = interval.lower().replace("_", "-")
    if test not in PAIRED_TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(PAIRED_TESTS)}")
    if interval not in PAIRED_INTERVALS:
        raise ValueError(f"unknown interval {interval!r}; choose one of {', '.join(PAIRED_INTERVALS)}")
    return test, interval


def _clustered_choice(cl: ClusteredSE, cluster_method: str, notes: list[str]) -> tuple[float, float]:
    """The SE and df of the clustered test: CR2 with the Bell-McCaffrey df, or CR1 with ``C - 1``
    df (with its small-sample warning); the clustering's notes go to ``notes``."""
    notes.extend(cl.notes)
    if cluster_method == "cr1":
        warn = cr1_note(cl.n_clusters, cl.df_cr2)
        if warn:
            notes.append(warn)
    return (cl.se_cr2, cl.df_cr2) if cluster_method == "cr2" else (cl.se_cr1, cl.df_cr1)


def _binary_tables(x_a: np.ndarray, x_b: np.ndarray,
                   level: float) -> tuple[Discordance, McNemarResult, dict[str, tuple[float, float]]]:
    """For 0/1 scores with one epoch: the discordance table, McNemar's tests, and every paired
    binary interval of :mod:`evaladdon.stats.paired.paired_binary` (method -> (low, high))."""
    table = discordance(x_a, x_b)
    mc = mcnemar(table.n10, table.n01)
    binary_cis: dict[str, tuple[float, float]] = {}
    for m in PAIRED_BINARY_METHODS:
        ci = paired_binary_interval(table.n11, table.n10, table.n01, table.n00, m, level)
        binary_cis[m] = (ci.low, ci.high)
    return table, mc, binary_cis


def _zero_se_interval(x_a: np.ndarray, x_b: np.ndarray, delta: float, n_units: int, units: str, level: float,
                      clustered: bool, notes: list[str]) -> tuple[str, float, float]:
    """The interval when the SE of the difference is zero (:mod:`evaladdon.stats.zero_se`): Wilson's
    for a mean difference in [-1, 1] on the units when both runs are in [0, 1], else none."""
    if zero_se.within(x_a, 0.0, 1.0) and zero_se.within(x_b, 0.0, 1.0):
        low, high = zero_se.bounded_interval(delta, n_units, level, -1.0, 1.0)
        notes.append(f"the interval is the Wilson score interval of a mean difference in [-1, 1] on the {units} "
                     "as units (zero-SE fallback), not a t interval of width 0")
        return f"zero-se-wilson-{'clusters' if clustered else 'items'}", low, high
    notes.append(f"scores not bounded in [0, 1]: no interval can be estimated from {units} that all agree")
    return "none", NAN, NAN
