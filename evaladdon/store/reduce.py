"""Per-item sufficient statistics of canonical rows, and the rows they stand for.

Workers reduce each stored file, or each input file read on a worker
(:mod:`evaladdon.routes.dask_reduce`), with one function (:func:`reduce_table`) to one record
per (run, task, metric, item): the number of usable rows ``n``, their sum, the sum of squared
deviations from the item mean ``m2``, the counts of exact 0s and 1s, the cluster and content
hash; and one record per (run, task, metric, item, reason) for the rows left out.  That is a
reduction by the number of epochs, and by the width of the rows.

Everything the statistics of ``summarize`` and ``compare`` compute is a function of those
numbers: the item means and counts, the within-item sums of squares (epoch variance), the
overall sum of squares (naive SE), whether every score is 0/1 (Wilson, McNemar), the
clusters of items (CR1, CR2, cluster bootstrap over item means).  So the driver rebuilds, per
item, ``n`` rows with exactly that mean and within sum of squares -- the original 0/1 rows
themselves for 0/1 items, ``mean + c*(k - (n-1)/2)`` otherwise -- and runs the *same* stats
core on them (``summarize_table``/``compare_table``): identical numbers up to rounding
(the tests hold them to 1e-12), and no second implementation of any estimator.  Per-cluster
sums alone would suffice for CR1 but not for the epoch decomposition or CR2's df, hence items.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

STORED = ("run", "task", "metric", "item", "model", "source", "harness", "value", "error", "cluster", "item_hash")
"""The stored columns the per-item records need."""


def reduce_file(file: str, where: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(items, dropped) for one stored file, filtered by ``where``; runs on a worker: the file's
    rows (the :data:`STORED` columns; through DuckDB with ``where``, each with its row number in
    the file) reduced by :func:`reduce_table`.  Measured against DuckDB's own group-by (the
    former implementation, now the test oracle) over a store of 1M and 4M rows: 1.5-1.7x less
    CPU and a lower peak (``benchmarks/bench_dask.py --reduce``, ``docs/dev/performance-log.md``)."""
    if not where:
        import pyarrow.parquet as pq

        names = pq.read_schema(file).names
        return reduce_table(pq.read_table(file, columns=[c for c in STORED if c in names]).to_pandas(), Path(file).name)
    from evaladdon.store.query import _arrow, connect, select_sql

    con = connect([Path(file)])
    try:
        rows = select_sql([Path(file)], None, columns="*, file_row_number AS _row").replace(
            "union_by_name=true", "union_by_name=true, file_row_number=true")  # not in --where's literals
        rows += f" WHERE ({where})"
        df = _arrow(con.sql(f"SELECT {', '.join(STORED)}, _row FROM ({rows})")).to_pandas()
    finally:
        con.close()
    return reduce_table(df, Path(file).name, df.pop("_row").to_numpy(dtype=np.int64))


ITEM_KEY = ("run", "task", "metric", "item")


