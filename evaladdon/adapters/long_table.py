"""Reader for long tables (csv, tsv, jsonl, parquet) into the canonical item table.

Columns: ``item`` and ``value`` required (aliases below; a table of ``prediction`` and ``label``
without a value is scored ``correct``: 1 where they agree), optionally ``run``, ``task``,
``model``, ``metric``, ``epoch``, ``cluster``, ``item_hash``, and the optional per-row inputs
``prediction``, ``label``, ``confidence`` (:data:`evaladdon.table.OPTIONAL_COLUMNS`; ``score``
too when ``value`` is given separately).  Several models in one file become several runs
(``run`` defaults to ``model``, else the file's stem).  Every other column is kept as
``meta.<name>`` so ``--cluster`` can name it.  Values that are not numbers are kept with
their reason in ``error`` (the one rule of :mod:`evaladdon.adapters.common.scores`), never dropped.

A table written by ``evaladdon export`` (it has every canonical column) reads back as it
was: ``raw``, ``error``, ``source``, ``harness`` and ``meta.*`` columns are taken as they are.

Files are parsed by pyarrow (``pyarrow.csv`` multi-threaded, ``pyarrow.parquet``,
``pyarrow.json``), never row by row in Python; string columns stay pyarrow-backed in pandas
(``str`` dtype in pandas 3) so a 10-million-row table needs no 10 million Python strings.
JSON lines that pyarrow refuses (the ``NaN``/``Infinity`` literals Python writes, a column
of mixed types, nesting) are read by :func:`read_json_records` instead.  A UTF-8 byte-order
mark is skipped.  JSON nested deeper than :data:`evaladdon.adapters.common.guard.MAX_DEPTH`
is refused before pyarrow sees it (its parser recurses and would crash the process).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.adapters.common.arrow_text import blank_mask as _blank
from evaladdon.adapters.common.arrow_text import read_parquet as _read_parquet
from evaladdon.adapters.common.guard import check_file_depth, check_regular
from evaladdon.adapters.common.jsonlines import read_json_records
from evaladdon.adapters.common.scores import MISSING, NON_FINITE, NON_NUMERIC, coerce_scores, convert_strings
from evaladdon.errors import InputError
from evaladdon.table import COLUMNS, HARNESSES, OPTIONAL_COLUMNS, finalize, no_values

CORRECT = "correct"
"""The score of a table of predictions and labels without a value column: 1 where the prediction
equals the label (as text), 0 where it does not, missing where either is blank."""


ALIASES: dict[str, tuple[str, ...]] = {
    "item": ("item", "item_id", "question_id", "sample_id", "id", "doc_id"),
    "value": ("value", "score", CORRECT),
    "cluster": ("cluster", "cluster_id"),
    "epoch": ("epoch", "sample", "repeat"),
    "item_hash": ("item_hash", "doc_hash"),
    "run": ("run",),
    "task": ("task",),
    "model": ("model",),
    "metric": ("metric",),
}
TABLE_SUFFIXES: tuple[str, ...] = (".csv", ".tsv", ".jsonl", ".ndjson", ".parquet")
REASONS = (MISSING, NON_NUMERIC, NON_FINITE)
RUN_LEVEL = tuple(name for key in ("run", "model", "task", "metric") for name in ALIASES[key])
"""Columns a Parquet file may hold one value in, read from their dictionary (:func:`_arrow_table`)."""


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
    except ImportError:
        raise InputError("reading tables needs pyarrow: pip install pyarrow (a dependency of evaladdon that is missing here)") from None
    return pa


def _csv_header(path: Path, delimiter: str) -> list[str]:
    with path.open("r", encoding="utf-8-sig", errors="replace", newline="") as fh:
        first = fh.readline()
    if not first.strip():
        raise InputError("the file is empty", str(path))
    return next(csv.reader(io.StringIO(first), delimiter=delimiter))


def _read_csv(path: Path, delimiter: str) -> Any:
    """Every column as a string (ids like ``007`` keep their zeros; ``raw`` is exact); ``large_string``,
    the type of pandas' ``str`` columns, so they share the parser's buffers instead of copying them."""
    pa = _pyarrow()
    from pyarrow import csv as pacsv

    names = _csv_header(path, delimiter)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"column {dup!r} appears twice in the header", str(path))
    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(block_size=1 << 24),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(column_types={n: pa.large_string() for n in names},
                                             strings_can_be_null=False,
                                             null_values=[], quoted_strings_can_be_null=False),
    )
    pa.default_memory_pool().release_unused()  # the parser's block buffers: not part of the peak that follows
    return table


def _read_jsonl(path: Path) -> Any:
    """JSON lines through ``pyarrow.json``; through :func:`read_json_records` where it refuses
    (``pandas.read_json`` would turn ``null`` into NaN and ints into floats, losing the
    difference between a missing score and a ``NaN`` literal)."""
    pa = _pyarrow()
    from pyarrow import json as pajson

    with path.open("rb") as fh:
        head = fh.read(4)
    if not head.lstrip(b"\xef\xbb\xbf").lstrip().startswith(b"["):
        # pyarrow's JSON parser recurses once per level and dies with SIGSEGV near 10,000
        # levels: the one depth guard of all readers first (streamed, bounded memory), line by
        # line as pyarrow reads it (the record reader below checks each document it parses)
        check_file_depth(path, lines=True)
        try:
            return pajson.read_json(path, read_options=pajson.ReadOptions(block_size=1 << 24))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            pass  # NaN literals, mixed types, ...: the record reader says exactly what is wrong
    records = read_json_records(path)
    for i, r in enumerate(records):
        if not isinstance(r, dict):
            raise InputError(f"line {i + 1}: expected a JSON object, found {type(r).__name__}", str(path))
    return pd.DataFrame.from_records(records)


def read_arrow_table(path: Path) -> Any:
    """The file as a ``pyarrow.Table`` (csv/tsv/parquet/jsonl), or a DataFrame for JSON the
    arrow reader refuses.  One-line :class:`InputError` for anything unreadable."""
    return _arrow_table(path, None)


def _arrow_table(path: Path, constants: dict[str, str] | None) -> Any:
    """:func:`read_arrow_table`; with ``constants`` (a dict, filled in) a Parquet file's run-level
    columns of one value are read from their dictionaries (:func:`_read_parquet`; the same
    table, ``evaladdon.adapters.common.arrow_text.read_parquet``) and their names and values recorded."""
    check_regular(path)  # (judge's label files come here without the registry)
    suffix = path.suffix.lower()
    pa = _pyarrow()
    try:
        if suffix in (".csv", ".tsv"):
            return _read_csv(path, "\t" if suffix == ".tsv" else ",")
        if suffix in (".jsonl", ".ndjson"):
            return _read_jsonl(path)
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return pq.read_table(path) if constants is None else _read_parquet(path, RUN_LEVEL, constants)
    except InputError:
        raise
    except MemoryError:
        raise InputError("not enough memory to read this table", str(path)) from None
    except (pa.ArrowException, ValueError, OSError, UnicodeDecodeError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "Empty CSV file" in text or "Empty file" in text:
            raise InputError("the file is empty", str(path)) from None
        raise InputError(f"cannot read as {suffix[1:]}: {text}", str(path)) from None
    raise InputError(f"unsupported table format {suffix!r}; use csv, tsv, jsonl or parquet", str(path))


QUOTED_FORMULA = r"^'[=+\-@\t\r']"
QUOTED_NUMBER = r"^'[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$"


def unquote_formulas(table: Any) -> Any:
    """The text cells of a CSV written by ``evaladdon export`` as they were before it made them
    safe for spreadsheets (``evaladdon.cli.export_cmd.spreadsheet_safe``: a ``'`` before a cell
    that starts with ``= + - @``, tab, carriage return or ``'`` and is no plain number): that
    ``'`` taken off again, by arrow's string kernels (columns without a leading ``'`` untouched)."""
    pa = _pyarrow()
    import pyarrow.compute as pc

    for i, name in enumerate(table.column_names):
        col = table.column(i)
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            continue
        if not pc.any(pc.starts_with(col, "'")).as_py():
            continue
        quoted = pc.and_(pc.match_substring_regex(col, QUOTED_FORMULA),
                         pc.invert(pc.match_substring_regex(col, QUOTED_NUMBER)))
        table = table.set_column(i, name, pc.if_else(quoted, pc.utf8_slice_codeunits(col, 1), col))
    return table


def read_raw_table(path: Path) -> pd.DataFrame:
    """The file as a DataFrame of its own columns (used by ``judge`` for label files)."""
    t = read_arrow_table(path)
    return t if isinstance(t, pd.DataFrame) else t.to_pandas()


def _pick(names: list[str], name: str) -> str | None:
    for alias in ALIASES[name]:
        if alias in names:
            return alias
    return None


class _Columns:
    """Uniform access to the columns of a pyarrow Table or (fallback) a DataFrame."""

    def __init__(self, data: Any, constants: dict[str, str] | None = None) -> None:
        self.data = data
        self.constants = constants or {}  # columns of one value throughout (arrow), by name
        self.arrow = not isinstance(data, pd.DataFrame)
        self.names = [str(c) for c in (data.column_names if self.arrow else data.columns)]
        self.n = data.num_rows if self.arrow else len(data)

    def arrow_col(self, name: str) -> Any:
        """As a pyarrow (chunked) array; ``None`` for a DataFrame (the fallback path)."""
        return self.data.column(name) if self.arrow else None

    def pandas(self, name: str) -> pd.Series:
        if self.arrow:
            return self.data.column(name).to_pandas()
        return self.data[name].reset_index(drop=True)

    def strings(self, name: str) -> tuple[pd.Series, np.ndarray]:
        """The column as strings and its blank mask (null or white space only)."""
        if self.arrow:
            import pyarrow as pa
            import pyarrow.compute as pc

            col = self.arrow_col(name)
            if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
                try:
                    col = pc.cast(col, pa.large_string())  # pandas' str type: no second copy
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    s = col.to_pandas().astype(str)
                    return s, (s.str.strip() == "").to_numpy()
            if name in self.constants:  # one value in every row: its blank check is the column's
                return pd.Series(col.to_pandas()), np.full(self.n, bool(_blank(pa.array([self.constants[name]]))[0]))
            return pd.Series(col.to_pandas()), _blank(col)
        s = self.data[name].reset_index(drop=True)
        null = s.isna().to_numpy()
        text = s.astype(object).where(~null, "").astype(str)
        return text, null | (text.str.strip() == "").to_numpy()


def _with_correct(cols: _Columns) -> _Columns:
    """``cols`` with a :data:`CORRECT` column (read as the value column), computed column-wise."""
    pred, pred_blank = cols.strings("prediction")
    label, label_blank = cols.strings("label")
    correct = np.where(pred_blank | label_blank, np.nan,
                       (pred.to_numpy(dtype=object) == label.to_numpy(dtype=object)).astype(float))
    if cols.arrow:
        import pyarrow as pa

        data = cols.data.append_column(CORRECT, pa.array(correct, type=pa.float64(), from_pandas=True))
    else:
        data = cols.data.assign(**{CORRECT: correct})
    return _Columns(data, cols.constants)


FEW_LABELS_MIN_ROWS = 1 << 16
"""Tables with fewer rows keep ``raw`` as ``str`` (a categorical saves nothing worth a pass)."""
_FEW = 256
"""Labels among the first :data:`FEW_LABELS_MIN_ROWS` rows above which ``raw`` is left as ``str``."""


def _few_labels(raw: pd.Series) -> pd.Series:
    """The ``raw`` text of a long table as a categorical of its ``str`` values (first-appearance
    order) when it has few distinct values, as scores do (``0``/``1``, ``0.5``, ``C``/``I``):
    1-2 bytes a row instead of an 8-byte offset and the text (10M rows: 85 -> 10 MB, for
    ~0.25 s of arrow's hash kernel).  Left as it is (``str``) for small tables, for more than
    :data:`_FEW` values among the first rows, or more than 32,767 in all.  ``raw`` never has a
    missing value, so the categorical reads as the same ``str`` values everywhere."""
    if len(raw) < FEW_LABELS_MIN_ROWS or getattr(raw.dtype, "storage", None) != "pyarrow":
        return raw
    import pyarrow as pa

    arr = raw.array.__arrow_array__()
    if arr.null_count or not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return raw
    got = _labels_categorical(arr)
    return raw if got is None else got


def _labels_categorical(arr: Any) -> pd.Series | None:
    """:func:`_few_labels` of an arrow array without nulls: a categorical whose labels are its
    distinct values as ``str`` (arrow's cast to ``large_string``), in order of first appearance,
    or ``None`` for too many labels.  Given integers or booleans, the same categorical as their
    text would give (the cast is one-to-one on them), without making a string a row first."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(pc.unique(arr.slice(0, FEW_LABELS_MIN_ROWS))) > _FEW:
        return None
    encoded = pc.dictionary_encode(arr)
    chunks = encoded.chunks if hasattr(encoded, "chunks") else [encoded]
    labels = chunks[0].dictionary
    if len(labels) > 32767:
        return None
    codes = np.empty(len(arr), dtype=np.int8 if len(labels) <= 127 else np.int16)
    at = 0
    for c in chunks:
        codes[at:at + len(c)] = c.indices.to_numpy(zero_copy_only=False)
        at += len(c)
    del encoded, chunks
    categories = pd.Index(pd.Series(labels.cast(pa.large_string()).to_pandas()), copy=False)
    out = pd.Categorical.from_codes(codes, categories=categories, validate=False)
    getattr(out.categories, "_cache", {}).clear()  # from_codes' uniqueness check keeps a hash table
    return pd.Series(out, copy=False)


def _none_or_compact(errors: pd.Series, n: int) -> Any:
    """The ``error`` column: :func:`evaladdon.table.no_values` when a large table has no error
    at all (the usual case), else the object column of reasons and ``None``."""
    from evaladdon.table.columns import _is_none, all_missing

    if all_missing(errors):
        return errors  # no_values already
    if n >= FEW_LABELS_MIN_ROWS and bool(_is_none(errors.to_numpy()).all()):
        return no_values(n)
    return errors


def _early_clusters(cols: _Columns, cluster: str | None, item_col: str, value_col: str,
                    exported: bool) -> pd.Categorical | None:
    """The cluster column as a categorical (:func:`_label_codes`), made first, its arrow column then let
    go (10M rows: 141 MB less at the reader's peak); ``None`` (the column is read in its turn,
    and any error about it raised there) when the file is not read by arrow, has no such column,
    a blank cell in it, or the column is one the reader still needs for something else."""
    name = cluster if cluster is not None else _pick(cols.names, "cluster")
    if not cols.arrow or name is None or name not in cols.names:
        return None
    needed = {item_col, value_col} | {_pick(cols.names, k) for k in ALIASES if k != "cluster"}
    if name in needed or exported and name in ("raw", "error", "source", "harness") or name in OPTIONAL_COLUMNS:
        return None
    import pyarrow as pa

    col = cols.arrow_col(name)
    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        try:
            col = col.cast(pa.large_string())  # e.g. integer or dictionary-typed cluster ids in Parquet
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
    if _blank(col).any():
        return None  # kept as str with None where blank (a categorical's missing values read back as NaN)
    codes, labels = _label_codes(col, cols.n)
    del col
    cols.data = cols.data.drop_columns([name])
    pa.default_memory_pool().release_unused()  # the column and the hash table: arrow's allocator keeps them otherwise
    return _categorical(codes, labels)


def _label_codes(col: Any, n: int) -> tuple[np.ndarray, Any]:
    """Codes (int32, first-appearance order) and labels (an arrow array) of a label column with
    no blank cell (cluster ids), by arrow's hash kernel; :func:`_categorical` makes them a
    categorical of ``str`` labels whose codes are the statistics' first-appearance codes as they
    are.  A cluster column has few labels for its rows (items share a cluster): int32 codes and
    one string a label instead of one string a row (10M rows, 500k clusters: 141 -> ~48 MB);
    the column is encoded once, here, instead of in every summary."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(col)  # one memo for every chunk: every chunk has the whole dictionary
    chunks = encoded.chunks if hasattr(encoded, "chunks") else [encoded]
    codes = np.empty(n, dtype=np.int32)
    at = 0
    for c in chunks:
        codes[at:at + len(c)] = c.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        at += len(c)
    return codes, chunks[0].dictionary


def _categorical(codes: np.ndarray, labels: Any) -> pd.Categorical:
    import pyarrow as pa

    categories = pd.Index(pd.Series(labels.cast(pa.large_string()).to_pandas()), copy=False)
    out = pd.Categorical.from_codes(codes, categories=categories, validate=False)
    # from_codes checked the labels are unique with a hash table it keeps on the Index (500k
    # labels: 47 MB, a Python str each); nothing here looks labels up: let it go
    getattr(out.categories, "_cache", {}).clear()
    return out


def _scores(cols: _Columns, name: str, compact: bool = False) -> tuple[np.ndarray, pd.Series, pd.Series]:
    """Values, errors and raw strings of the value column; numeric columns never become
    strings and back (only ``raw`` is their text).  ``compact``: text scores without any
    error give :func:`evaladdon.table.no_values` errors (no 8-byte ``None`` a row first)."""
    if cols.arrow:
        import pyarrow as pa
        import pyarrow.compute as pc

        col = cols.arrow_col(name)
        null = col.is_null().to_numpy(zero_copy_only=False)
        if pa.types.is_floating(col.type) or pa.types.is_integer(col.type) or pa.types.is_boolean(col.type):
            values = pc.fill_null(pc.cast(col, pa.float64()), np.nan).to_numpy(zero_copy_only=False)
            nonfinite = ~null & ~np.isfinite(values)
            if compact and not null.any() and not nonfinite.any():  # no error at all (np.where: a fresh array)
                coded = (_labels_categorical(col) if pa.types.is_integer(col.type) or pa.types.is_boolean(col.type)
                         else None)  # the raw text as _few_labels would code it, from the numbers
                return (np.where(nonfinite, np.nan, values), pd.Series(no_values(cols.n), copy=False),
                        coded if coded is not None else pd.Series(pc.fill_null(pc.cast(col, pa.large_string()), "")
                                                                  .to_pandas()))
            raw = pc.fill_null(pc.cast(col, pa.large_string()), "")  # pandas' str type: no second copy
            errors = np.full(cols.n, None, dtype=object)
            errors[nonfinite] = NON_FINITE
            errors[null] = MISSING
            values = np.where(null | nonfinite, np.nan, values)
            return values, pd.Series(errors, dtype=object), pd.Series(raw.to_pandas())
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            values, missing, nonfinite = convert_strings(col)
            pa.default_memory_pool().release_unused()  # the cast's buffers (numpy's arrays come from elsewhere)
            if compact and not missing.any() and not nonfinite.any() and not np.isnan(values).any():
                raw = pc.fill_null(col, "") if col.null_count else col
                return values, pd.Series(no_values(cols.n), copy=False), pd.Series(raw.to_pandas())
            errors = np.full(cols.n, None, dtype=object)
            errors[np.isnan(values) & ~missing] = NON_NUMERIC
            errors[nonfinite] = NON_FINITE
            errors[missing] = MISSING
            if missing.any() or nonfinite.any():
                values = np.where(missing | nonfinite, np.nan, values)
            raw = pc.fill_null(col, "") if col.null_count else col
            return values, pd.Series(errors, dtype=object, copy=False), pd.Series(raw.to_pandas())
        series = col.to_pandas()  # nested values (lists, structs): the general path
    else:
        series = cols.data[name].reset_index(drop=True)
    values, errors = coerce_scores(series)
    s = series.astype(object)
    raw = s.where(s.notna(), "").map(str)  # mixed objects only (the fallback path)
    return values, errors.reset_index(drop=True), raw


def read_long_table(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """Read one long table into canonical rows (see module docstring).

    ``cluster`` names any column to cluster on; without it a ``cluster``/``cluster_id``
    column is used when present (blank cells there mean "no cluster").  Raises
    :class:`InputError` with the file and the problem for missing columns, bad epochs, or
    unreadable files; a table too large for memory is refused in one line.
    """
    p = Path(path)
    try:
        return _read_long_table(p, cluster)
    except MemoryError:
        raise InputError("not enough memory to read this table", str(p)) from None


# long: one column at a time in the order the checks depend on; each step frees what it read
def _read_long_table(p: Path, cluster: str | None) -> pd.DataFrame:
    constants: dict[str, str] = {}
    cols = _Columns(_arrow_table(p, constants) if p.suffix.lower() == ".parquet" else read_arrow_table(p), constants)
    where = str(p)
    if cols.n == 0:
        raise InputError("the table has no rows", where)
    names = cols.names
    exported = all(c in names for c in COLUMNS)
    if exported and cols.arrow and p.suffix.lower() in (".csv", ".tsv"):
        cols.data = unquote_formulas(cols.data)
    if _pick(names, "value") is None and "prediction" in names and "label" in names:
        cols = _with_correct(cols)  # a table of predictions and labels: its score is whether they agree
        names = cols.names
    item_col, value_col = _pick(names, "item"), _pick(names, "value")
    if item_col is None or value_col is None:
        need = [n for n, c in (("item", item_col), ("value", value_col)) if c is None]
        raise InputError(
            f"missing column(s) {', '.join(need)} (accepted names: item: {', '.join(ALIASES['item'])}; "
            f"value: {', '.join(ALIASES['value'])}); found {', '.join(names)}",
            where,
        )
    used = {item_col, value_col}
    out: dict[str, Any] = {}
    clusters = _early_clusters(cols, cluster, item_col, value_col, exported)
    item, blank = cols.strings(item_col)
    if blank.any():
        raise InputError(f"row {int(np.flatnonzero(blank)[0]) + 1}: empty item id in column {item_col!r}", where)
    out["item"] = item
    values, errors, raw = _scores(cols, value_col, compact=not exported and cols.n >= FEW_LABELS_MIN_ROWS)
    if cols.arrow:  # the casts' arrow buffers, freed but kept by arrow's allocator (10M rows: ~100 MB)
        _pyarrow().default_memory_pool().release_unused()
    if exported:  # an export reads back as written: its own raw text and reasons
        used.update(("raw", "error", "source", "harness"))
        raw, _ = cols.strings("raw")
        given, no_error = cols.strings("error")
        keep = ~no_error
        errors = pd.Series(np.where(keep, given.astype(object).to_numpy(), errors.to_numpy()), dtype=object)
        errors[~keep & ~np.isnan(values)] = None
        values = np.where(keep, np.nan, values)
    out["value"] = values
    if not exported:
        raw = _few_labels(raw)
        if isinstance(raw.dtype, pd.CategoricalDtype) and value_col not in (item_col, _pick(names, "cluster"), cluster):
            cols.data = cols.data.drop_columns([value_col])  # the scores' text, now codes: let it go
            _pyarrow().default_memory_pool().release_unused()
    out["raw"] = raw
    out["error"] = _none_or_compact(errors, cols.n)
    del errors

    epoch_col = _pick(names, "epoch")
    if epoch_col is not None:
        used.add(epoch_col)
        text, _ = cols.strings(epoch_col)
        epoch = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(epoch) | (epoch != np.floor(epoch)) | (np.abs(epoch) > 2**31)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise InputError(f"row {first + 1}: epoch {text.iloc[first]!r} is not a whole number", where)
        epoch_i = epoch.astype(np.int64)
        if epoch_i.min() == 0:
            epoch_i = epoch_i + 1  # 0-based repeats (lm-eval style) become 1-based
        if epoch_i.min() < 1:
            raise InputError(f"epochs must be >= 0 (0-based) or >= 1, found {int(epoch_i.min())}", where)
        del epoch, bad, text
        out["epoch"] = epoch_i.astype(np.int8) if cols.n >= FEW_LABELS_MIN_ROWS and epoch_i.max() <= 127 else epoch_i
    else:  # 1 byte a row in a large table (10M rows: 76 -> 10 MB; table.finalize keeps int8 epochs)
        out["epoch"] = np.ones(cols.n, dtype=np.int8 if cols.n >= FEW_LABELS_MIN_ROWS else np.int64)

    def constant(value: str, n: int = cols.n) -> pd.Categorical:  # (n bound here: cols is deleted below)
        # one byte a row (an object column of one shared str takes 8 and must be allocated,
        # scanned by every check and hashed by every groupby); the codes are calloc'ed zeros
        return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=pd.Index([value]), validate=False)

    model_col, run_col = _pick(names, "model"), _pick(names, "run")
    for name, col in (("model", model_col), ("run", run_col)):
        if col is not None:
            used.add(col)
            out[name], blank = cols.strings(col)
            if blank.any() and (name == "run" or run_col is None):  # a run needs a name (the model's, without a run column)
                raise InputError(f"row {int(np.flatnonzero(blank)[0]) + 1}: empty run id in column {col!r}", where)
    if run_col is None:
        out["run"] = out["model"] if model_col is not None else constant(p.stem)
    if model_col is None:
        out["model"] = out["run"]
    task_col = _pick(names, "task")
    out["task"] = cols.strings(task_col)[0] if task_col is not None else constant("default")
    metric_col = _pick(names, "metric")
    out["metric"] = cols.strings(metric_col)[0] if metric_col is not None else constant(value_col)
    used.update(c for c in (task_col, metric_col) if c is not None)

    hash_col = _pick(names, "item_hash")
    if hash_col:
        used.add(hash_col)
        h, blank = cols.strings(hash_col)
        out["item_hash"] = h.astype(object).where(~blank, None) if blank.any() else h
    else:
        out["item_hash"] = no_values(cols.n) if cols.n >= FEW_LABELS_MIN_ROWS else np.full(cols.n, None, dtype=object)

    if cluster is not None and cluster not in names:
        raise InputError(f"no column {cluster!r} to cluster on; columns are {', '.join(names)}", where)
    cluster_col = cluster if cluster is not None else _pick(names, "cluster")
    if clusters is not None:
        used.add(cluster_col)
        out["cluster"] = clusters
    elif cluster_col is not None:
        used.add(cluster_col)
        cl, blank = cols.strings(cluster_col)
        if blank.any() and cluster is not None:  # the user asked to cluster on this column
            raise InputError(f"row {int(np.flatnonzero(blank)[0]) + 1}: empty cluster id in column {cluster_col!r}",
                             where)
        out["cluster"] = cl.astype(object).where(~blank, None) if blank.any() else cl
    else:
        out["cluster"] = np.full(cols.n, None, dtype=object)

    if exported:
        out["source"] = cols.strings("source")[0]
        harness = cols.strings("harness")[0]
        unknown = ~harness.isin(HARNESSES).to_numpy()
        if unknown.any():
            raise InputError(f"row {int(np.flatnonzero(unknown)[0]) + 1}: unknown harness "
                             f"{harness.iloc[int(np.flatnonzero(unknown)[0])]!r}", where)
        out["harness"] = harness
    else:
        out["source"] = constant(where)
        out["harness"] = constant("table")
    for col in OPTIONAL_COLUMNS:
        if col in names and col not in used:
            used.add(col)
            out[col] = cols.pandas(col)
    for col in names:
        if col not in used and col not in COLUMNS:
            out[col if col.startswith("meta.") else f"meta.{col}"] = cols.pandas(col)
    # canonical order first (finalize then reorders nothing); object arrays stay object (pandas 3
    # would otherwise infer its pyarrow string dtype, copying every constant column into
    # 10M-element string buffers); copy=False: no column is copied or consolidated into a block
    order = [c for c in COLUMNS if c in out] + [c for c in out if c not in COLUMNS]
    frame = pd.DataFrame({k: pd.Series(out[k], dtype=object, copy=False)
                          if isinstance(out[k], np.ndarray) and out[k].dtype == object else out[k]
                          for k in order}, copy=False)
    del cols
    _pyarrow().default_memory_pool().release_unused()  # kernels' scratch memory, kept by arrow's allocator
    return finalize(frame)
