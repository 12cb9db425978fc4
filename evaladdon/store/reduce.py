"""Per-item sufficient statistics of stored rows, and the rows they stand for.

Workers reduce each stored file to one record per (run, task, metric, item): the number
of usable rows ``n``, their sum, the sum of squared deviations from the item mean ``m2``
(DuckDB's ``var_pop``, a numerically stable one-pass algorithm), the counts of exact 0s and
1s, the cluster and content hash; and one record per (run, task, metric, reason) for the
rows left out.  That is a reduction by the number of epochs, and by the width of the rows.

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

GOOD = "error IS NULL AND coalesce(isfinite(value), false)"


def reduce_file(file: str, where: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(items, dropped) for one stored file, filtered by ``where``; runs on a worker."""
    from evaladdon.store.query import connect, select_sql

    con = connect([Path(file)])
    try:
        rows = select_sql([Path(file)], None, columns="*, file_row_number AS _row").replace(
            "union_by_name=true", "union_by_name=true, file_row_number=true")  # not in --where's literals
        rows += f" WHERE ({where})" if where else ""
        items = con.execute(f"""
            SELECT run, task, metric, item, any_value(model) AS model, any_value(source) AS source,
                   any_value(harness) AS harness, count(*) AS n, sum(value) AS s,
                   var_pop(value) * count(*) AS m2,
                   count(*) FILTER (WHERE value = 1) AS ones, count(*) FILTER (WHERE value = 0) AS zeros,
                   any_value(cluster) AS cluster, count(cluster) AS n_cluster,
                   count(DISTINCT cluster) AS k_cluster, any_value(item_hash) AS item_hash, min(_row) AS first
            FROM ({rows}) WHERE {GOOD} GROUP BY run, task, metric, item ORDER BY first""").df()
        dropped = con.execute(f"""
            SELECT run, task, metric, any_value(model) AS model, any_value(source) AS source,
                   any_value(harness) AS harness, coalesce(error, 'missing value') AS reason,
                   count(*) AS n, min(_row) AS first
            FROM ({rows}) WHERE NOT ({GOOD}) GROUP BY run, task, metric, reason ORDER BY first""").df()
    finally:
        con.close()
    items["file"] = dropped["file"] = Path(file).name
    return items, dropped


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
    cols = {c: items[c].to_numpy(dtype=object)[idx] for c in ("run", "task", "metric", "item", "model", "source",
                                                              "harness", "cluster", "item_hash")}
    good = pd.DataFrame({**cols, "epoch": k + 1, "value": value, "raw": "", "error": None})
    dn = dropped["n"].to_numpy(dtype=np.int64)
    didx = np.repeat(np.arange(len(dropped)), dn)
    dk = np.arange(int(dn.sum())) - np.repeat(np.cumsum(dn) - dn, dn)
    bad = pd.DataFrame({c: dropped[c].to_numpy(dtype=object)[didx] for c in ("run", "task", "metric", "model",
                                                                             "source", "harness")})
    reason = dropped["reason"].to_numpy(dtype=object)[didx]
    bad["item"] = np.array([f"(left out: {r})" for r in dropped["reason"]], dtype=object)[didx] if len(dropped) else []
    bad["epoch"], bad["value"], bad["raw"], bad["error"] = dk + 1, np.nan, "", reason
    bad["cluster"] = bad["item_hash"] = None
    out = pd.concat([good, bad], ignore_index=True) if len(bad) else good
    for c in ("cluster", "item_hash"):
        out[c] = out[c].astype(object).where(out[c].notna(), None)
    return finalize(out)


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
    both = pd.concat([items.assign(_part=0), dropped.assign(_part=1)], ignore_index=True)
    both = disambiguate(both)
    return (both[both["_part"] == 0].drop(columns="_part").reset_index(drop=True),
            both[both["_part"] == 1].drop(columns="_part").reset_index(drop=True))


def reduced_table(parts: Sequence[tuple[pd.DataFrame, pd.DataFrame]]) -> Any:
    """The rebuilt canonical table of :func:`reduce_file` partials."""
    items, dropped = combine(parts)
    return rebuild(items, dropped)
