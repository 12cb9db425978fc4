"""The difference in error rates of two runs on the items both attempted: exact McNemar on
errored-vs-not.

Each shared item is errored or not in run A and in run B (with epochs: errored when any of its
epochs errored).  The items where only one run errored are the discordant pairs: ``only_a``
(A errored, B did not) and ``only_b``.  Under the null that both runs error at the same rate on
these items, ``only_b`` given ``only_a + only_b`` is Binomial(m, 1/2) (McNemar 1947); the
exact two-sided p is :func:`evaladdon.stats.paired.mcnemar.mcnemar`'s (twice the smaller tail,
capped at 1), the same test ``compare`` runs on 0/1 scores.  Oracle:
``scipy.stats.binomtest(only_b, only_a + only_b, 0.5).pvalue`` (tests/stats/test_error_rate.py),
and a seeded Monte-Carlo of the size at the 5 % level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from evaladdon.stats._base.result import Result
from evaladdon.stats.paired.mcnemar import mcnemar

__all__ = ["ErrorRateTest", "compare_error_rates"]


@dataclass(frozen=True)
class ErrorRateTest(Result):
    """Errored items of two runs on ``n`` shared items, and the exact McNemar test of the difference."""

    n: int
    errors_a: int
    errors_b: int
    only_a: int
    only_b: int
    p_value: float
    p_adjusted: float | None = None

    @property
    def rate_a(self) -> float:
        return self.errors_a / self.n if self.n else float("nan")

    @property
    def rate_b(self) -> float:
        return self.errors_b / self.n if self.n else float("nan")

    @property
    def difference(self) -> float:
        """B's error rate minus A's (positive: B errors more)."""
        return self.rate_b - self.rate_a

    def worse(self, alpha: float) -> bool:
        """Whether B errors significantly more than A at level ``alpha`` (the adjusted p when set)."""
        p = self.p_value if self.p_adjusted is None else self.p_adjusted
        return bool(self.only_b > self.only_a and p < alpha)

    def flat(self) -> dict[str, Any]:
        return {"n": self.n, "errors_a": self.errors_a, "errors_b": self.errors_b, "rate_a": self.rate_a,
                "rate_b": self.rate_b, "difference": self.difference, "only_a": self.only_a, "only_b": self.only_b,
                "test": "mcnemar-exact", "p_value": self.p_value, "p_adjusted": self.p_adjusted}


def compare_error_rates(errored_a: np.ndarray, errored_b: np.ndarray) -> ErrorRateTest:
    """:class:`ErrorRateTest` of two boolean arrays over the same shared items (errored in A, in B)."""
    a = np.asarray(errored_a, dtype=bool)
    b = np.asarray(errored_b, dtype=bool)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"errored_a and errored_b must be 1-d arrays of one length, got {a.shape} and {b.shape}")
    only_a, only_b = int((a & ~b).sum()), int((b & ~a).sum())
    return ErrorRateTest(n=int(a.size), errors_a=int(a.sum()), errors_b=int(b.sum()), only_a=only_a, only_b=only_b,
                         p_value=mcnemar(only_a, only_b).exact_p)
