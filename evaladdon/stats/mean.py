"""The mean score of one run, with its standard error at the right unit.

Design (Miller 2024, arXiv:2411.00640, sections 2.1-2.3):

1. Average epochs within an item first: ``xbar_i = mean_k x_ik``.  Items (or clusters
   of items) are the independent units, epochs are not.
2. ``p_hat = mean_i xbar_i``.
3. ``se_naive`` = ``s(x_ik)/sqrt(N)`` over all ``N`` rows as if independent (shown only to
   say how far it is off); ``se_item = s(xbar)/sqrt(n)``; ``se_cluster`` = CR1 sandwich
   with ``C/(C-1)`` (t on ``C - 1`` df) and ``se_cluster_cr2`` = Bell-McCaffrey CR2 with
   Satterthwaite df (:mod:`evaladdon.stats.cluster`).
4. ``deff = se^2 / se_item^2`` (``se`` the clustered SE used), ``n_eff = n / deff``; the
   intra-cluster correlation from ``deff = 1 + (m~ - 1) icc`` with the size-weighted mean
   cluster size ``m~ = sum n_c^2 / n`` (Kish 1965; exact for equal sizes, the usual
   approximation otherwise).  The ICC is kept in its possible range ``[-1/(m~ - 1), 1]``;
   when the SE ratio implies more (few clusters: the small-sample factors exceed the
   largest design effect ``m~``), icc = 1, deff = m~ and n_eff = n/m~, with a note.
5. Interval: Wilson for 0/1 scores with one epoch and no clusters (Brown, Cai & DasGupta
   2001), a t interval otherwise (``n - 1`` df, or the cluster df: CR2 with the
   Bell-McCaffrey df by default, CR1 with ``C - 1`` df on request); the caller may choose
   any proportion method (0/1, one epoch, no clusters only), ``t`` or a cluster
   ``bootstrap``.  An estimated SE of zero (or round-off) never gives a zero-width
   interval: :mod:`evaladdon.stats.zero_se` (Wilson on the units for values in [0, 1]).
6. Values near the float limit are divided by a power of two first (exact), so two scores
   of 1e308 have mean 1e308, not inf.

The code: :func:`estimate_mean` computes the scalar sufficient statistics
(:class:`MeanStats`) from whole arrays and :func:`finish` builds the result from them;
:mod:`evaladdon.stats.mean_parts` sums the same statistics over parts of a huge log.

Oracles in the tests: statsmodels ``OLS(...).fit(cov_type="cluster")`` for CR1, dense
Bell-McCaffrey algebra for CR2, hand computation for everything else.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import numpy.typing as npt

from evaladdon.stats._base import zero_se
from evaladdon.stats._base.checks import as_finite_1d, check_level, is_binary, pow2_scale, whole
from evaladdon.stats._base.result import Interval, IntervalResult, ci_bounds, holds_interval
from evaladdon.stats.resampling import bootstrap_mean
from evaladdon.stats.cluster import ClusteredSE, clustered_se, codes, cr1_note
from evaladdon.stats.epochs import EpochVariance, epoch_variance
from evaladdon.stats.intervals import PROPORTION_METHODS, proportion_interval, t_bounds

__all__ = [
    "MEAN_METHODS", "MeanEstimate", "MeanStats", "check_options", "estimate_mean", "finish", "rescaled",
    "two_clusters_error",
]

MEAN_METHODS: tuple[str, ...] = ("auto", "t", "bootstrap", *PROPORTION_METHODS)

NAN = float("nan")


@holds_interval
class MeanEstimate(IntervalResult):
    """One run's mean with every standard error worth showing; see the module doc.

    ``se`` is the one the interval uses: ``se_cluster`` (or ``se_cluster_cr2`` when
    ``cluster_method="cr2"``) with clusters, else ``se_item``.  ``notes`` says why any
    field is NaN (one item, one cluster, zero variance).
    """

    _ci_of = ("mean", "method")
    mean: float
    se: float
    ci_low: float
    ci_high: float
    ci: Interval = field(init=False, metadata=ci_bounds())
    level: float
    method: str
    df: float
    n_rows: int
    n_items: int
    n_epochs_min: int
    n_epochs_max: int
    n_clusters: int | None
    se_naive: float
    se_item: float
    se_cluster: float | None
    se_cluster_cr2: float | None
    df_cluster_cr2: float | None
    deff: float | None
    icc: float | None
    n_eff: float | None
    icc_epochs: float | None
    binary: bool
    epoch_variance: EpochVariance | None
    notes: tuple[str, ...] = ()


def _item_means(x: np.ndarray, item_codes: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-item means and row counts.  With as many items as rows (one epoch, the usual long
    table) the first-appearance codes are ``0..n-1``: each item's mean is its row's value
    (``x / 1`` is ``x`` exactly), so no three n-element temporaries are made."""
    if n_items == x.size:
        return x, np.ones(n_items, dtype=np.int8)
    counts = np.bincount(item_codes, minlength=n_items)
    sums = np.bincount(item_codes, weights=x, minlength=n_items)
    return sums / counts, counts


