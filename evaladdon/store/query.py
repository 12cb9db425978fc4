"""Answering ``--store DIR --where SQL`` with DuckDB embedded in the process.

``--where`` is user SQL: a boolean expression over the columns of the canonical table
(``run``, ``model``, ``task``, ``metric``, ``item``, ``value``, ``meta."..."`` ...).  It runs
over a read-only view of the store only: the connection may read the store's data files and
nothing else (``allowed_paths`` then ``enable_external_access=false`` and a locked
configuration), and the query must be one ``SELECT`` statement, so the expression can
neither read other files nor write.  SQL errors are reported in one line.

Speed: the manifest knows each file's runs, models, tasks, metrics and harness.  When the
expression only names those columns it is first evaluated on that small table to pick the
files to open, so comparing two checkpoints out of a thousand stored runs reads two files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from evaladdon.errors import EvalAddonError, InputError
from evaladdon.store import DATA, Manifest

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
    if files:
        con.execute(f"SET allowed_paths=[{', '.join(_sql_str(str(f)) for f in files)}]")
    con.execute("SET enable_external_access=false")
    con.execute("SET lock_configuration=true")
    return con


def check_where(where: str) -> str:
    """The expression, or a one-line error when it is not a single boolean expression."""
    import duckdb

    text = " ".join(where.split())
    if not text:
        raise EvalAddonError("--where is empty")
    try:
        statements = duckdb.extract_statements(f"SELECT 1 WHERE ({text})")
    except duckdb.Error as exc:
        raise EvalAddonError(f"--where: {_one_line(exc)}") from None
    if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
        raise EvalAddonError("--where must be one boolean expression (no ';', no other statements)")
    return text


def _one_line(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return " ".join(text.split())


def pick_files(manifest: Manifest, where: str | None) -> list[Path]:
    """Data files whose runs can match ``where`` (all of them when it names other columns)."""
    files = manifest.data_files()
    if not where or not manifest.entries:
        return files
    import duckdb
    import pandas as pd

    rows = [(*combo, e["source"], e["file"]) for e in manifest.entries.values() for combo in e.get("combos", [])]
    frame = pd.DataFrame(rows, columns=[*RUN_COLUMNS, "file"], dtype=object)
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET enable_external_access=false")
        con.register("runs_table", frame)
        hit = con.execute(f"SELECT DISTINCT file FROM runs_table WHERE ({where})").fetchall()
    except duckdb.BinderException:
        return files  # names a per-row column: every file is read (DuckDB still prunes row groups)
    except duckdb.Error as exc:
        raise EvalAddonError(f"--where: {_one_line(exc)}") from None
    finally:
        con.close()
    wanted = {h[0] for h in hit}
    return [f for f in files if f.name in wanted]


def select_sql(files: Sequence[Path], where: str | None, columns: str = "*") -> str:
    listed = ", ".join(_sql_str(str(f)) for f in files)
    sql = f"SELECT {columns} FROM read_parquet([{listed}], union_by_name=true)"
    return sql + (f" WHERE ({where})" if where else "")


def load_store(root: str | os.PathLike[str], where: str | None = None, cluster: str | None = None) -> Any:
    """The canonical rows of the store matching ``where`` (a validated :class:`Loaded`).

    ``cluster`` (``--cluster FIELD`` at query time) takes the cluster id from the column
    ``FIELD`` or ``meta.FIELD`` of the stored rows.
    """
    import duckdb

    from evaladdon.adapters import Loaded
    from evaladdon.store.runs import disambiguate
    from evaladdon.table import finalize, validate

    manifest = Manifest.load(root)
    if not manifest.entries:
        raise InputError("the store is empty", str(root))
    where = check_where(where) if where else None
    files = pick_files(manifest, where)
    if not files:
        raise EvalAddonError(f"--where matches no stored run ({where})")
    missing = [f for f in files if not f.exists()]
    if missing:
        raise InputError(f"the store lacks data file {missing[0].name} named in its manifest", str(root))
    con = connect(files)
    try:
        df = con.execute(select_sql(files, where)).df()
    except duckdb.Error as exc:
        raise EvalAddonError(f"--where: {_one_line(exc)}" if where else f"{root}: {_one_line(exc)}") from None
    finally:
        con.close()
    if df.empty:
        raise EvalAddonError(f"--where matches no stored rows ({where})")
    if cluster is not None:
        col = cluster if cluster in df.columns else f"meta.{cluster}"
        if col not in df.columns:
            raise EvalAddonError(f"no stored column {cluster!r} to cluster on (nested metadata: ingest with --cluster)")
        cl = df[col]
        df["cluster"] = cl.astype(object).where(cl.notna(), None).map(lambda v: v if v is None else str(v))
    df = disambiguate(df)
    notes = [n for e in manifest.entries.values() if e["file"] in {f.name for f in files} for n in e.get("notes", [])]
    return Loaded(validate(finalize(df)), notes)
