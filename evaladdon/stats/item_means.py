"""Per-item means over epochs for pairing two runs, on integer codes.

``compare`` pairs runs on item means (each item's epochs averaged).  The mean is a
Kahan-compensated sum taken in row order, divided by the count: the algorithm of pandas'
``groupby(...).mean()`` (``pandas._libs.groupby.group_mean``; Kahan, "Further remarks on
reducing truncation errors", CACM 8(1), 1965), which the table path used before, so every
paired number stays what it was to the last bit.  Vectorised over items: the k-th row of every
item is added at once, k = 1 .. the largest number of epochs (a handful), so there is no Python
loop per row.  Oracle: pandas' group-by mean, bit for bit (``tests/stats/test_item_table.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ItemTable", "item_table"]


@dataclass(frozen=True)
class ItemTable:
    """Per item (in order of first appearance): the row of its first appearance, the mean of
    its values over epochs and its number of rows."""

    first: np.ndarray
    mean: np.ndarray
    n_rows: np.ndarray


def item_table(codes: np.ndarray, values: np.ndarray) -> ItemTable:
    """Item means of ``values`` grouped by ``codes`` (int codes 0..K-1 in order of first
    appearance, as ``pd.factorize`` gives), each a Kahan-compensated sum in row order over
    the count (finite values: no row is skipped)."""
    codes = np.asarray(codes, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    n = len(codes)
    if n and int(codes[0]) == 0 and int(codes[-1]) == n - 1 and bool((codes[1:] > codes[:-1]).all()):
        # codes 0..n-1 in order (one row per item, the usual long table): each row its own item
        # (the branch below without its bincount, minimum.at and scatter of 10M rows)
        return ItemTable(np.arange(n, dtype=np.int64), values + 0.0, np.ones(n, dtype=np.int64))
    k = int(codes.max()) + 1 if n else 0
    counts = np.bincount(codes, minlength=k)
    first = np.full(k, n, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(n, dtype=np.int64))
    if n == k:  # one row per item: the mean is (0 + x) / 1 (+ 0.0 as there: -0.0 becomes 0.0)
        mean = np.empty(k)
        mean[codes] = values
        return ItemTable(first, mean + 0.0, counts)
    order = np.argsort(codes, kind="stable")  # each item's rows, in row order
    starts = np.cumsum(counts) - counts
    total = np.zeros(k)
    compensation = np.zeros(k)
    for r in range(int(counts.max())):
        at = order[starts[counts > r] + r]  # the r-th row of every item that has one
        lab = codes[at]
        y = values[at] - compensation[lab]
        t = total[lab] + y
        compensation[lab] = (t - total[lab]) - y
        total[lab] = t
    return ItemTable(first, total / counts, counts)
