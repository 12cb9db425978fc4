"""Answering ``--store DIR --where SQL`` with DuckDB embedded in the process.

``--where`` is user SQL: a boolean expression over the columns of the canonical table
(``run``, ``model``, ``task``, ``metric``, ``item``, ``value``, ``meta."..."`` ...).  It runs
over a read-only view of the store only: the connection may read the store's data files and
nothing else (``allowed_paths`` then ``enable_external_access=false`` and a locked
configuration), and the expression must parse as one condition on a row
(:func:`evaladdon.store.where.check_where`: no subquery, set operation, comment or second
statement), so it can neither read other files, nor write, nor add rows.  SQL errors are
reported in one line.

Speed: the manifest knows each file's runs, models, tasks, metrics and harness.  When the
expression only names those columns it is first evaluated on that small table to pick the
files to open, so comparing two checkpoints out of a thousand stored runs reads two files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from evaladdon.errors import EvalAddonError, InputError
from evaladdon.store import DATA, MANIFEST, Manifest
from evaladdon.store.where import check_where as check_where  # the routes import it from here

RUN_COLUMNS = ("run", "model", "task", "metric", "harness", "source")


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def connect(files: Sequence[Path]) -> Any:
    """A DuckDB connection that can read ``files`` and nothing else."""
    try:
        import duckdb
    except ImportError:
        raise EvalAddonError("--store needs DuckDB: pip install 'evaladdon[store]'") from None
    con = duckdb.connect(":memory:")
    # large_string, as pandas' pyarrow-backed str dtype holds them: to_pandas then casts nothing
    con.execute("SET arrow_large_buffer_size=true")
    if files:
        con.execute(f"SET allowed_paths=[{', '.join(_sql_str(str(f)) for f in files)}]")
    con.execute("SET enable_external_access=false")
    con.execute("SET lock_configuration=true")
    return con


def _one_line(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return " ".join(text.split())


def _sandbox() -> Any:
    """A DuckDB connection that can read no file at all (for evaluating ``--where`` on the manifest)."""
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute("SET enable_external_access=false")
    con.execute("SET lock_configuration=true")
    return con


def _runs_table(manifest: Manifest) -> dict[str, Any]:
    """The manifest's (run, model, task, metric, harness, source, file) combinations as columns
    (numpy arrays of str, which DuckDB registers as a table without pyarrow or pandas)."""
    import numpy as np

    cols: list[list[str]] = [[] for _ in range(len(RUN_COLUMNS) + 1)]
    for e in manifest.entries.values():
        source, file = str(e["source"]), str(e["file"])
        for combo in e.get("combos", []):
            for col, value in zip(cols, (*combo, source, file), strict=True):
                col.append(str(value))
    return {name: np.array(col, dtype=object) for name, col in zip((*RUN_COLUMNS, "file"), cols, strict=True)}


VOLATILE = frozenset({"random", "uuid", "gen_random_uuid", "uuidv4", "uuidv7", "nextval", "currval", "setseed"})
"""Functions whose value changes from row to row: a condition using them is never decided per run."""


def _run_level_parts(con: Any, where: str) -> list[str] | None:
    """The top-level ``AND`` terms of ``where`` as SQL texts (DuckDB's own parse, so quoting
    and parentheses are DuckDB's), or None when the expression cannot be split or calls a
    volatile function (then nothing is decided per run)."""
    import json

    import duckdb

    prefix = "SELECT 1 WHERE "
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [f"{prefix}({where})"]).fetchall()[0][0])
        if tree.get("error") or len(tree.get("statements", [])) != 1:
            return None
        node = tree["statements"][0]["node"]
        clause = node.get("where_clause")
        if clause is None or any(f'"function_name":"{f}"' in json.dumps(clause, separators=(",", ":"))
                                 for f in VOLATILE):
            return None
        terms = clause["children"] if clause.get("type") == "CONJUNCTION_AND" else [clause]
        parts = []
        for term in terms:
            node["where_clause"] = term
            text = con.execute("SELECT json_deserialize_sql(?)", [json.dumps(tree)]).fetchall()[0][0]
            if not text.startswith(prefix):
                return None
            parts.append(text[len(prefix):])
        return parts
    except (duckdb.Error, KeyError, TypeError, ValueError):
        return None


def pick_files(manifest: Manifest, where: str | None, con: Any = None) -> list[Path]:
    """Data files whose runs can match ``where`` (all of them when nothing in it is per run).

    The top-level ``AND`` terms of ``where`` that name only run-level columns (run, model,
    task, metric, harness, source) are evaluated on the manifest's combinations; a row can
    match ``where`` only if its run matches all of them, so the other files need not be
    opened.  Terms that name per-row columns (value, item, epoch, meta.*) are left to the
    query over the picked files.  ``con``: a connection to evaluate on (it must not be able
    to read files; default: a fresh one that cannot).
    """
    return plan_files(manifest, where, con)[0]


def plan_files(manifest: Manifest, where: str | None, con: Any = None) -> tuple[list[Path], bool]:
    """:func:`pick_files`, and whether every row of every picked file matches ``where``: no
    ``where``, or every term of it is run-level and holds for every combination of every
    picked file (as ``model IN ('a', 'b')`` on logs of one run each).  The rows can then be
    read from the Parquet files directly, without a query."""
    if not where or not manifest.entries:
        return manifest.data_files(), True
    import duckdb

    own = con is None
    con = _sandbox() if own else con
    try:
        con.register("runs_table", _runs_table(manifest))
        parts = _run_level_parts(con, where)
        if parts is None:
            return manifest.data_files(), False
        bound = []
        for part in parts:
            try:
                con.execute(f"SELECT 1 FROM runs_table WHERE ({part}) LIMIT 0").fetchall()
            except duckdb.BinderException:
                continue  # names a per-row column: decided row by row (DuckDB still prunes row groups)
            bound.append(f"({part})")
        if not bound:
            return manifest.data_files(), False
        hit = con.execute(f"SELECT file, bool_and(coalesce({' AND '.join(bound)}, false)) AS whole FROM runs_table "
                          f"GROUP BY file HAVING bool_or(coalesce({' AND '.join(bound)}, false))").fetchall()
    except duckdb.Error as exc:
        raise EvalAddonError(f"--where: {_one_line(exc)}") from None
    finally:
        if own:
            con.close()
        else:
            con.unregister("runs_table")
    wanted = {h[0]: bool(h[1]) for h in hit}
    data = manifest.root / DATA
    files = [data / f for f in dict.fromkeys(e["file"] for e in manifest.entries.values()) if f in wanted]
    return files, len(bound) == len(parts) and all(wanted.values())


def select_sql(files: Sequence[Path], where: str | None, columns: str = "*") -> str:
    listed = ", ".join(_sql_str(str(f)) for f in files)
    sql = f"SELECT {columns} FROM read_parquet([{listed}], union_by_name=true)"
    return sql + (f" WHERE ({where})" if where else "")


BATCH_ROWS = 1 << 20


def _arrow(rel: Any, dictionary: Sequence[str] = RUN_COLUMNS) -> Any:
    """A DuckDB relation's rows as a pyarrow Table, fetched in batches of :data:`BATCH_ROWS`
    rows whose ``dictionary`` columns (one value per stored log) are dictionary-encoded as they
    arrive, so their strings are never held for every row at once (pandas then makes them
    categoricals).  All runs of a 1,000-run store (20M rows): peak RSS 5.3 GB with one
    ``to_arrow_table``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    batches = []
    reader = getattr(rel, "to_arrow_reader", None) or rel.fetch_record_batch  # renamed in DuckDB 1.4
    for batch in reader(BATCH_ROWS):
        names = batch.schema.names
        batches.append(pa.RecordBatch.from_arrays(
            [pc.dictionary_encode(col) if name in dictionary and pa.types.is_large_string(col.type)
             or name in dictionary and pa.types.is_string(col.type) else col
             for name, col in zip(names, batch.columns, strict=True)], names=names))
    if not batches:
        return (getattr(rel, "to_arrow_table", None) or rel.fetch_arrow_table)()
    return pa.Table.from_batches(batches)


def _read_files(files: Sequence[Path], dictionary: Sequence[str] = RUN_COLUMNS) -> Any:
    """Every row of ``files`` as one pyarrow Table, in file order, straight from Parquet: the
    ``dictionary`` columns (one value per stored log) read as dictionaries from Parquet's own
    dictionary pages, columns missing from some files null there (as DuckDB's
    ``union_by_name``).  Without a query, DuckDB's result buffers (~3x the rows' size, kept
    by its allocator) are not needed: 200 stored runs of 20k rows, peak RSS 1.27 GB -> see
    docs/performance.md."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    for f in files:
        with pq.ParquetFile(f, read_dictionary=list(dictionary)) as pf:
            tables.append(pf.read())
    return pa.concat_tables(tables, promote_options="default") if len(tables) > 1 else tables[0]


def _may_clash(manifest: Manifest, files: Sequence[Path]) -> bool:
    """Whether some (run, task, metric) of the picked files comes from two sources, by the
    manifest's combinations (no row is read; pyarrow's group-by would import Acero, ~0.25 s):
    then :func:`disambiguate` (which decides exactly on the rows, and renames) is needed;
    without, it would change nothing.  An entry without combinations may clash."""
    names = {f.name for f in files}
    first_source: dict[tuple[str, str, str], str] = {}
    for e in manifest.entries.values():
        if e["file"] not in names:
            continue
        if "combos" not in e:
            return True
        for combo in e["combos"]:
            key = (str(combo[0]), str(combo[2]), str(combo[3]))  # run, task, metric (RUN_COLUMNS order)
            if first_source.setdefault(key, str(e["source"])) != str(e["source"]):
                return True
    return False


def cluster_ids(col: Any) -> Any:
    """A stored column as cluster ids: ``str(v)`` of each value, None where missing (one
    C-level conversion of the present values, not a Python call per row)."""
    import numpy as np
    import pandas as pd

    present = col.notna().to_numpy()
    out = np.full(len(col), None, dtype=object)
    out[present] = col[present].astype(str).to_numpy(dtype=object)
    return pd.Series(out, index=col.index, dtype=object)


def load_store(root: str | os.PathLike[str], where: str | None = None, cluster: str | None = None) -> Any:
    """The canonical rows of the store matching ``where`` (a validated :class:`Loaded`).

    ``cluster`` (``--cluster FIELD`` at query time) takes the cluster id from the column
    ``FIELD`` or ``meta.FIELD`` of the stored rows.

    Speed: ``--where`` is parsed and evaluated on the manifest in one connection that can
    read no file.  When every row of the files it picks matches (no ``where``, or a
    run-level one that holds for all their runs), the files are read straight from Parquet
    (:func:`_read_files`); otherwise their rows are read in one query (one ``read_parquet``
    over all of them) by a second connection that can read those files only, fetched as
    Arrow (DuckDB's own ``.df()`` is ~4x slower on string columns).  Either way the table
    is converted to pandas once, run-level columns as categoricals.
    """
    sel = select(root, where)
    return load_selection(sel, sel.files, cluster)


@dataclass(frozen=True)
class Selection:
    """What ``--where`` picks in a store: the data files, in manifest order, whether every row
    of them matches (:func:`plan_files`), and the checked filter."""

    root: str
    manifest: Manifest
    files: list[Path]
    whole: bool
    where: str | None

    def entries(self, files: Sequence[Path] | None = None) -> list[dict[str, Any]]:
        """The manifest entries of ``files`` (default: all picked), in manifest order."""
        names = {f.name for f in (self.files if files is None else files)}
        return [e for e in self.manifest.entries.values() if e["file"] in names]

    def notes(self, files: Sequence[Path] | None = None) -> list[str]:
        """The notes stored with the logs of ``files`` (default: all picked), as ingest gave them."""
        return [n for e in self.entries(files) for n in e.get("notes", [])]

    def declared(self, files: Sequence[Path] | None = None) -> dict[str, dict[str, bool]]:
        """The directions the logs of ``files`` declare (default: all picked), as ingest stored
        them (:mod:`evaladdon.table.direction`)."""
        from evaladdon.table.direction import ATTR, merge_declared

        return merge_declared(e.get(ATTR) for e in self.entries(files))


_LAST: list[tuple[Any, Selection]] = []
"""The last :func:`select` and the manifest's identity then: a command that first tries to read
a store a group at a time and then reads it at once asks twice (~0.3 s for 1,000 runs)."""


def _stamp(root: str | os.PathLike[str], where: str | None) -> Any:
    try:
        st = (Path(root) / MANIFEST).stat()
    except OSError:
        return None
    return (str(Path(root).resolve()), where, st.st_ino, st.st_mtime_ns, st.st_size)


def select(root: str | os.PathLike[str], where: str | None = None) -> Selection:
    """The store's files ``where`` can match (an error when none, or one is missing)."""
    stamp = _stamp(root, where)
    if stamp is not None and _LAST and _LAST[0][0] == stamp:
        sel = _LAST[0][1]
        _check_present(sel)
        return sel
    sel = _select(root, where)
    _LAST[:] = [(stamp, sel)] if stamp is not None else []
    return sel


def _check_present(sel: Selection) -> None:
    missing = [f for f in sel.files if not f.exists()]
    if missing:
        raise InputError(f"the store lacks data file {missing[0].name} named in its manifest", str(sel.root))


def _select(root: str | os.PathLike[str], where: str | None = None) -> Selection:
    manifest = Manifest.load(root)
    if not manifest.entries:
        raise InputError("the store is empty", str(root))
    where = where or None
    whole = where is None
    if where:
        picker = _sandbox()
        try:
            where = check_where(where, picker)
            files, whole = plan_files(manifest, where, picker)
        finally:
            picker.close()
    else:
        files = manifest.data_files()
    if not files:
        raise EvalAddonError(f"--where matches no stored run ({where})")
    sel = Selection(str(root), manifest, files, whole, where)
    _check_present(sel)
    return sel


def load_selection(sel: Selection, files: Sequence[Path], cluster: str | None = None) -> Any:
    """The canonical rows of ``files`` (some or all of ``sel.files``) matching ``sel.where``."""
    from evaladdon.table.loaded import Loaded
    from evaladdon.store.runs import disambiguate
    from evaladdon.table import finalize, validate

    manifest, where, root = sel.manifest, sel.where, sel.root
    rows = None
    if sel.whole:  # every row of these files matches: read them as they are
        import pyarrow as pa

        try:
            rows = _read_files(files)
        except (OSError, pa.ArrowException):  # e.g. a meta column typed differently in two logs: DuckDB unifies
            rows = None
    if rows is None:
        import duckdb

        con = connect(files)
        try:
            try:
                rows = _arrow(con.sql(select_sql(files, where)))
            except duckdb.Error as exc:
                raise EvalAddonError(f"--where: {_one_line(exc)}" if where else f"{root}: {_one_line(exc)}") from None
        finally:
            con.close()
    if rows.num_rows == 0:
        raise EvalAddonError(f"--where matches no stored rows ({where})")
    clash = _may_clash(manifest, files)
    # run-level columns (one value per stored log) arrive dictionary-encoded: categoricals, ~4
    # bytes a row instead of a string each (200 stored runs of 20k rows: the table 801 -> 458 MB)
    df = rows.to_pandas()
    del rows
    if cluster is not None:
        col = cluster if cluster in df.columns else f"meta.{cluster}"
        if col not in df.columns:
            raise EvalAddonError(f"no stored column {cluster!r} to cluster on (metadata nested deeper than 3 levels: "
                                 "ingest with --cluster)")
        df["cluster"] = cluster_ids(df[col])
    if clash:
        df = disambiguate(df)
    notes = sel.notes(files)
    table = validate(finalize(df))
    declared = sel.declared(files)
    if declared:
        from evaladdon.table.direction import ATTR

        table.attrs[ATTR] = declared
    return Loaded(table, notes)
