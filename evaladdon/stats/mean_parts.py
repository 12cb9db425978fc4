"""The mean of one run computed a part at a time, never holding all rows (issue 15).

A huge log's samples are split into parts (every item, and every cluster, wholly in one part);
:func:`estimate_mean_parts` gives the :class:`~evaladdon.stats.mean.MeanEstimate` that
:func:`~evaladdon.stats.mean.estimate_mean` gives on the concatenation, from the same scalar
sufficient statistics (:class:`~evaladdon.stats.mean.MeanStats`) and the same
:func:`~evaladdon.stats.mean.finish`, the statistics summed over parts in three passes:

1. ``max|x|`` (the power-of-two scale), the counts of rows, items, clusters and epochs, whether
   the values are 0/1; an item in two clusters is refused here.
2. ``sum x``, ``sum_i xbar_i``, the range of the item means, the epoch sums
   ``sum s_i^2``, ``sum s_i^2 / K_i`` (over repeated items), ``sum 1/K_i``, and per cluster size
   ``n_c`` (``n`` is known after pass 1): ``sum n_c^2`` and the Bell-McCaffrey sums of
   :func:`~evaladdon.stats.cluster.satterthwaite_sums`.
3. Centred sums about the global means: ``sum (x - m)^2``, ``sum (xbar_i - p)^2`` and, with
   ``S_c = sum_{i in c} (xbar_i - p)``, ``sum S_c^2`` and ``sum S_c^2 / (1 - n_c/n)``.

Sums over parts are added exactly rounded (``math.fsum`` of the parts' sums), each part's own sum
numpy's pairwise sum, so the result equals the one-array result to about 1e-15 relative (the tests ask
1e-12); SEs that are round-off of zero (all values 0.7) agree to 1e-12 of ``max|x|``, and the
zero-SE rule treats both alike.  Memory: one part's arrays and temporaries, plus a float per part per sum
(tracemalloc peak about 2.1 x one part's values+items+clusters in the tests), provided ``parts()``
keeps no reference to a part once it has yielded the next one.
Clusters spanning parts (``n_clusters`` given): the clusters are global codes ``0..n_clusters-1``
shared by all parts (items still whole in a part); the cluster sizes ``n_c`` (pass 1) and the
cluster sums ``S_c`` (pass 3) are accumulated over parts in dense arrays of ``n_clusters``
(``np.bincount`` per part added in), and the cluster sums of passes 2 and 3 are taken over the
clusters present once all parts are in (memory: three floats a cluster).
One part: :func:`estimate_mean` itself (bit-identical).  ``method="bootstrap"`` needs all
item means at once and is refused with more than one part.

Oracle in the tests: :func:`estimate_mean` on the concatenated parts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from evaladdon.stats._base.checks import as_finite_1d, is_binary, pow2_scale_of_top
from evaladdon.stats.cluster import (
    clustered_from_sums, cluster_sums, satterthwaite_df_from_sums, satterthwaite_sums,
)
from evaladdon.stats.epochs import epoch_variance_from, item_moments
from evaladdon.stats.intervals import PROPORTION_METHODS
from evaladdon.stats.mean import (
    NAN, MeanEstimate, MeanStats, check_options, estimate_mean, finish, rescaled, two_clusters_error,
)

__all__ = ["MeanPart", "estimate_mean_parts"]


@dataclass(frozen=True)
class MeanPart:
    """One part of a run's rows: finite ``values``, integer ``items`` codes local to the part
    (equal code = same item; all of an item's rows are in this part) and, when clustered,
    integer ``clusters`` codes local to the part (every cluster wholly in this part), or global
    codes ``0..n_clusters-1`` shared by all parts when ``estimate_mean_parts`` is given
    ``n_clusters``."""

    values: np.ndarray
    items: np.ndarray
    clusters: np.ndarray | None


class _Sum:
    """A sum of floats over parts: the partial sums are kept (one float a part) and added by
    ``math.fsum``, exactly rounded, so the order of the parts does not matter."""

    __slots__ = ("terms",)

    def __init__(self) -> None:
        self.terms: list[float] = []

    def add(self, v: float) -> None:
        self.terms.append(float(v))

    @property
    def value(self) -> float:
        return math.fsum(self.terms)


def _dense(labels: np.ndarray, name: str) -> tuple[np.ndarray, int]:
    """Integer codes ``0..G-1`` for a part's integer ``labels`` (any order) and ``G``: the labels
    themselves when they already are such codes, else a remap (``bincount`` for small labels,
    ``np.unique`` otherwise)."""
    arr = np.asarray(labels)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise ValueError(f"{name} of a part must be a 1-d array of integer codes")
    lo, hi = int(arr.min()), int(arr.max())
    if lo >= 0 and hi < 4 * arr.size + 1024:
        present = np.bincount(arr, minlength=hi + 1) > 0
        n = int(np.count_nonzero(present))
        if n == hi + 1:
            return arr.astype(np.int64, copy=False), n
        return (np.cumsum(present) - 1)[arr], n
    uniq, inverse = np.unique(arr, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64, copy=False), int(uniq.size)


@dataclass
class _Part:
    """A non-empty part as codes: ``x`` (divided by the scale), items, each item's cluster."""

    x: np.ndarray
    item_codes: np.ndarray
    n_items: int
    item_cluster: np.ndarray | None
    n_clusters: int


def _global_codes(labels: np.ndarray, n_clusters: int) -> tuple[np.ndarray, int]:
    """Global cluster codes as they are, checked to be integers in ``0..n_clusters-1``."""
    arr = np.asarray(labels)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise ValueError("clusters of a part must be a 1-d array of integer codes")
    if int(arr.min()) < 0 or int(arr.max()) >= n_clusters:
        raise ValueError(f"global cluster codes must lie in 0..{n_clusters - 1}")
    return arr.astype(np.int64, copy=False), n_clusters


def _read(part: MeanPart, clustered: bool, scale: float, offset: int, check: bool,
          n_global: int | None = None) -> _Part | None:
    x = as_finite_1d(part.values) if np.asarray(part.values).size else None
    if x is None:
        return None
    n = x.size
    if np.asarray(part.items).shape != (n,):
        raise ValueError(f"items of a part has shape {np.asarray(part.items).shape} for {n} values")
    item_codes, n_items = _dense(part.items, "items")
    item_cluster, n_clusters = None, 0
    if clustered:
        if part.clusters is None:
            raise ValueError("clustered parts need cluster codes in every part")
        if np.asarray(part.clusters).shape != (n,):
            raise ValueError(f"clusters of a part has shape {np.asarray(part.clusters).shape} for {n} values")
        cluster_codes, n_clusters = (_dense(part.clusters, "clusters") if n_global is None
                                     else _global_codes(part.clusters, n_global))
        if n_items == n:  # one row per item: the item means are the values in row order (_item_means)
            item_cluster = cluster_codes
        else:
            item_cluster = np.full(n_items, -1, dtype=np.int64)
            item_cluster[item_codes[::-1]] = cluster_codes[::-1]  # the first row of each item wins
            if check:
                mismatch = item_cluster[item_codes] != cluster_codes
                if mismatch.any():
                    raise two_clusters_error(offset + int(np.flatnonzero(mismatch)[0]))
    return _Part(x / scale if scale != 1.0 else x, item_codes, n_items, item_cluster, n_clusters)


def _item_moments(p: _Part) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Epoch counts, item means and within-item sums of squares (``None`` with one row per item)."""
    if p.n_items == p.x.size:
        return np.ones(p.n_items), p.x, None
    return item_moments(p.x, p.item_codes, p.n_items)


def _item_means(p: _Part) -> np.ndarray:
    """The item means alone (as :func:`_item_moments` computes them, without the squares)."""
    if p.n_items == p.x.size:
        return p.x
    means = np.bincount(p.item_codes, weights=p.x, minlength=p.n_items)
    np.divide(means, np.bincount(p.item_codes, minlength=p.n_items), out=means)
    return means


class _Counts:
    """Pass 1's tallies over parts: rows, items, clusters, epochs, ``max|x|``, whether all 0/1."""

    def __init__(self, n_global: int | None = None) -> None:
        self.sizes = None if n_global is None else np.zeros(n_global, dtype=np.int64)  # items per global cluster
        self.n_parts = self.n_rows = self.n_items = self.n_clusters = self.n_repeated = self.k_max = 0
        self.k_min: float = math.inf
        self.top = 0.0
        self.binary = True

    def add(self, p: _Part) -> None:
        self.n_parts += 1
        self.n_rows += p.x.size
        self.n_items += p.n_items
        if self.sizes is None:
            self.n_clusters += p.n_clusters
        elif p.item_cluster is not None:
            self.sizes += np.bincount(p.item_cluster, minlength=self.sizes.size)
        self.top = max(self.top, float(np.max(p.x)), -float(np.min(p.x)))
        self.binary = self.binary and is_binary(p.x)
        if p.n_items < p.x.size:
            counts = np.bincount(p.item_codes, minlength=p.n_items)
            self.k_min, self.k_max = min(self.k_min, int(counts.min())), max(self.k_max, int(counts.max()))
            self.n_repeated += int(np.count_nonzero(counts >= 2))
        else:
            self.k_min, self.k_max = min(self.k_min, 1), max(self.k_max, 1)

    def global_sizes(self) -> np.ndarray | None:
        """With global cluster codes, the sizes ``n_c`` of the clusters present (counting them in
        ``n_clusters``); None with clusters local to the parts."""
        if self.sizes is None:
            return None
        present = self.sizes > 0
        self.n_clusters = int(np.count_nonzero(present))
        return self.sizes[present].astype(float)


class _Sums:
    """Pass 2's sums over parts: ``sum x``, ``sum_i xbar_i``, the range of the item means, the epoch
    sums ``sum s_i^2``, ``sum s_i^2 / K_i`` (repeated items) and ``sum 1/K_i`` (``with_epochs``), and
    ``sum n_c^2`` with the Bell-McCaffrey sums of the cluster sizes (``part_sizes``: the sizes of
    each part's own clusters; global clusters' sizes are added once by :meth:`add_sizes`)."""

    def __init__(self, with_epochs: bool, part_sizes: bool, n_items: int) -> None:
        self.with_epochs, self.part_sizes, self.n_items = with_epochs, part_sizes, n_items
        self.x, self.xbar = _Sum(), _Sum()
        self.ep_var, self.ep_var_k, self.ep_inv_k = _Sum(), _Sum(), _Sum()
        self.sizes_sq = _Sum()
        self.satt = [_Sum() for _ in range(4)]
        self.xbar_min, self.xbar_max = math.inf, -math.inf

    def add(self, p: _Part) -> None:
        self.x.add(p.x.sum())
        counts, xbar, ss_within = _item_moments(p)
        self.xbar.add(xbar.sum())
        self.xbar_min = min(self.xbar_min, float(np.min(xbar)))
        self.xbar_max = max(self.xbar_max, float(np.max(xbar)))
        if self.with_epochs:
            self.ep_inv_k.add(np.sum(1.0 / counts))
            if ss_within is not None:
                rep = counts >= 2
                item_var = ss_within[rep] / (counts[rep] - 1.0)
                self.ep_var.add(item_var.sum())
                self.ep_var_k.add(np.sum(item_var / counts[rep]))
        if self.part_sizes:
            assert p.item_cluster is not None
            self.add_sizes(np.bincount(p.item_cluster, minlength=p.n_clusters).astype(float))

    def add_sizes(self, sizes: np.ndarray) -> None:
        """Add clusters of sizes ``sizes`` (floats) to ``sum n_c^2`` and the Satterthwaite sums."""
        self.sizes_sq.add(np.sum(sizes * sizes))
        for acc, v in zip(self.satt, satterthwaite_sums(sizes, float(self.n_items)), strict=True):
            acc.add(v)


class _Squares:
    """Pass 3's centred sums about the global means ``m`` (rows) and ``mean`` (item means):
    ``sum (x - m)^2``, ``sum (xbar_i - mean)^2`` and, with ``S_c = sum_{i in c} (xbar_i - mean)``,
    ``sum S_c^2`` and ``sum S_c^2 / (1 - n_c/n)``; global clusters' ``S_c`` are accumulated in
    ``g_sums`` over parts and summed by :meth:`add_global` once all parts are in."""

    def __init__(self, m: float, mean: float, n_items: int, many_clusters: bool, n_global: int | None) -> None:
        self.m, self.mean, self.n_items, self.many_clusters = m, mean, n_items, many_clusters
        self.x, self.xbar, self.cl, self.cr2 = _Sum(), _Sum(), _Sum(), _Sum()
        self.g_sums = np.zeros(n_global) if many_clusters and n_global is not None else None  # S_c over parts

    def add(self, p: _Part) -> None:
        d = p.x - self.m
        self.x.add(np.dot(d, d))
        del d
        xbar = _item_means(p)
        e = xbar - self.mean
        self.xbar.add(np.dot(e, e))
        del e
        if self.g_sums is not None:
            assert p.item_cluster is not None
            self.g_sums[:] += cluster_sums(xbar, p.item_cluster, self.g_sums.size, center=self.mean)[0]
        elif self.many_clusters:
            assert p.item_cluster is not None
            s_c, sizes = cluster_sums(xbar, p.item_cluster, p.n_clusters, center=self.mean)
            self.cl.add(np.sum(s_c * s_c))
            self.cr2.add(np.sum(s_c * s_c / (1.0 - sizes / self.n_items)))

    def add_global(self, present: np.ndarray, g_sizes: np.ndarray) -> None:
        """Add the global clusters' ``S_c`` (those ``present``, of sizes ``g_sizes``)."""
        assert self.g_sums is not None
        s_c = self.g_sums[present]
        self.cl.add(np.sum(s_c * s_c))
        self.cr2.add(np.sum(s_c * s_c / (1.0 - g_sizes / self.n_items)))


def estimate_mean_parts(
    parts: Callable[[], Iterable[MeanPart]],
    *,
    clustered: bool,
    level: float = 0.95,
    method: str = "auto",
    cluster_method: str = "cr2",
    n_clusters: int | None = None,
) -> MeanEstimate:
    """:func:`~evaladdon.stats.mean.estimate_mean` of the concatenated parts (items, and clusters
    when ``clustered``, made global), computed a part at a time in three calls of ``parts()``
    (module doc).  Empty parts are skipped; no rows at all raise estimate_mean's ``ValueError``;
    ``method="bootstrap"`` with more than one non-empty part raises ``ValueError``.  With
    ``n_clusters``, the parts' cluster codes are global (``0..n_clusters-1``, a cluster may span
    parts; items are still whole in a part): module doc."""
    level, method = check_options(level, method, cluster_method)
    n_global = n_clusters if clustered else None
    if n_global is not None and (isinstance(n_global, bool) or not isinstance(n_global, int) or n_global < 1):
        raise ValueError(f"n_clusters must be a positive integer, not {n_global!r}")

    def each(visit: Callable[[_Part], None], scale: float = 1.0, check: bool = False) -> None:
        """One pass: ``visit`` each non-empty part; no reference to a part outlives its visit (the
        next part is read only when the previous one can be freed)."""
        offset = 0
        for part in parts():
            p = _read(part, clustered, scale, offset, check, n_global)
            del part
            if p is not None:
                offset += p.x.size
                visit(p)
            del p

    # pass 1: scale, counts, 0/1, the item-in-two-clusters check
    c = _Counts(n_global)
    each(c.add, check=True)
    g_sizes = c.global_sizes()
    if c.n_parts == 0:
        return estimate_mean(np.empty(0))  # raises estimate_mean's own refusal of empty input
    if c.n_parts == 1:
        only = next(part for part in parts() if np.asarray(part.values).size)
        return estimate_mean(only.values, only.items, only.clusters if clustered else None,
                             level=level, method=method, cluster_method=cluster_method)
    if method == "bootstrap":
        raise ValueError(f"the bootstrap interval needs all item means at once; these rows come in {c.n_parts} "
                         "parts: use the in-memory path, or t")
    scale = pow2_scale_of_top(c.top)
    many_clusters = clustered and c.n_clusters >= 2

    # pass 2: sums, the range of the item means, epoch sums, cluster-size sums
    sums = _Sums(c.k_max >= 2 and c.n_items >= 2, many_clusters and g_sizes is None, c.n_items)
    each(sums.add, scale)
    if many_clusters and g_sizes is not None:
        sums.add_sizes(g_sizes)

    # pass 3: sums of squares about the global means, cluster sums S_c
    sq = _Squares(sums.x.value / c.n_rows, sums.xbar.value / c.n_items, c.n_items, many_clusters, n_global)
    each(sq.add, scale)
    if sq.g_sums is not None and g_sizes is not None:
        assert c.sizes is not None  # (clusters spanning parts: their sizes were counted)
        sq.add_global(c.sizes > 0, g_sizes)

    est = finish(_stats(c, sums, sq, clustered, method), level, method, cluster_method)
    return est if scale == 1.0 else rescaled(est, scale)


def _stats(c: _Counts, sums: _Sums, sq: _Squares, clustered: bool, method: str) -> MeanStats:
    """The :class:`~evaladdon.stats.mean.MeanStats` from the three passes' tallies: the SEs
    ``sqrt(ss / (N - 1)) / sqrt(N)``, the epoch decomposition and the clustered SEs from sums."""
    n_rows, n_items, n_clusters, k_max = c.n_rows, c.n_items, c.n_clusters, c.k_max
    many_clusters = clustered and n_clusters >= 2
    mean = sq.mean
    var_xbar = sq.xbar.value / (n_items - 1) if n_items > 1 else NAN
    epoch_var = None
    if sums.with_epochs:
        within = sums.ep_var.value / c.n_repeated
        epoch_var = epoch_variance_from(
            n_items=n_items, n_epochs_min=int(c.k_min), n_epochs_max=k_max, n_items_repeated=c.n_repeated,
            within=within, var_item_means=var_xbar,
            mean_var_over_k=(sums.ep_var_k.value + within * (n_items - c.n_repeated)) / n_items,
            inv_k=sums.ep_inv_k.value / n_items)
    cl = None
    if clustered:
        s1, s2, s3, s4 = (a.value for a in sums.satt)
        df_cr2 = satterthwaite_df_from_sums((s1, s2, s3, s4), float(n_items)) if many_clusters else NAN
        cl = clustered_from_sums(mean, n_items, n_clusters, sq.cl.value, sq.cr2.value, df_cr2)
    successes = None
    if c.binary and k_max == 1 and not clustered and (method == "auto" or method in PROPORTION_METHODS):
        successes = int(round(sums.x.value))
    return MeanStats(
        n_rows=n_rows, n_items=n_items, n_epochs_min=int(c.k_min), n_epochs_max=k_max, mean=mean,
        se_naive=math.sqrt(sq.x.value / (n_rows - 1)) / math.sqrt(n_rows) if n_rows > 1 else NAN,
        se_item=math.sqrt(var_xbar) / math.sqrt(n_items) if n_items > 1 else NAN,
        xbar_min=sums.xbar_min, xbar_max=sums.xbar_max, binary=c.binary, successes=successes, epoch_var=epoch_var,
        clustered=cl, sizes_sq=sums.sizes_sq.value if many_clusters else None)
