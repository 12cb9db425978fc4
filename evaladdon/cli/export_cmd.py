"""``evaladdon export PATH... -o FILE``: the canonical item table as csv, jsonl or parquet.

What is written reads back as it was (``export`` then ``summarize`` on the file gives the
same numbers): every canonical column is written, floats with full precision, and the
table reader recognises an export by its columns.  The file is written atomically
(a temporary file renamed into place) and never over one of the inputs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evaladdon.cli.options import add_store, input_paths, load_runs
from evaladdon.errors import EvalAddonError

FORMATS = (".csv", ".jsonl", ".parquet")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("export", help="write the canonical per-item table (csv, jsonl, parquet)")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("-o", "--output", required=True, help="output file: .csv, .jsonl or .parquet")
    p.add_argument("--cluster", metavar="FIELD", help="column or metadata field to cluster on")
    add_store(p)
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(run=run)


def _write_jsonl(df: Any, path: Path) -> None:
    """JSON lines with every float at full precision (pandas' ``to_json`` keeps at most 15
    significant digits, which does not round-trip): DuckDB's writer when installed, else
    orjson (a Python loop over rows; the fallback only)."""
    try:
        import duckdb
    except ImportError:
        import orjson

        with path.open("wb") as fh:
            frame = df.astype(object).where(df.notna(), None)
            for rec in frame.to_dict(orient="records"):
                fh.write(orjson.dumps(rec, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE))
        return
    con = duckdb.connect()
    try:
        con.register("export_table", df)
        con.execute(f"COPY export_table TO '{_sql_path(path)}' (FORMAT json)")
    finally:
        con.close()


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")


def write_table(df: Any, out: Path, inputs: list[str]) -> None:
    """``df`` to ``out`` in the format its suffix names, atomically, refusing to overwrite
    any of ``inputs``."""
    from evaladdon._util.safe_write import atomic_path

    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise EvalAddonError(f"unsupported output type {suffix or '(none)'!r}; use .csv, .jsonl or .parquet", str(out))
    with atomic_path(out, inputs) as tmp:
        if suffix == ".csv":
            df.to_csv(tmp, index=False)
        elif suffix == ".jsonl":
            _write_jsonl(df, tmp)
        else:
            from evaladdon.table import plain_columns

            try:
                plain_columns(df).to_parquet(tmp, index=False)  # the same column types at any size
            except ImportError:
                raise EvalAddonError("writing parquet needs pyarrow: pip install pyarrow (a dependency of evaladdon that is missing here)") from None


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    if out.suffix.lower() not in FORMATS:
        raise EvalAddonError(f"unsupported output type {out.suffix or '(none)'!r}; use .csv, .jsonl or .parquet",
                             str(out))
    loaded = load_runs(args)
    df = loaded.table
    write_table(df, out, input_paths(args))
    if not args.quiet:
        unusable = int(df["error"].notna().sum())
        for note in loaded.notes:
            sys.stderr.write(f"warning: {note}\n")
        sys.stderr.write(f"wrote {len(df)} rows ({unusable} with an error reason) to {out}\n")
    return 0
