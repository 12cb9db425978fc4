"""The arrays of the ``inspect_columns`` routes, in memory and spilled (both build a group's
:class:`~evaladdon.analysis.summarize.GroupArrays` from the columns of a log's parts the same
way): item and cluster codes in order of first appearance, errors as codes, and
:class:`NotLean`, how either hands an input to the next route."""

from __future__ import annotations

from typing import Any

import numpy as np

from evaladdon.stats._base.checks import first_appearance

__all__ = ["NotLean"]


class NotLean(Exception):
    """The lean path cannot be sure to give the table path's answer."""


def _first_codes(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """``pd.factorize(labels)[0]`` (first-appearance codes) by sorting: what ``estimate_mean``
    takes as they are (:func:`evaladdon.stats.cluster.codes`)."""
    codes, uniques = first_appearance(labels)
    return codes, len(uniques)


def _metric_rows(p: Any, metric: str | None) -> dict[str, np.ndarray | None]:
    """A log's rows of each metric (``None``: all its rows), metrics in order of first appearance."""
    codes = p.metric_codes
    if metric is not None:
        if metric not in p.metric_names:
            return {}
        rows = np.flatnonzero(codes == p.metric_names.index(metric))
        return {metric: None if len(rows) == p.n else rows} if len(rows) else {}
    if len(p.metrics) == 1:
        return {str(p.metrics[0]): None}
    inverse = codes.astype(np.intp)
    order = np.argsort(inverse, kind="stable")
    split = np.split(order, np.cumsum(np.bincount(inverse, minlength=len(p.metric_names)))[:-1])
    del inverse, order
    return {name: split[p.metric_names.index(name)] for name in p.metrics}


def _first_appearance_codes(codes: np.ndarray, good: np.ndarray | None, k: int | None = None) -> np.ndarray:
    """Codes 0, 1, ... in order of first appearance among the ``good`` rows (all rows when
    ``None``) of non-negative integer ``codes`` below ``k`` (``pd.factorize`` of the good
    rows' labels, at those rows; the other rows keep some code no statistic reads): a
    block of rows at a time, no sort of every row."""
    from evaladdon.adapters.inspect.columns import first_positions

    if k is None:
        k = int(codes.max()) + 1 if len(codes) else 0
    first = first_positions(codes, k, good)
    present = np.flatnonzero(first < len(codes))
    rank = np.full(k + 1, -1, dtype=np.int64)  # (rank[-1]: a missing code stays -1)
    rank[present[np.argsort(first[present], kind="stable")]] = np.arange(len(present))
    return rank[codes]


# long: the order of its drops and dels is what keeps the peak at the statistics' own arrays
# (test_lean_spill's peak-RSS test); split, each helper would hold its inputs until it returns
def _group_arrays(run: str, task: str, m: str, pieces: list[tuple[Any, np.ndarray | None]],
                  cluster: str | None, done: list[Any]) -> Any:
    """One group's :class:`~evaladdon.analysis.summarize.GroupArrays` from the rows of its logs: item and
    cluster codes in order of first appearance among the usable rows (what ``summarize_table``
    passes), errors as codes (:class:`~evaladdon.adapters.inspect.columns.CodedTexts`).  The
    columns of the logs in ``done`` (no later group reads them) are let go as soon as they
    are taken, so that the group's codes do not come on top of them."""
    from evaladdon.adapters.inspect.columns import CodedTexts
    from evaladdon.analysis.summarize import GroupArrays

    def cat(attr: str) -> np.ndarray:
        got = [getattr(p, attr) if rows is None else getattr(p, attr)[rows] for p, rows in pieces]
        return got[0] if len(got) == 1 else np.concatenate(got)

    def drop(*attrs: str) -> None:
        for p in done:
            for attr in attrs:
                setattr(p, attr, None)

    one = len(pieces) == 1
    values = cat("values")
    n = len(values)
    if one:
        error_codes, texts = cat("errors"), pieces[0][0].error_texts
    else:  # the logs' codes as codes into the texts of all of them
        texts_of: dict[str, int] = {}
        got = []
        for p, rows in pieces:
            remap = np.array([texts_of.setdefault(t, len(texts_of)) for t in p.error_texts] + [-1], dtype=np.int64)
            got.append(remap[p.errors if rows is None else p.errors[rows]])
        error_codes, texts = np.concatenate(got), tuple(texts_of)
    drop("values", "metric_codes")
    has_error = error_codes >= 0
    good = np.isfinite(values)
    good &= ~has_error
    n_good = int(good.sum())
    all_good = n_good == n
    if one:
        # one log: its kept samples have distinct (item, epoch) (build_part), and a sample's
        # rows are adjacent, so a repeated key is a sample with two rows of this metric
        samples = cat("row_sample") if pieces[0][0].row_sample is not None else None
        if samples is not None and len(samples) > 1 and bool((samples[1:] == samples[:-1]).any()):
            raise NotLean(f"run {run!r}, task {task!r}, metric {m!r}: a repeated (item, epoch) "
                          "(validate reports it)")
        del samples
        drop("row_sample")
        epochs = cat("epochs")
        if pieces[0][0].item_codes is None or bool((epochs == epochs[0]).all()):
            # distinct ids, or one epoch: every row its own item
            codes = np.arange(n, dtype=np.int64) if all_good else np.cumsum(good, dtype=np.int64)
            if not all_good:
                codes -= 1  # (rows left out keep a code no statistic reads)
        else:
            codes = _first_appearance_codes(cat("item_codes"), None if all_good else good)
        del epochs
    else:
        epochs = cat("epochs")
        item_codes, _ = _first_codes(cat("items"))
        key = item_codes * (int(epochs.max()) + 1) + epochs
        del epochs
        if np.unique(key).size < key.size:
            raise NotLean(f"run {run!r}, task {task!r}, metric {m!r}: a repeated (item, epoch) "
                          "(validate reports it)")
        del key
        codes = np.zeros(n, dtype=np.int64)
        codes[good] = _first_codes(item_codes[good])[0]
        del item_codes
    drop("items", "item_codes", "epochs", "row_sample")
    if cluster is not None and all(p.clusters is not None for p, _ in pieces):
        if one:
            local, k = cat("clusters"), len(pieces[0][0].cluster_names)
        else:  # the logs' codes as codes into the labels of all of them
            labels_of: dict[str, int] = {}
            got = []
            for p, rows in pieces:
                remap = np.array([labels_of.setdefault(t, len(labels_of)) for t in p.cluster_names] + [-1],
                                 dtype=np.int64)
                got.append(remap[p.clusters if rows is None else p.clusters[rows]])
            local, k = np.concatenate(got), len(labels_of)
        clusters = _first_appearance_codes(local, None if all_good else good, k)
        del local
    else:  # no cluster: -1 for every row, as a read-only view of one value
        clusters = np.broadcast_to(np.int64(-1), (n,))
    drop("clusters", "errors")
    return GroupArrays(run, task, pieces[0][0].model, m, values, has_error, CodedTexts(error_codes, texts), codes,
                       clusters)