def _cluster_of_items(
    clusters: npt.ArrayLike, item_codes: np.ndarray, n_items: int, n_rows: int
) -> np.ndarray:
    """One cluster label per item; refuses items whose rows disagree on the cluster."""
    cluster_codes, _ = codes(clusters, n_rows, "clusters")
    if n_items == n_rows:  # one row per item, in row order (see _item_means): nothing can disagree
        return cluster_codes
    first = np.full(n_items, -1, dtype=np.int64)
    # first occurrence of each item (reverse assignment keeps the first)
    first[item_codes[::-1]] = cluster_codes[::-1]
    mismatch = first[item_codes] != cluster_codes
    if mismatch.any():
        raise two_clusters_error(int(np.flatnonzero(mismatch)[0]))
    return first


def two_clusters_error(row: int) -> ValueError:
    """The refusal of an item whose rows disagree on the cluster (``row``: the first such row)."""
    return ValueError(f"an item lies in two clusters (row {row}); a cluster label must be constant within an item")


def estimate_mean(
    values: npt.ArrayLike,
    items: npt.ArrayLike | None = None,
    clusters: npt.ArrayLike | None = None,
    *,
    epochs: npt.ArrayLike | None = None,
    level: float = 0.95,
    method: str = "auto",
    cluster_method: str = "cr2",
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> MeanEstimate:
    """Mean of ``values`` with SEs at the item and cluster level (see module docstring).

    ``items`` labels the item of each value (``None``: every value its own item, one
    epoch); ``clusters`` the cluster of each value (constant within an item); ``epochs``,
    if given, is only checked: an (item, epoch) pair may occur once.  ``cluster_method``
    is ``"cr2"`` (default: Bell-McCaffrey SE, Satterthwaite df) or ``"cr1"``.

    Degenerate input: empty, 2-d or non-finite values, or an item in two clusters, raise
    ``ValueError``.  One item gives NaN SEs (a Wilson interval still exists for 0/1);
    one cluster gives NaN cluster SEs and interval; an SE of zero gives the fallback
    interval of :mod:`evaladdon.stats.zero_se`; each of these is said in ``notes``.
    """
    level, method = check_options(level, method, cluster_method)
    if method == "bootstrap":
        n_resamples = whole(n_resamples, "n_resamples", 1)
    x = as_finite_1d(values)
    scale = pow2_scale(x)
    est = _estimate(x / scale if scale != 1.0 else x, items, clusters, epochs, level, method, cluster_method,
                    n_resamples, seed, is_binary(x))
    return est if scale == 1.0 else rescaled(est, scale)


def check_options(level: float, method: str, cluster_method: str) -> tuple[float, str]:
    """The checked ``level`` and normalised ``method`` (one-line ``ValueError`` otherwise)."""
    level = check_level(level)
    method = method.lower().replace("_", "-")
    if method not in MEAN_METHODS:
        raise ValueError(f"unknown interval method {method!r}; choose one of {', '.join(MEAN_METHODS)}")
    if cluster_method not in ("cr1", "cr2"):
        raise ValueError(f"cluster_method must be 'cr1' or 'cr2', got {cluster_method!r}")
    return level, method


def rescaled(e: MeanEstimate, s: float) -> MeanEstimate:
    """``e`` computed on values divided by ``s``, put back on the values' own scale."""
    def lin(v: float | None) -> float | None:
        return None if v is None else v * s

    ev = e.epoch_variance
    if ev is not None:
        ev = dataclasses.replace(
            ev, within_var=ev.within_var * s * s, between_var=ev.between_var * s * s, se_item=ev.se_item * s,
            se_model=ev.se_model * s, se_floor=ev.se_floor * s, se_double_epochs=ev.se_double_epochs * s,
            se_double_items=ev.se_double_items * s)
    return dataclasses.replace(
        e, mean=e.mean * s, se=e.se * s, ci_low=e.ci_low * s, ci_high=e.ci_high * s, se_naive=e.se_naive * s,
        se_item=e.se_item * s, se_cluster=lin(e.se_cluster), se_cluster_cr2=lin(e.se_cluster_cr2),
        epoch_variance=ev, notes=(*e.notes, f"values were scaled by 2^-{int(math.log2(s))} to avoid overflow"))


@dataclass(frozen=True)
class MeanStats:
    """The scalar sufficient statistics :func:`finish` builds a :class:`MeanEstimate` from
    (values already divided by the power-of-two scale): counts, ``p_hat``, the naive and item
    SEs, the range of the item means (zero-SE rule), the 0/1 successes (proportion intervals;
    ``None`` when none can be asked), the epoch decomposition, the clustered SEs and
    ``sum_c n_c^2`` (the Kish cluster size ``m~``).  :func:`estimate_mean` computes them from
    whole arrays, :func:`evaladdon.stats.mean_parts.estimate_mean_parts` a part at a time."""

    n_rows: int
    n_items: int
    n_epochs_min: int
    n_epochs_max: int
    mean: float
    se_naive: float
    se_item: float
    xbar_min: float
    xbar_max: float
    binary: bool
    successes: int | None
    epoch_var: EpochVariance | None
    clustered: ClusteredSE | None
    sizes_sq: float | None


def _estimate(
    x: np.ndarray,
    items: npt.ArrayLike | None,
    clusters: npt.ArrayLike | None,
    epochs: npt.ArrayLike | None,
    level: float,
    method: str,
    cluster_method: str,
    n_resamples: int,
    seed: int | None,
    binary: bool,
) -> MeanEstimate:
    n_rows = x.size
    item_codes, n_items = codes(items, n_rows, "items")
    if epochs is not None:
        epoch_codes, _ = codes(epochs, n_rows, "epochs")
        pair = item_codes.astype(np.int64) * (int(epoch_codes.max()) + 1) + epoch_codes
        if np.unique(pair).size != n_rows:
            raise ValueError("an (item, epoch) pair occurs more than once")
    xbar, counts = _item_means(x, item_codes, n_items)
    mean = float(xbar.mean())
    se_naive = float(x.std(ddof=1) / math.sqrt(n_rows)) if n_rows > 1 else NAN
    se_item = float(xbar.std(ddof=1) / math.sqrt(n_items)) if n_items > 1 else NAN
    k_max = int(counts.max())
    epoch_var = epoch_variance(x, item_codes) if k_max >= 2 and n_items >= 2 else None

    cl: ClusteredSE | None = None
    item_cluster: np.ndarray | None = None
    sizes_sq = None
    if clusters is not None:
        item_cluster = _cluster_of_items(clusters, item_codes, n_items, n_rows)
        cl = clustered_se(xbar, item_cluster)
        if cl.n_clusters >= 2:
            sizes = np.bincount(item_cluster).astype(float)
            sizes_sq = np.sum(sizes * sizes)
    successes = None
    if binary and k_max == 1 and cl is None and (method == "auto" or method in PROPORTION_METHODS):
        successes = int(round(x.sum()))
    stats = MeanStats(
        n_rows=n_rows, n_items=n_items, n_epochs_min=int(counts.min()), n_epochs_max=k_max, mean=mean,
        se_naive=se_naive, se_item=se_item, xbar_min=float(np.min(xbar)), xbar_max=float(np.max(xbar)),
        binary=binary, successes=successes, epoch_var=epoch_var, clustered=cl, sizes_sq=sizes_sq)

    def bootstrap() -> tuple[float, float, str]:
        bs = bootstrap_mean(xbar, item_cluster, n_resamples=n_resamples, level=level, seed=seed)
        return bs.low, bs.high, f"percentile bootstrap over {bs.n_units} units, {n_resamples} resamples, seed {seed}"

    return finish(stats, level, method, cluster_method, bootstrap)


def finish(st: MeanStats, level: float, method: str, cluster_method: str,
           bootstrap: Callable[[], tuple[float, float, str]] | None = None) -> MeanEstimate:
    """The :class:`MeanEstimate` from its sufficient statistics ``st`` (module doc, steps 3-5):
    notes, design effect and ICC, the zero-SE fallback and the interval.  ``bootstrap``
    (``method="bootstrap"`` only) gives ``(low, high, note)`` of the cluster bootstrap."""
    n_items, n_rows, se_item, mean, binary = st.n_items, st.n_rows, st.se_item, st.mean, st.binary
    cl = st.clustered
    notes: list[str] = []
    if n_items == 1:
        notes.append("one item: no standard error exists")

    se_cluster = se_cr2 = df_cr2 = None
    n_clusters: int | None = None
    if cl is not None:
        n_clusters = cl.n_clusters
        se_cluster, se_cr2, df_cr2 = cl.se_cr1, cl.se_cr2, cl.df_cr2
        notes.extend(cl.notes)
        if cluster_method == "cr1":
            warn = cr1_note(cl.n_clusters, cl.df_cr2)
            if warn:
                notes.append(warn)
        se, df = (cl.se_cr2, cl.df_cr2) if cluster_method == "cr2" else (cl.se_cr1, cl.df_cr1)
    else:
        se, df = se_item, float(n_items - 1)
    se_zero = zero_se.se_is_zero_at(se, max(st.xbar_max, -st.xbar_min))
    deff, icc, n_eff = _design_effect(st, se, se_zero, notes)
    chosen, low, high = _interval(st, level, method, se, df, se_zero, bootstrap, notes)

    epoch_var = st.epoch_var
    return MeanEstimate(
        mean=mean,
        se=float(se),
        ci_low=float(low),
        ci_high=float(high),
        level=level,
        method=chosen if chosen != "t" or cl is None else f"t-cluster-{cluster_method}",
        df=float(df),
        n_rows=n_rows,
        n_items=n_items,
        n_epochs_min=st.n_epochs_min,
        n_epochs_max=st.n_epochs_max,
        n_clusters=n_clusters,
        se_naive=st.se_naive,
        se_item=se_item,
        se_cluster=se_cluster,
        se_cluster_cr2=se_cr2,
        df_cluster_cr2=df_cr2,
        deff=deff,
        icc=icc,
        n_eff=n_eff,
        icc_epochs=epoch_var.icc if epoch_var is not None else None,
        binary=binary,
        epoch_variance=epoch_var,
        notes=tuple(notes),
    )


def _design_effect(st: MeanStats, se: float, se_zero: bool,
                   notes: list[str]) -> tuple[float | None, float | None, float | None]:
    """``deff = se^2 / se_item^2``, the ICC from ``deff = 1 + (m~ - 1) icc`` (``m~ = sum n_c^2 / n``,
    Kish 1965) kept in its range, and ``n_eff = n / deff`` (module doc, step 4); None without at
    least two clusters and a positive item SE.  Says in ``notes`` what is undefined or capped."""
    cl, n_items, se_item = st.clustered, st.n_items, st.se_item
    if cl is None or cl.n_clusters < 2 or not (se_item and se_item > 0):
        return None, None, None
    assert st.sizes_sq is not None
    m_tilde = float(st.sizes_sq / n_items)
    if se_zero:
        notes.append("the clustered SE is 0: the design effect and ICC are undefined")
        return NAN, NAN, NAN
    deff = (se / se_item) ** 2
    if m_tilde <= 1.0:
        notes.append("singleton clusters: the intra-cluster correlation is undefined")
        return deff, NAN, n_items / deff
    icc = (deff - 1.0) / (m_tilde - 1.0)
    if icc > 1.0:
        notes.append(
            f"the clustered variance is {deff:.3g} x the item variance, more than any within-cluster "
            f"correlation explains (at most {m_tilde:.3g} x with these cluster sizes; few clusters): "
            "icc reported as 1, deff as its maximum")
        icc, deff = 1.0, m_tilde
    return deff, icc, n_items / deff


def _interval(st: MeanStats, level: float, method: str, se: float, df: float, se_zero: bool,
              bootstrap: Callable[[], tuple[float, float, str]] | None,
              notes: list[str]) -> tuple[str, float, float]:
    """The interval's method and bounds (module doc, step 5): a proportion interval (0/1, one
    epoch, no clusters), the zero-SE fallback, the cluster bootstrap, or ``t`` (clipped to [0, 1]
    for 0/1 scores)."""
    cl = st.clustered
    chosen = method
    proportion_ok = st.binary and st.n_epochs_max == 1 and cl is None
    if method == "auto":
        chosen = "wilson" if proportion_ok else "t"
    if chosen in PROPORTION_METHODS:
        if not proportion_ok:
            raise ValueError(
                f"the {chosen} interval is for 0/1 scores with one epoch and no clusters; use t or bootstrap"
            )
        assert st.successes is not None
        pi = proportion_interval(st.successes, st.n_rows, chosen, level)
        return chosen, pi.low, pi.high
    if se_zero:
        return _zero_se_interval(st, level, notes)
    if chosen == "bootstrap":
        if st.n_items < 2 or (cl is not None and cl.n_clusters < 2):
            return chosen, NAN, NAN
        if bootstrap is None:
            raise ValueError("the bootstrap interval needs all item means at once")
        low, high, note = bootstrap()
        notes.append(note)
        return chosen, low, high
    low, high = t_bounds(st.mean, se, df, level)
    if st.binary and not math.isnan(low):
        low, high = max(low, 0.0), min(high, 1.0)
    return chosen, low, high


def _zero_se_interval(st: MeanStats, level: float, notes: list[str]) -> tuple[str, float, float]:
    """The interval when the estimated SE is zero (:mod:`evaladdon.stats.zero_se`): Wilson's on the
    units (clusters, else items) for item means in [0, 1], else none; said in ``notes``."""
    n_clusters = None if st.clustered is None else st.clustered.n_clusters
    n_units = n_clusters if n_clusters is not None else st.n_items
    units = zero_se.unit_word(n_units, n_clusters is not None)
    if st.xbar_min >= 0.0 and st.xbar_max <= 1.0:
        low, high = zero_se.bounded_interval(st.mean, n_units, level)
        notes.append(f"the estimated SE is 0: the interval is the Wilson score interval of a [0, 1] mean "
                     f"on the {units} as units (zero-SE fallback), not a t interval of width 0")
        return f"zero-se-wilson-{'clusters' if n_clusters is not None else 'items'}", low, high
    notes.append(f"the estimated SE is 0 and the values are not bounded in [0, 1]: no interval can be "
                 f"estimated from {units} that all agree")
    return "none", NAN, NAN