def reduce_table(df: pd.DataFrame, name: str, row_numbers: np.ndarray | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(items, dropped) of canonical rows held in memory (a table read from PATHs on a worker, or
    a stored file's rows), computed on integer codes with numpy.  ``name`` is their ``file``;
    ``row_numbers`` each row's number in its file (default: its position), whose smallest per
    record is ``first``.

    A row is usable when ``error`` is missing and ``value`` finite.  Per
    (run, task, metric, item) of the usable rows, in order of the item's first usable row:
    ``n``, ``s`` (``np.bincount`` sums), ``m2`` the sum of squared deviations from the item mean
    (two passes; DuckDB's ``var_pop * count`` up to rounding), the exact 1s and 0s, the first
    model/source/harness (``any_value``), the first present cluster and content hash, how many rows have a cluster and how many distinct
    clusters.  Per (run, task, metric, item, reason) of the other rows (reason: ``error``, else
    ``missing value``): ``n``, the first row, the first present cluster and content hash (so the
    rebuilt rows keep which items were left out, and why: the error-rate comparison pairs them).  Oracle: DuckDB's group-by of the rows stored
    (``tests/store/test_reduce_table.py``: ``var_pop``, ``any_value``, ``count(DISTINCT)``)."""
    from evaladdon.table.codes import key_codes, label_codes

    value = df["value"].to_numpy(dtype=float)
    good = df["error"].isna().to_numpy() & np.isfinite(value)
    rows = np.flatnonzero(good)
    g, first, k = _groups(key_codes(df, ITEM_KEY)[rows])
    v = value[rows]
    n = np.bincount(g, minlength=k)
    s = np.bincount(g, weights=v, minlength=k)
    mean = np.divide(s, n, out=np.zeros(k), where=n > 0)
    m2 = np.bincount(g, weights=(v - mean[g]) ** 2, minlength=k)
    at = rows[first]  # each item's first usable row
    items = _labels(df, at, ITEM_KEY + ("model", "source", "harness"))
    items["n"], items["s"], items["m2"] = n, s, m2
    items["ones"] = np.bincount(g[v == 1], minlength=k)
    items["zeros"] = np.bincount(g[v == 0], minlength=k)
    codes, width = label_codes(df["cluster"])
    codes = codes[rows]
    has = codes >= 0
    items["cluster"] = _first_present(df["cluster"], has, g, rows, first, k)
    items["n_cluster"] = np.bincount(g[has], minlength=k)
    pairs = pd.unique(g[has] * max(width, 1) + codes[has])
    items["k_cluster"] = np.bincount(pairs // max(width, 1), minlength=k)
    items["item_hash"] = _first_present(df["item_hash"], df["item_hash"].notna().to_numpy()[rows], g, rows, first, k)
    items["first"] = at if row_numbers is None else row_numbers[at]
    bad = np.flatnonzero(~good)
    error = df["error"].to_numpy(dtype=object)[bad]
    reason = np.where(pd.isna(error), "missing value", error).astype(object)
    rcodes, reasons = pd.factorize(reason)
    dg, dfirst, dk = _groups(pd.factorize(key_codes(df, ITEM_KEY)[bad])[0] * max(len(reasons), 1) + rcodes)
    dat = bad[dfirst]
    dropped = _labels(df, dat, ITEM_KEY + ("model", "source", "harness"))
    dropped["reason"] = reason[dfirst]
    dropped["cluster"] = _first_present(df["cluster"], df["cluster"].notna().to_numpy()[bad], dg, bad, dfirst, dk)
    dropped["item_hash"] = _first_present(df["item_hash"], df["item_hash"].notna().to_numpy()[bad], dg, bad, dfirst,
                                          dk)
    dropped["n"] = np.bincount(dg, minlength=dk)
    dropped["first"] = dat if row_numbers is None else row_numbers[dat]
    items["file"] = dropped["file"] = name
    return items, dropped


def _groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Dense group codes of ``keys`` in order of first appearance, each group's first position
    (where the running maximum of the codes rises), and the number of groups."""
    codes, uniques = pd.factorize(keys)
    codes = codes.astype(np.int64, copy=False)
    if not len(codes):
        return codes, np.empty(0, dtype=np.int64), 0
    top = np.maximum.accumulate(codes)
    first = np.flatnonzero(np.r_[True, top[1:] > top[:-1]])
    return codes, first, len(uniques)


def _labels(df: pd.DataFrame, at: np.ndarray, columns: tuple[str, ...]) -> pd.DataFrame:
    """The values of ``columns`` at rows ``at``, as DuckDB's ``.df()`` gives them: ``str`` or
    ``None`` in object columns."""
    return pd.DataFrame({c: _objects(df[c].iloc[at]) for c in columns})


def _objects(s: pd.Series) -> np.ndarray:
    out = s.to_numpy(dtype=object)
    missing = pd.isna(out)
    if missing.any():
        out[missing] = None
    return out


def _first_present(column: pd.Series, present: np.ndarray, g: np.ndarray, rows: np.ndarray, first: np.ndarray,
                   k: int) -> np.ndarray:
    """Per group, ``column`` at its first row (of ``rows``, groups ``g``, first positions
    ``first``) where ``present``; None for a group with none (DuckDB's ``any_value``)."""
    out = np.full(k, None, dtype=object)
    if present.all():  # every row has one (or none is there): no search
        at = rows[first]
    elif present.any():
        seen, pos = np.unique(g[present], return_index=True)  # the first position of each group
        at = np.full(k, -1, dtype=np.int64)
        at[seen] = rows[present][pos]
    else:
        return out
    has = at >= 0
    out[has] = _objects(column.iloc[at[has]])
    return out


def rebuild(items: pd.DataFrame, dropped: pd.DataFrame) -> pd.DataFrame:
    """Canonical rows with the same per-item sufficient statistics (see module doc)."""
    from evaladdon.table import finalize

    n = items["n"].to_numpy(dtype=np.int64)
    total = int(n.sum())
    idx = np.repeat(np.arange(len(items)), n)
    starts = np.cumsum(n) - n
    k = np.arange(total) - np.repeat(starts, n)
    mean = items["s"].to_numpy(dtype=float) / n
    m2 = np.maximum(items["m2"].to_numpy(dtype=float), 0.0)
    ones = items["ones"].to_numpy(dtype=np.int64)
    binary = (ones + items["zeros"].to_numpy(dtype=np.int64)) == n
    nn = n.astype(float)
    sum_d2 = nn * (nn * nn - 1.0) / 12.0  # sum of (k - (n-1)/2)^2 over k = 0..n-1
    scale = np.sqrt(np.divide(m2, sum_d2, out=np.zeros_like(m2), where=sum_d2 > 0))
    d = k - (nn[idx] - 1.0) / 2.0
    value = np.where(binary[idx], (k < ones[idx]).astype(float), mean[idx] + scale[idx] * d)
    value = np.where((n[idx] == 1) & ~binary[idx], mean[idx], value)
    cols = {c: items[c].take(idx).reset_index(drop=True)  # str columns: arrow's take, no Python str per row
            for c in ("run", "task", "metric", "item", "model", "source", "harness", "cluster", "item_hash")}
    good = pd.DataFrame({**cols, "epoch": k + 1, "value": value, "raw": "", "error": None})
    dn = dropped["n"].to_numpy(dtype=np.int64)
    didx = np.repeat(np.arange(len(dropped)), dn)
    dk = np.arange(int(dn.sum())) - np.repeat(np.cumsum(dn) - dn, dn) + np.repeat(_epochs_before(items, dropped), dn)
    bad = pd.DataFrame({c: dropped[c].to_numpy(dtype=object)[didx] for c in ITEM_KEY + ("model", "source", "harness")})
    reason = dropped["reason"].to_numpy(dtype=object)[didx]
    bad["epoch"], bad["value"], bad["raw"], bad["error"] = dk + 1, np.nan, "", reason
    bad["cluster"] = dropped["cluster"].to_numpy(dtype=object)[didx]
    bad["item_hash"] = dropped["item_hash"].to_numpy(dtype=object)[didx]
    out = pd.concat([good, bad], ignore_index=True) if len(bad) else good
    for c in ("cluster", "item_hash"):
        out[c] = out[c].astype(object).where(out[c].notna(), None)
    return finalize(out)


def _epochs_before(items: pd.DataFrame, dropped: pd.DataFrame) -> np.ndarray:
    """Per left-out record, the rows its item already has (its usable rows, then the left-out
    records of the item before it): its rows' epochs continue after them, so no (item, epoch)
    is rebuilt twice."""
    from evaladdon.table.codes import key_codes

    if dropped.empty:
        return np.zeros(0, dtype=np.int64)
    keys = pd.concat([items[list(ITEM_KEY)], dropped[list(ITEM_KEY)]], ignore_index=True)
    code = pd.factorize(key_codes(keys, ITEM_KEY))[0]
    icode, dcode = code[:len(items)], code[len(items):]
    good = np.bincount(icode, weights=items["n"].to_numpy(dtype=float), minlength=code.max() + 1).astype(np.int64)
    dn = dropped["n"].to_numpy(dtype=np.int64)
    order = np.argsort(dcode, kind="stable")  # the item's earlier records first
    run = np.cumsum(dn[order]) - dn[order]  # rows before each record, over all items
    starts = np.flatnonzero(np.r_[True, dcode[order][1:] != dcode[order][:-1]])
    run -= np.repeat(run[starts], np.diff(np.r_[starts, len(order)]))  # ... within its item
    before = np.empty_like(dn)
    before[order] = run
    return good[dcode] + before


RUN_KEYS = ["run", "task", "metric", "source"]


def combine(parts: Sequence[tuple[pd.DataFrame, pd.DataFrame]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Partials of several files, in file order, with the store's run disambiguation."""
    from evaladdon.errors import EvalAddonError
    from evaladdon.store.runs import disambiguate

    items = pd.concat([p[0] for p in parts], ignore_index=True)
    dropped = pd.concat([p[1] for p in parts], ignore_index=True)
    if items.empty and dropped.empty:
        raise EvalAddonError("--where matches no stored rows")
    two = items[(items["k_cluster"] > 1) | ((items["n_cluster"] > 0) & (items["n_cluster"] < items["n"]))]
    if len(two):
        r = two.iloc[0]
        raise EvalAddonError(f"run {r['run']!r}, task {r['task']!r}: item {r['item']!r} lies in two clusters "
                             "or has rows without one")
    keys = pd.concat([items[RUN_KEYS], dropped[RUN_KEYS]], ignore_index=True)  # what disambiguate reads
    named = disambiguate(keys)
    if named is keys:  # no run clashes: the records as they are
        return items, dropped
    run = named["run"].to_numpy(dtype=object)
    return items.assign(run=run[:len(items)]), dropped.assign(run=run[len(items):])


def reduced_table(parts: Sequence[tuple[pd.DataFrame, pd.DataFrame]]) -> Any:
    """The rebuilt canonical table of :func:`reduce_file` partials."""
    items, dropped = combine(parts)
    return rebuild(items, dropped)
