"""``summarize --store`` over a large selection, a group of stored logs at a time.

Read at once, a 1,000-run store of 20k items (20M rows) peaks at 3.3 GB.  A summary is per
(run, task, metric), and in a store each such group comes from one log, unless two logs
give one run the same (task, metric) (the manifest tells; then the rows are renamed by file
and read at once, as before).  So when every row of the picked files matches ``--where``
(no per-row term, :func:`evaladdon.store.query.plan_files`), the files are read in
consecutive groups of about :data:`MAX_ROWS` rows, each group summarized and released.

The result equals the one-table path (``tests/test_store.py`` forces small groups): the
same groups in the same order (files in manifest order, groups by first appearance within
them), labels decided over all runs at the end, the store's notes first and then the notes
of skipped groups, the same errors (a ``--metric`` no stored run has, no scored rows).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from evaladdon.errors import EvalAddonError
from evaladdon.store.query import Selection, _may_clash, load_selection, select

MAX_ROWS = 2_000_000
"""Rows read at once (by the manifest's counts); a group holds at least one log."""


def file_groups(sel: Selection, max_rows: int) -> list[list[Path]]:
    """``sel.files`` in consecutive groups of at most ``max_rows`` stored rows (a log of more
    rows is a group of its own)."""
    rows: dict[str, int] = {}
    for e in sel.manifest.entries.values():
        rows.setdefault(e["file"], int(e.get("n_rows", 0)))
    groups: list[list[Path]] = []
    current: list[Path] = []
    n = 0
    for f in sel.files:
        r = rows.get(f.name, 0)
        if current and n + r > max_rows:
            groups.append(current)
            current, n = [], 0
        current.append(f)
        n += r
    if current:
        groups.append(current)
    return groups


def _cluster_column_everywhere(files: list[Path], cluster: str | None) -> bool:
    """Whether every file has the same of ``cluster`` / ``meta.cluster`` (so each group takes
    the cluster id from the column the whole table would)."""
    if cluster is None:
        return True
    import pyarrow.parquet as pq

    seen = {(cluster in names, f"meta.{cluster}" in names)
            for names in (set(pq.read_schema(f).names) for f in files)}
    return len(seen) == 1 and any(next(iter(seen)))


def groups_of(sel: Selection, cluster: str | None, max_rows: int | None) -> list[list[Path]] | None:
    """``sel.files`` in groups of about ``max_rows`` (default :data:`MAX_ROWS`) stored rows, or
    None when the selection must be read at once: small (one group), rows filtered one by one,
    a run's (task, metric) possibly in two logs, a log without combinations in the manifest,
    or ``cluster`` not the same column in every file."""
    if not sel.whole or _may_clash(sel.manifest, sel.files):
        return None
    groups = file_groups(sel, MAX_ROWS if max_rows is None else max_rows)
    entries = [e for e in sel.manifest.entries.values() if "combos" in e and int(e.get("n_rows", 0)) > 0]
    names = {f.name for f in sel.files}
    if len(groups) < 2 or {e["file"] for e in entries} < names or not _cluster_column_everywhere(sel.files, cluster):
        return None
    return groups


def summarize_store(
    root: str,
    where: str | None,
    cluster: str | None,
    metric: str | None,
    *,
    level: float,
    method: str,
    cluster_method: str,
    check_metric: Any,
    max_rows: int | None = None,
) -> tuple[list[Any], list[str]] | None:
    """(summaries, notes) of ``summarize`` over the store, group by group; None when the
    selection is small, has per-row terms, or may hold one run in two logs (then the caller
    reads it at once).  ``check_metric(df, metric)`` is the CLI's check of ``--metric``."""
    import pandas as pd

    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.table import distinct_rows, run_labels

    sel = select(root, where)
    groups = groups_of(sel, cluster, max_rows)
    if groups is None:
        return None
    picked = sel.entries()
    notes = sel.notes()  # as load_store gives them
    check_metric(pd.DataFrame({"metric": [c[3] for e in picked for c in e["combos"]]}), metric)
    summaries: list[Any] = []
    label_rows: list[pd.DataFrame] = []
    has_metric = metric is None
    for files in groups:
        table = load_selection(sel, files, cluster).table
        label_rows.append(distinct_rows(table, ("run", "model", "task", "source")).astype(object))
        if metric is not None and not (table["metric"] == metric).any():
            continue
        has_metric = True
        try:
            summaries += summarize_table(table, metric=metric, level=level, method=method,
                                         cluster_method=cluster_method, notes=notes)
        except EvalAddonError as exc:
            if not exc.message.startswith("no scored rows to summarize"):
                raise
        del table
    if not has_metric:  # e.g. a metric family name, which check_metric lets through
        raise EvalAddonError(f"no rows with metric {metric!r}")
    if not summaries:
        raise EvalAddonError("no scored rows to summarize" + (f": {'; '.join(notes)}" if notes else ""))
    labels = run_labels(pd.concat(label_rows, ignore_index=True))
    return [dataclasses.replace(s, label=labels[s.run]) for s in summaries], notes
