"""A store selection in groups of stored logs, read a group at a time by the ``store_groups``
route (:mod:`evaladdon.routes.store_groups`): ``summarize --store`` over a large selection.

Read at once, a 1,000-run store of 20k items (20M rows) peaks at 3.3 GB.  A summary is per
(run, task, metric), and in a store each such group comes from one log, unless two logs
give one run the same (task, metric) (the manifest tells; then the rows are renamed by file
and read at once, as before).  So when every row of the picked files matches ``--where``
(no per-row term, :func:`evaladdon.store.query.plan_files`), the files are read in
consecutive groups of about ``RouteLimits.store_group_rows`` rows, each group summarized and released.

The result equals the one-table path (``tests/store/test_store.py`` forces small groups): the
same groups in the same order (files in manifest order, groups by first appearance within
them), labels decided over all runs at the end, the store's notes first and then the notes
of skipped groups, the same errors (a ``--metric`` no stored run has, no scored rows).
"""

from __future__ import annotations

from pathlib import Path

from evaladdon.store.query import Selection, _may_clash



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


def groups_of(sel: Selection, cluster: str | None, max_rows: int) -> list[list[Path]] | None:
    """``sel.files`` in groups of about ``max_rows`` stored rows, or
    None when the selection must be read at once: small (one group), rows filtered one by one,
    a run's (task, metric) possibly in two logs, a log without combinations in the manifest,
    or ``cluster`` not the same column in every file."""
    if not sel.whole or _may_clash(sel.manifest, sel.files):
        return None
    groups = file_groups(sel, max_rows)
    entries = [e for e in sel.manifest.entries.values() if "combos" in e and int(e.get("n_rows", 0)) > 0]
    names = {f.name for f in sel.files}
    if len(groups) < 2 or {e["file"] for e in entries} < names or not _cluster_column_everywhere(sel.files, cluster):
        return None
    return groups
