"""``evaladdon export PATH... -o FILE``: the canonical item table as csv, jsonl or parquet.

What is written reads back as it was (``export`` then ``summarize`` on the file gives the
same numbers): every canonical column is written, floats with full precision, and the
table reader recognises an export by its columns.  A CSV export is safe to open in a
spreadsheet: a text cell that would start a formula gets a leading ``'`` (OWASP's advice on
CSV injection), which the table reader takes off again.  The file is written atomically
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
    p.add_argument("-o", "--output", required=True,
                   help="output file: .csv, .jsonl or .parquet (a folder with --format every-eval-ever)")
    p.add_argument("--format", choices=("table", "every-eval-ever"), default="table",
                   help="table (default: the canonical per-item table) or every-eval-ever (the shared results "
                        "schema: aggregate records with our SE and interval, and instance-level records)")
    p.add_argument("--cluster", metavar="FIELD", help="column or metadata field to cluster on")
    add_store(p)
    p.add_argument("--flips", action="store_true",
                   help="write every item that flipped between the runs (right->wrong, wrong->right, graded "
                        "changes), worst first, instead of the table")
    p.add_argument("--baseline", metavar="RUN", help="with --flips: compare every run against this one")
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


FORMULA_START = r"^[=+\-@\t\r']"
"""Cells that a spreadsheet would run as a formula (OWASP's list: ``= + - @``, tab, carriage
return), and cells that already start with the ``'`` that marks them as text (so the prefix
can be taken off again exactly: :func:`evaladdon.adapters.long_table.unquote_formulas`)."""
PLAIN_NUMBER = r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$"
"""A cell that is a number as it stands (``-1``, ``+0.5``): a spreadsheet reads it as that number."""


def _text_safe(s: Any) -> Any:
    """``s`` (text) with ``'`` before every cell that starts like a formula and is no plain number;
    ``s`` itself when no cell does."""
    import numpy as np

    text = s.astype("string")
    starts = text.str.contains(FORMULA_START, regex=True).fillna(False).to_numpy(dtype=bool)
    if not starts.any():
        return s
    at = np.flatnonzero(starts)
    risky = at[~text.iloc[at].str.contains(PLAIN_NUMBER, regex=True).fillna(False).to_numpy(dtype=bool)]
    if not len(risky):
        return s
    out = s.astype(object).copy()
    out.iloc[risky] = ("'" + text.iloc[risky]).astype(object).to_numpy()
    return out


def spreadsheet_safe(df: Any) -> Any:
    """``df`` with no text cell a spreadsheet would run as a formula (CSV injection): such cells get
    a leading ``'``, as OWASP advises; numeric columns, and text cells that are plain numbers, are
    left as they are.  Vectorised (pandas' string methods; a categorical's labels only)."""
    import pandas as pd

    out = {}
    for name in df.columns:
        col = df[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            labels = pd.Series(col.cat.categories, dtype=object)
            safe = _text_safe(labels)
            if safe is not labels:
                out[name] = col.cat.rename_categories(list(safe))
        elif not pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
            safe = _text_safe(col)
            if safe is not col:
                out[name] = safe
    return df.assign(**out) if out else df


def _write_csv(df: Any, path: Path) -> None:
    """CSV that reads back as it was and is safe to open in a spreadsheet (:func:`spreadsheet_safe`).
    Python's csv writer quotes a cell holding a line break of its line terminator only: a carriage
    return inside a cell is quoted when the lines end in CRLF (RFC 4180's line end), so a table
    with one is written so; any other keeps ``\\n``."""
    import pandas as pd

    df = spreadsheet_safe(df)
    text = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c].dtype)]
    cr = any(df[c].astype("string").str.contains("\r", regex=False).any() for c in text)
    df.to_csv(path, index=False, lineterminator="\r\n" if cr else "\n")


def write_table(df: Any, out: Path, inputs: list[str]) -> None:
    """``df`` to ``out`` in the format its suffix names, atomically, refusing to overwrite
    any of ``inputs``."""
    from evaladdon._util.safe_write import atomic_path

    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise EvalAddonError(f"unsupported output type {suffix or '(none)'!r}; use .csv, .jsonl or .parquet", str(out))
    with atomic_path(out, inputs) as tmp:
        if suffix == ".csv":
            _write_csv(df, tmp)
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
    _refuse_unread(args)
    if args.format == "every-eval-ever":
        from evaladdon.cli.eee_export import run_eee

        return run_eee(args, out)
    if out.suffix.lower() not in FORMATS:
        raise EvalAddonError(f"unsupported output type {out.suffix or '(none)'!r}; use .csv, .jsonl or .parquet",
                             str(out))
    loaded = load_runs(args)
    df = _flips_table(loaded.table, args) if getattr(args, "flips", False) else loaded.table
    write_table(df, out, input_paths(args))
    if not args.quiet:
        from evaladdon.report.escape import clean

        unusable = int(df["error"].notna().sum()) if "error" in df else 0
        for note in loaded.notes:  # names from the inputs: never a control character on the terminal
            sys.stderr.write(clean(f"warning: {note}") + "\n")
        what = "flips" if getattr(args, "flips", False) else f"rows ({unusable} with an error reason)"
        sys.stderr.write(clean(f"wrote {len(df)} {what} to {out}") + "\n")
    return 0


def _refuse_unread(args: argparse.Namespace) -> None:
    """``--flips`` and its ``--baseline`` write the flips table: refused in one line where they would
    be ignored (with ``--format every-eval-ever``, or ``--baseline`` without ``--flips``)."""
    flips, baseline = getattr(args, "flips", False), getattr(args, "baseline", None)
    if args.format == "every-eval-ever" and (flips or baseline is not None):
        raise EvalAddonError("--format every-eval-ever writes the runs' results, not flips: drop --flips/--baseline "
                             "(or export the flips table to a .csv, .jsonl or .parquet file)")
    if baseline is not None and not flips:
        raise EvalAddonError("--baseline is read only with --flips (export writes every run's rows)")


def _flips_table(df: Any, args: argparse.Namespace) -> Any:
    """Every flip of every comparison (:func:`evaladdon.analysis.flips.find_flips`) as one frame,
    a row per flip with its comparison's task, metric and runs."""
    import pandas as pd

    from evaladdon.adapters.inspect.inputs import full_answers, input_lines
    from evaladdon.analysis.flips import Flip, FlipSet, find_flips
    from evaladdon.table.names import choose_pairs_in, pairs_needed

    if args.baseline is None and df["run"].nunique() < 2:
        raise EvalAddonError("--flips compares runs: give two or more")
    pairs = choose_pairs_in(df, baseline=args.baseline, all_pairs=False,
                            needs=pairs_needed("export --flips", ("--baseline RUN",)))
    # the answers in full: a file keeps them faithfully (a CSV cell or JSON string holds newlines)
    records = [r for fs in find_flips(df, pairs, None, input_lines, full_answers) for r in fs.records()]
    columns = ["record", *[f.name for f in FlipSet.__dataclass_fields__.values()][:6], "rank",
               *Flip.__dataclass_fields__]
    return pd.DataFrame(records, columns=columns).drop(columns="record")
