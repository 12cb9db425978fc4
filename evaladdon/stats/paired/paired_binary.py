"""Intervals for the difference of two paired proportions, ``delta = p_B - p_A``.

With the discordance table (``n10``: right in A only, ``n01``: right in B only, ``N``
items), ``delta = (n01 - n10) / N`` and ``psi = (n10 + n01) / N``.

- ``wald``: ``delta +- z sqrt((psi - delta^2) / N)`` (the MLE variance).
- ``newcombe``: Newcombe (1998), Stat Med 17:2635, method 10 -- the hybrid of the two
  marginal Wilson intervals with the phi correlation of the table.
- ``bonett-price``: Bonett & Price (2012), adjusted Wald with ``+1`` to each discordant
  cell and ``N + 2``.
- ``tango``: Tango (1998), Stat Med 17:891, the score interval: all ``delta0`` with
  ``|Z(delta0)| <= z``, ``Z = (n01 - n10 - N delta0) / sqrt(N (2 q + delta0 (1 - delta0)))``
  with ``q`` the constrained MLE of the discordant cell; the ends by root finding.

Published values checked in the tests: Fagerland, Lydersen & Laake (2014), "Recommended
tests and confidence intervals for paired binomial proportions", Stat Med 33, Table V;
Yang, Sun & Hardin (2012) for Tango.
"""

from __future__ import annotations

import math
from typing import Callable

from evaladdon.stats._base.checks import check_level
from evaladdon.stats._base.dist import norm_ppf
from evaladdon.stats.intervals import Interval, proportion_interval

__all__ = ["PAIRED_BINARY_METHODS", "bonett_price", "newcombe", "paired_binary_interval", "tango", "wald_paired"]

PAIRED_BINARY_METHODS: tuple[str, ...] = ("newcombe", "tango", "bonett-price", "wald")


def _z(level: float) -> float:
    return float(norm_ppf(0.5 + level / 2.0))


def _counts(n11: int, n10: int, n01: int, n00: int) -> tuple[int, int, int, int, int]:
    cells = (n11, n10, n01, n00)
    if any(int(c) != c or c < 0 for c in cells):
        raise ValueError(f"table counts must be whole numbers >= 0, got {cells}")
    n = int(sum(cells))
    if n == 0:
        raise ValueError("the table is empty")
    return int(n11), int(n10), int(n01), int(n00), n


def wald_paired(n11: int, n10: int, n01: int, n00: int, level: float = 0.95) -> Interval:
    n11, n10, n01, n00, n = _counts(n11, n10, n01, n00)
    d = (n01 - n10) / n
    se = math.sqrt(max((n10 + n01) / n - d * d, 0.0) / n)
    z = _z(check_level(level))
    return Interval(d, max(d - z * se, -1.0), min(d + z * se, 1.0), level, "wald")


def bonett_price(n11: int, n10: int, n01: int, n00: int, level: float = 0.95) -> Interval:
    n11, n10, n01, n00, n = _counts(n11, n10, n01, n00)
    p10 = (n10 + 1.0) / (n + 2.0)
    p01 = (n01 + 1.0) / (n + 2.0)
    d_adj = p01 - p10
    se = math.sqrt((p10 + p01 - d_adj * d_adj) / (n + 2.0))
    z = _z(check_level(level))
    return Interval((n01 - n10) / n, max(d_adj - z * se, -1.0), min(d_adj + z * se, 1.0), level, "bonett-price")


def newcombe(n11: int, n10: int, n01: int, n00: int, level: float = 0.95) -> Interval:
    """Newcombe's method 10; here the 'first' proportion is ``p_B = (n11 + n01)/N``."""
    n11, n10, n01, n00, n = _counts(n11, n10, n01, n00)
    level = check_level(level)
    k_b, k_a = n11 + n01, n11 + n10
    p_b, p_a = k_b / n, k_a / n
    ci_b = proportion_interval(k_b, n, "wilson", level)
    ci_a = proportion_interval(k_a, n, "wilson", level)
    # phi of the 2x2 table, rows B (1, 0), columns A (1, 0), with Newcombe's (1998)
    # correction: a positive AD - BC is reduced by N/2 and floored at 0
    # (as tabulated by Fagerland, Lydersen & Laake 2014)
    denom = (n11 + n01) * (n10 + n00) * (n11 + n10) * (n01 + n00)
    cross = float(n11 * n00 - n01 * n10)
    if cross > 0:
        cross = max(cross - n / 2.0, 0.0)
    phi = cross / math.sqrt(denom) if denom > 0 else 0.0
    d = p_b - p_a
    lb, ub = p_b - ci_b.low, ci_b.high - p_b
    la, ua = p_a - ci_a.low, ci_a.high - p_a
    delta = math.sqrt(max(lb * lb - 2.0 * phi * lb * ua + ua * ua, 0.0))
    eps = math.sqrt(max(ub * ub - 2.0 * phi * ub * la + la * la, 0.0))
    return Interval(d, max(d - delta, -1.0), min(d + eps, 1.0), level, "newcombe")


def _tango_z(n10: int, n01: int, n: int) -> Callable[[float], float]:
    def z_of(delta0: float) -> float:
        # constrained MLE of the n10 cell probability under delta = delta0 (Tango 1998, eq. 3)
        a = 2.0 * n
        b = (2.0 * n - n01 + n10) * delta0 - n01 - n10
        c = -n10 * delta0 * (1.0 - delta0)
        disc = max(b * b - 4.0 * a * c, 0.0)
        q = (-b + math.sqrt(disc)) / (2.0 * a)
        var = n * (2.0 * q + delta0 * (1.0 - delta0))
        num = n01 - n10 - n * delta0
        if var <= 0.0:
            return 0.0 if num == 0 else math.copysign(math.inf, num)
        return num / math.sqrt(var)

    return z_of


def tango(n11: int, n10: int, n01: int, n00: int, level: float = 0.95) -> Interval:
    n11, n10, n01, n00, n = _counts(n11, n10, n01, n00)
    level = check_level(level)
    z = _z(level)
    d = (n01 - n10) / n
    z_of = _tango_z(n10, n01, n)
    eps = 1e-12

    def f(x: float) -> float:
        return z_of(x) ** 2 - z * z

    from evaladdon.stats._base.root import brentq  # scipy's brentq, without importing scipy.optimize

    lo_end, hi_end = -1.0 + eps, 1.0 - eps
    # an end whose |Z| stays within z all the way to -1 (or 1) is the boundary itself
    low = -1.0 if d <= lo_end or f(lo_end) <= 0 else brentq(f, lo_end, d, xtol=1e-12)
    high = 1.0 if d >= hi_end or f(hi_end) <= 0 else brentq(f, d, hi_end, xtol=1e-12)
    return Interval(d, float(max(low, -1.0)), float(min(high, 1.0)), level, "tango")


def paired_binary_interval(
    n11: int, n10: int, n01: int, n00: int, method: str = "newcombe", level: float = 0.95
) -> Interval:
    """Interval for ``p_B - p_A`` from the discordance table by ``method`` (see module doc)."""
    methods = {"newcombe": newcombe, "tango": tango, "bonett-price": bonett_price, "wald": wald_paired}
    key = method.lower().replace("_", "-")
    if key not in methods:
        raise ValueError(f"unknown paired interval {method!r}; choose one of {', '.join(PAIRED_BINARY_METHODS)}")
    return methods[key](n11, n10, n01, n00, level)
