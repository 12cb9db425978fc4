"""Variance decomposition of repeated runs (epochs) of the same items.

With item ``i`` run ``K_i`` times (scores ``x_ik``), following Miller (2024),
"Adding Error Bars to Evals", arXiv:2411.00640, section 2.3 (a one-way random-effects
model ``x_ik = mu + u_i + e_ik``):

- within-item variance ``sigma_w^2 = mean_i s^2_k(x_ik)`` over items with ``K_i >= 2``
  (``s^2`` with ddof 1);
- between-item variance ``omega^2 = s^2(xbar_i) - mean_i(s_i^2 / K_i)``, floored at 0,
  where ``s_i^2`` is the item's own within variance (the pooled ``sigma_w^2`` for items
  run once);
- ICC ``rho = omega^2 / (omega^2 + sigma_w^2)``;
- ``Var(p_hat) ~= (omega^2 + sigma_w^2 * mean_i(1/K_i)) / n``; with ``K`` epochs on
  ``n`` items the model SE is ``sqrt((omega^2 + sigma_w^2/K)/n)`` and no number of
  epochs takes it below the floor ``sqrt(omega^2/n)``.

Oracle in the tests: a hand computation with explicit loops over items.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base.checks import as_finite_1d
from evaladdon.stats._base.result import Result
from evaladdon.stats.cluster import codes

__all__ = ["EpochVariance", "epoch_variance", "epoch_variance_from", "item_moments"]


@dataclass(frozen=True)
class EpochVariance(Result):
    """Within/between-item variance of repeated runs, and what more runs would buy."""

    n_items: int
    n_epochs_min: int
    n_epochs_max: int
    n_items_repeated: int
    within_var: float
    between_var: float
    icc: float
    se_item: float
    se_model: float
    se_floor: float
    se_double_epochs: float
    se_double_items: float
    notes: tuple[str, ...] = ()

    def projected_se(self, n_items: int | None = None, n_epochs: float | None = None) -> float:
        """Model SE with ``n_items`` items run ``n_epochs`` times each (defaults: as observed).

        ``n_epochs=math.inf`` gives the floor that no number of epochs can cross.
        """
        n = self.n_items if n_items is None else int(n_items)
        k = float(self.n_epochs_max if n_epochs is None else n_epochs)
        if n < 1 or k <= 0:
            raise ValueError("n_items and n_epochs must be positive")
        return math.sqrt((self.between_var + self.within_var / k) / n)


def epoch_variance(values: npt.ArrayLike, items: npt.ArrayLike) -> EpochVariance:
    """Decompose the variance of repeated scores ``values`` of ``items`` (see module doc).

    Raises ``ValueError`` when no item was run at least twice (no within-item variance).
    """
    x = as_finite_1d(values)
    item_codes, n_items = codes(items, x.size, "items")
    counts, item_means, ss_within = item_moments(x, item_codes, n_items)
    repeated = counts >= 2
    if not repeated.any():
        raise ValueError("no item has two or more epochs: within-item variance is undefined")
    if n_items < 2:
        raise ValueError("need at least two items to separate between- from within-item variance")
    item_var = np.full(n_items, np.nan)
    item_var[repeated] = ss_within[repeated] / (counts[repeated] - 1.0)
    within = float(item_var[repeated].mean())
    item_var[~repeated] = within
    return epoch_variance_from(
        n_items=n_items, n_epochs_min=int(counts.min()), n_epochs_max=int(counts.max()),
        n_items_repeated=int(repeated.sum()), within=within, var_item_means=float(item_means.var(ddof=1)),
        mean_var_over_k=float(np.mean(item_var / counts)), inv_k=float(np.mean(1.0 / counts)))


def item_moments(x: np.ndarray, item_codes: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per item: epoch count ``K_i`` (float), mean ``xbar_i`` and ``sum_k (x_ik - xbar_i)^2``."""
    counts = np.bincount(item_codes, minlength=n_items).astype(float)
    item_means = np.bincount(item_codes, weights=x, minlength=n_items)
    np.divide(item_means, counts, out=item_means)  # the sums become the means in place
    dev = item_means[item_codes]  # then x - it, squared, in place: one n-element temporary, not three
    np.subtract(x, dev, out=dev)
    np.multiply(dev, dev, out=dev)
    return counts, item_means, np.bincount(item_codes, weights=dev, minlength=n_items)


def epoch_variance_from(*, n_items: int, n_epochs_min: int, n_epochs_max: int, n_items_repeated: int,
                        within: float, var_item_means: float, mean_var_over_k: float, inv_k: float) -> EpochVariance:
    """The :class:`EpochVariance` from its scalar sufficient statistics (module doc):
    ``within = sigma_w^2``, ``var_item_means = s^2(xbar_i)``, ``mean_var_over_k = mean_i s_i^2/K_i``
    (``s_i^2 = sigma_w^2`` for items run once), ``inv_k = mean_i 1/K_i``.  Shared by
    :func:`epoch_variance` and the mean computed a part at a time
    (:mod:`evaladdon.stats.mean_parts`), which sums these over parts."""
    between_raw = var_item_means - mean_var_over_k
    notes: list[str] = []
    if between_raw < 0:
        notes.append("between-item variance estimate was negative and is floored at 0")
    between = max(between_raw, 0.0)
    total = between + within
    icc = between / total if total > 0 else float("nan")
    if total == 0:
        notes.append("all scores equal: ICC undefined")
    se_model = math.sqrt((between + within * inv_k) / n_items)
    return EpochVariance(
        n_items=n_items,
        n_epochs_min=n_epochs_min,
        n_epochs_max=n_epochs_max,
        n_items_repeated=n_items_repeated,
        within_var=within,
        between_var=between,
        icc=icc,
        se_item=math.sqrt(var_item_means / n_items),
        se_model=se_model,
        se_floor=math.sqrt(between / n_items),
        se_double_epochs=math.sqrt((between + within * inv_k / 2.0) / n_items),
        se_double_items=math.sqrt((between + within * inv_k) / (2.0 * n_items)),
        notes=tuple(notes),
    )
