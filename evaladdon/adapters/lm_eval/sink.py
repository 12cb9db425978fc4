"""What one pass over lm-eval sample records grows (:class:`_Sink`), and the steps its paths share.

The record pass of :func:`~evaladdon.adapters.lm_eval.samples._extract` has three ways of reading
a record -- the general loop, the fast loop (:func:`~evaladdon.adapters.lm_eval.samples._read_fast`)
and, for a small file typed in one call, whole columns at once (:mod:`.columns`) -- and all three
fill one :class:`_Sink` with the same steps: a metric's row name (:func:`_metric_of`), a run of
rows (:func:`_close_run`), a batch of multiple-choice records (:func:`_lls_or_none`,
:func:`_gold_of`, :func:`_flush`).  Here so that :mod:`.samples` and :mod:`.columns` share them
without importing each other.
"""

from __future__ import annotations

from itertools import chain, repeat
from operator import itemgetter
from typing import Any

import numpy as np

_FIRST = itemgetter(0)
_SCALARS = frozenset((str, int, float, bool))
"""Types of a usable cluster value among those JSON parsers give (not None, dict or list)."""


def _metric_of(name: Any, filt: str, metric_key: dict[str, dict[str, str]]) -> str:
    """``name,filter`` (or the name alone for an empty filter), cached per (filter, name) as in
    the general loop of :func:`~evaladdon.adapters.lm_eval.samples._extract`."""
    keys = metric_key.get(filt)
    if keys is None:
        keys = metric_key[filt] = {}
    metric = keys.get(name) if type(name) is str else None
    if metric is None:
        metric = f"{name},{filt}" if filt else str(name)
        if type(name) is str:
            keys[name] = metric
    return metric


def _lls_or_none(frs: list[list[Any]]) -> np.ndarray | None:
    """Log-likelihoods (R, k) of multiple-choice records with k choices each, when every
    entry is a ``[float, x]`` pair -- the values :func:`~evaladdon.adapters.lm_eval.choices._block_lls` gives them by either of
    its paths, whatever other records share their block (both read a pair's log-likelihood
    alone when it is a float; ``x``, is_greedy, is never used) -- else None."""
    n, k = len(frs), len(frs[0])
    if list(map(len, frs)).count(k) != n:  # C-level passes; counting is cheaper than a set
        return None
    entries = list(chain.from_iterable(frs))
    m = n * k
    if list(map(type, entries)).count(list) != m or list(map(len, entries)).count(2) != m:
        return None
    x0 = list(map(_FIRST, entries))
    if list(map(type, x0)).count(float) != m:
        return None
    return np.array(x0, dtype=np.float64).reshape(n, k)


class _Sink:
    """The columns one pass over sample records
    (:func:`~evaladdon.adapters.lm_eval.samples._extract`) grows, shared by its paths: per record its doc id, hash and cluster value; per row its record index,
    metric, epoch and value as logged (``recs``, ``metrics_l``, ``epochs``, ``raw``) or, for
    consecutive fast records of one metric and filter, a run; the multiple-choice records."""

    __slots__ = ("blocks", "clusters", "doc_ids", "epochs", "hashes", "info", "mc", "metric_key", "metrics_l",
                 "pending", "plain", "raw", "recs", "runs")

    def __init__(self) -> None:
        self.doc_ids: list[Any] = []
        self.hashes: list[Any] = []
        self.clusters: list[Any] = []
        self.recs: list[int] = []  # per row: record index, metric, epoch, value as logged
        self.metrics_l: list[str] = []
        self.epochs: list[int] = []
        self.raw: list[Any] = []
        # consecutive fast records of one metric and filter make one row each: kept as runs
        # (first record, count, metric, position in the per-row lists), not as three list entries
        # a row (no int object per row, fewer lists growing in memory)
        self.runs: list[tuple[int, int, str, int]] = []
        # multiple-choice records of the general loop: index, filtered_resps, choice lengths (or None), gold (-1: unknown)
        self.mc: tuple[list[int], list[list[Any]], list[list[int] | None], list[int]] = ([], [], [], [])
        self.blocks: list[tuple[np.ndarray, np.ndarray, list[Any] | None, np.ndarray]] = []  # fast batches' (see _fill_...)
        self.pending: tuple[list[int], list[Any], list[int]] = ([], [], [])  # the fast path's multiple-choice records
        self.metric_key: dict[str, dict[str, str]] = {}  # filter -> name -> "name,filter", built once
        self.info: dict[str, Any] = {"extra_filters": False, "has_repeats": False, "mc": 0, "mc_no_label": 0,
                                     "int_ids": True, "metric_keys": set()}
        self.plain = 0  # fast records with an int doc id, a str hash, a float value (and a str cluster value)


def _close_run(sink: _Sink, start: int, end: int, metric: str, min_run: int) -> None:
    """The fast path's run of rows from record ``start`` to ``end`` - 1 (one row each, of
    ``metric``, epoch 1) kept as a run, or as plain rows when shorter than ``min_run``."""
    n = end - start
    if n >= min_run:
        sink.runs.append((start, n, metric, len(sink.recs)))
    elif n > 0:  # short runs (alternating filters) as plain rows: a bounded number of runs
        sink.recs.extend(range(start, end))
        sink.metrics_l.extend(repeat(metric, n))
        sink.epochs.extend(repeat(1, n))


def _gold_of(targets: Any, k: int) -> np.ndarray:
    """Gold indices of multiple-choice records with ``k`` choices from their int targets: the
    target where it is a choice (0 <= target < k), else -1."""
    try:
        gold = np.asarray(targets, dtype=np.int64)
        gold[(gold < 0) | (gold >= k)] = -1
    except OverflowError:  # beyond int64: out of range anyway
        gold = np.asarray([g if 0 <= g < k else -1 for g in targets], dtype=np.int64)
    return gold


def _flush(sink: _Sink) -> None:
    """The fast path's multiple-choice records as one block, or to the general lists."""
    pending, mc = sink.pending, sink.mc
    idx, frs, targets = pending  # targets: ints, gold where within the choices (else -1)
    ll = _lls_or_none(frs)
    if ll is not None:
        sink.blocks.append((np.asarray(idx, dtype=np.int64), ll, None, _gold_of(targets, ll.shape[1])))
    else:
        mc[0].extend(idx)
        mc[1].extend(frs)
        mc[2].extend(repeat(None, len(idx)))
        mc[3].extend(g if 0 <= g < len(f) else -1 for g, f in zip(targets, frs, strict=True))
    for x in pending:
        x.clear()
