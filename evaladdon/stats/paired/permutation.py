"""Paired sign-flip permutation test of a mean difference (Fisher 1935; Good 2005, ch. 3).

Under H0 each independent unit's difference is symmetric about 0, so its sign can be
flipped.  Units are items, or clusters (whose summed differences are flipped together).
Statistic: ``|sum of unit differences|``.  Units with difference 0 are left out (their sign
does not matter).  With at most ``exact_max`` non-zero units every sign pattern is
enumerated (exact p); otherwise a seeded Monte Carlo with ``p = (1 + hits)/(1 + B)``
(Phipson & Smyth 2010), which keeps the size at most nominal.
Oracle in the tests: ``scipy.stats.permutation_test(..., permutation_type="samples")``
and a brute-force enumeration.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import as_finite_1d, codes, whole
from evaladdon.stats._base.result import Result

__all__ = ["PermutationResult", "sign_flip_test"]


@dataclass(frozen=True)
class PermutationResult(Result):
    statistic: float
    p_value: float
    n_units: int
    n_nonzero: int
    exact: bool
    n_permutations: int
    seed: int | None


def sign_flip_test(
    differences: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    *,
    n_permutations: int = 10_000,
    exact_max: int = 18,
    seed: int | None = 0,
    batch_cells: int = 5_000_000,
) -> PermutationResult:
    """Two-sided sign-flip test that the mean paired difference is 0 (see module doc)."""
    n_permutations = whole(n_permutations, "n_permutations", 1)
    exact_max = whole(exact_max, "exact_max", 0)
    if exact_max > 30:
        raise ValueError(f"exact_max must be at most 30 (2^exact_max sign patterns), got {exact_max}")
    d = as_finite_1d(differences, "differences")
    unit_codes, n_units = codes(clusters, d.size, "clusters")
    units = np.bincount(unit_codes, weights=d, minlength=n_units)
    scale = float(np.abs(units).max()) if units.size else 0.0
    nonzero = units[np.abs(units) > 1e-12 * max(scale, 1.0)]
    m = nonzero.size
    observed = float(abs(nonzero.sum()))
    tol = 1e-9 * max(scale, 1.0)
    if m == 0:
        return PermutationResult(observed, 1.0, n_units, 0, True, 1, seed)
    if m <= exact_max:
        patterns = np.arange(2**m, dtype=np.int64)[:, None] >> np.arange(m, dtype=np.int64)
        signs = 1.0 - 2.0 * (patterns & 1)
        stats = np.abs(signs @ nonzero)
        p = float(np.mean(stats >= observed - tol))
        return PermutationResult(observed, p, n_units, m, True, int(2**m), seed)
    rng = np.random.default_rng(seed)
    hits = 0
    batch = max(1, batch_cells // m)
    for start in range(0, n_permutations, batch):  # batches of permutations, vectorised within
        b = min(batch, n_permutations - start)
        flips = rng.integers(0, 2, size=(b, m), dtype=np.int8) * 2 - 1
        hits += int(np.sum(np.abs(flips @ nonzero) >= observed - tol))
    p = (1.0 + hits) / (1.0 + n_permutations)
    return PermutationResult(observed, float(p), n_units, m, False, int(n_permutations), seed)
