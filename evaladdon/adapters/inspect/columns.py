"""The numbers of an Inspect log for the pandas-free summarize (``Collector(lean=COLUMNS)``).

:class:`~evaladdon.adapters.inspect.rows.Collector` hands a lean collector's records to
:func:`flush_lean`, and :func:`~evaladdon.adapters.inspect.rows.build_part` hands its
columns to :func:`build_lean_part`; the rules are the table path's (module docstring of
:mod:`evaladdon.adapters.inspect.rows`: last record of an ``(id, epoch)`` wins at the place
of its first, unscored samples get a row per known score name, the same error precedence),
and ``tests/routes/test_lean_summarize.py`` holds the output of both paths byte for byte equal.

What a sample costs (a streamed ``.json`` log of any size keeps only this; a 200,000-sample
log of short ids ~26 bytes a sample):

- its id as :func:`~evaladdon.adapters.inspect.rows.label_bytes` (the id's UTF-8 plus one
  byte, or a 21-byte digest past 64 bytes; exact ids, not hashes of short ones: a collision
  would change a number);
- every small integer at the narrowest width that holds what the log has so far (int8,
  widened when a larger one arrives, in chunks: :class:`Grown`): the epoch, the rows and scores of the
  sample, the code of its metric, of its error or limit reason and of its cluster;
  texts that repeat (metric names, error reasons, cluster labels) once per log, in
  :class:`Texts` (a distinct cluster label costs a ``str`` and a dict entry, ~100 bytes:
  a log with as many clusters as samples grows by that much a sample);
- its value as float64 (exact);
- only when asked (``Collector(hashes=True)``, the pandas-free compare): its content hash as
  :func:`~evaladdon.adapters.inspect.rows.label_bytes` (65 bytes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from evaladdon.adapters.inspect.parts import Part, label_bytes
from evaladdon.adapters.inspect.records import _run_of
from evaladdon.adapters.inspect.rows import _CANONICAL, _notes, incomplete_of, no_scores, raise_first_failure
from evaladdon.adapters.inspect.walk import SAMPLE_ERROR, UNSCORED, Texts, Walked, log_metrics, row_plan
from evaladdon.adapters.common.scores import coerce_values

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.adapters.inspect.rows import Collector, LogData

__all__ = ["COLUMNS", "SAMPLE_ERROR", "UNSCORED", "CodedTexts", "Columns", "ColumnsSink", "Grown", "LeanPart", "Texts",
           "first_positions", "narrow"]


def narrow(a: np.ndarray) -> np.ndarray:
    """Integers at the narrowest signed width that holds them (int8 ... int64)."""
    if a.size == 0:
        return a.astype(np.int8)
    lo, hi = int(a.min()), int(a.max())
    for dtype in (np.int8, np.int16, np.int32):
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return a.astype(dtype)
    return a.astype(np.int64, copy=False)


class Columns(NamedTuple):
    """A lean log's columns (per sample, per score, per row)."""

    # per sample
    items: np.ndarray  # label_bytes of str(id)
    epochs: np.ndarray  # narrow int
    scored: np.ndarray  # bool: has a non-empty scores dict
    nrows: np.ndarray  # narrow int: rows of a scored sample
    nscores: np.ndarray  # narrow int: scores of the sample
    reasons: np.ndarray  # narrow int: code in Collector.texts of "sample error" / "limit reached (...)", -1 none
    clusters: np.ndarray | None  # narrow int: code in Collector.cluster_texts, -1 where missing or not a scalar
    # per score (the order score names first appear in)
    score_name: np.ndarray  # narrow int: code in Collector.names
    # per row (scored samples only)
    metrics: np.ndarray  # narrow int: code in Collector.metric_texts
    values: np.ndarray  # float64 (NaN where the row has a reason)
    row_errors: np.ndarray  # narrow int: code in Collector.texts, -1 none
    # per sample, only when the collector asks (``Collector(hashes=True)``): label_bytes of the
    # content hash (b"" for none), else None
    hashes: np.ndarray | None = None


CHUNK = 1 << 16
"""Rows of one chunk of a lean column (:class:`Grown`)."""


class Grown:
    """A lean :class:`Collector`'s columns as they arrive: each a list of fixed chunks of
    :data:`CHUNK` rows, filled in place, made one array each at the end (a chunk at a time,
    each freed as it is copied), and widened chunk by chunk when a batch needs more room
    per value (a longer id, a larger code).

    Why chunks and not one array grown by a factor: growing copies the column next to
    itself (old and new at once) and leaves the freed smaller arrays as holes in the heap
    (~30-50 bytes a sample more peak RSS at 200,000 samples of UUID ids); a chunk is filled
    once and never moved, and the pages of a chunk not yet filled are not resident."""

    def __init__(self) -> None:
        self.chunks: dict[str, list[np.ndarray]] = {}
        self.fill: dict[str, int] = {}  # rows in the last chunk of each column
        self.size: dict[str, int] = {}

    def _append(self, name: str, arr: np.ndarray) -> None:
        chunks = self.chunks.setdefault(name, [])
        m = len(arr)
        at = 0
        while at < m:
            f = self.fill.get(name, CHUNK)
            if f == CHUNK:
                chunks.append(np.empty(CHUNK, dtype=arr.dtype))
                f = 0
            last = chunks[-1]
            if not np.can_cast(arr.dtype, last.dtype, "safe"):
                wide = np.empty(CHUNK, dtype=np.promote_types(last.dtype, arr.dtype))
                wide[:f] = last[:f]
                chunks[-1] = last = wide
            k = min(CHUNK - f, m - at)
            last[f:f + k] = arr[at:at + k]
            self.fill[name] = f + k
            at += k
        self.size[name] = self.size.get(name, 0) + m

    def add(self, b: Columns) -> None:
        for name in Columns._fields:
            arr = getattr(b, name)
            if arr is not None:
                self._append(name, arr)

    def _parts(self, name: str) -> list[np.ndarray]:
        chunks = self.chunks.get(name, [])
        return [c if i < len(chunks) - 1 else c[:self.fill[name]] for i, c in enumerate(chunks)]

    def batches(self) -> list[Any]:
        """The ids and epochs so far, a chunk at a time (views: drop them before :meth:`columns`)."""
        return [Columns(i, e, *(None,) * (len(Columns._fields) - 2))
                for i, e in zip(self._parts("items"), self._parts("epochs"), strict=True)]

    def columns(self, clustered: bool) -> Columns:
        """The columns as one array each; the chunks are let go (call once, at the end)."""
        out = {}
        for name in Columns._fields:
            if name == "clusters" and not clustered or name == "hashes" and name not in self.chunks:
                out[name] = None
                continue
            parts = self._parts(name)
            default = np.float64 if name == "values" else "S1" if name == "items" else bool if name == "scored" \
                else np.int8
            if len(parts) <= 1:
                out[name] = parts[0] if parts else np.empty(0, dtype=default)
            else:
                dtype = parts[0].dtype
                for p in parts[1:]:
                    dtype = np.promote_types(dtype, p.dtype)
                col = np.empty(self.size[name], dtype=dtype)
                chunks = self.chunks[name]
                at = 0
                for i, p in enumerate(parts):
                    col[at:at + len(p)] = p
                    at += len(p)
                    parts[i] = chunks[i] = None  # type: ignore[call-overload]
                    del p
                out[name] = col
            self.chunks.pop(name, None)
        return Columns(**out)


def flush_lean(col: Collector, w: Walked) -> None:
    """A walked batch (:func:`~evaladdon.adapters.inspect.walk.walk`) -> the lean columns of ``col``."""
    texts = col.texts
    if w.metrics:
        values, value_error = coerce_values(w.convert)  # NeedsStringKernels for a non-ASCII string
        row_reason = w.reasons[np.asarray(w.row_sample, dtype=np.int64)]
        has = row_reason >= 0
        values[has] = np.nan
        row_errors = np.where(has, row_reason, texts.of_objects(value_error))
    else:
        values, row_errors = np.empty(0), np.empty(0, dtype=np.int8)
    ep = np.array(w.epochs, dtype=np.int64)
    if len(ep) and (int(ep.min()) < -2**31 or int(ep.max()) >= 2**31):
        raise OverflowError("an epoch past 2**31")  # the table path reads such a log
    if col.lean_columns is None:
        col.lean_columns = Grown()
    col.lean_columns.add(Columns(
        label_bytes(w.items), narrow(ep), w.scored, narrow(w.nrows), narrow(w.nscores), narrow(w.reasons),
        narrow(w.clusters) if w.clusters is not None else None, narrow(np.array(w.score_name, dtype=np.int64)),
        narrow(np.array(w.metrics, dtype=np.int64)), values, narrow(row_errors),
        label_bytes(w.hashes) if col.hashes else None))
    col.batches = col.lean_columns.batches()  # items and epochs so far (the .eval reader reads them)


@dataclass
class CodedTexts:
    """An error column as codes into a log's texts: indexing it (``error[mask]``, all
    :func:`evaladdon.table.usable.unusable` does with it) gives the object array of ``str``/``None``
    the table's ``error`` column would, for those rows only (no object array of every row)."""

    codes: np.ndarray  # -1: none
    texts: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, key: Any) -> np.ndarray:
        table = np.empty(len(self.texts) + 1, dtype=object)
        table[1:] = self.texts
        return table[self.codes[key].astype(np.int64) + 1]


def _label_text(b: bytes) -> str:
    """The text of a :func:`label_bytes` element (for a message; a digest of a long text as hex)."""
    b = bytes(b)
    return "<" + b[1:].hex() + ">" if b[:1] == b"\xff" else b[:-1].decode("utf-8", "surrogatepass")


# long: the rules of build_part on columns, in its order; step 4d of the redesign merges the two
def build_lean_part(col: Collector, log: LogData, path: Path, cluster: str | None,
                    results: list[tuple[str, str | None]]) -> Any:
    """:func:`~evaladdon.adapters.inspect.rows.build_part` of a lean collector: a
    :class:`LeanPart` (the same rows as the table path's part, as numbers and codes)."""
    where = str(path)
    header = log.header
    spec = header.get("eval") or {}
    col.batches = []  # (its views would keep the chunks alive)
    g = (col.lean_columns or Grown()).columns(cluster is not None)
    col.lean_columns = None
    items, epochs = g.items, g.epochs
    n = len(items)

    kept, icode = _kept_samples(items, epochs)
    n_kept = n if kept is None else len(kept)
    n_dup = n - n_kept

    def sel(a: np.ndarray) -> np.ndarray:
        return a if kept is None else a[kept]

    # metrics: the log's results first, then as they first appear in the kept samples
    known = log_metrics(col, log.known, results, g.metrics, g.nrows, g.score_name, g.nscores, kept, n)
    texts = col.texts
    if n_kept and not known:
        code = texts.code.get(SAMPLE_ERROR)
        raise no_scores(n_kept, int((sel(g.reasons) == code).sum()) if code is not None else 0, where)

    kept_items, kept_epochs = sel(items), sel(epochs)
    hashes = sel(g.hashes) if g.hashes is not None else None
    clusters = sel(g.clusters) if cluster is not None and g.clusters is not None else None
    # the first kept sample (in table order) whose cluster field or a value fails, as the
    # table path meets them: cluster field first, then the sample's values
    bad_cluster = np.flatnonzero(clusters < 0) if clusters is not None else np.empty(0, np.int64)
    raise_first_failure(bad_cluster, col.failed, n, sel, kept, lambda j: _label_text(kept_items[j]), kept_epochs,
                        cluster, where)

    # rows: a scored sample's own rows, an unscored one a row per known metric
    metrics, values, row_errors = g.metrics, g.values, g.row_errors
    row_sample: np.ndarray | None = None  # None: row i is kept sample i
    total = n_kept
    if not (kept is None and bool(g.scored.all()) and bool((g.nrows == 1).all())):
        plan = row_plan(kept, g.scored, g.nrows, len(known), g.reasons)
        total, row_sample = plan.total, plan.row_sample
        if plan.fill is not None:
            src, other, within, reasons = plan.fill
            reasons[reasons < 0] = texts(UNSCORED)
            known_codes = np.array([col.metric_texts(k) for k in known], dtype=np.int64)

            def take(a: np.ndarray, fill: Any) -> np.ndarray:
                out = a[src] if len(a) else np.empty(total, dtype=a.dtype)
                if out.dtype.kind == "i":
                    out = out.astype(np.int64, copy=False)
                out[other] = fill
                return narrow(out) if out.dtype.kind == "i" else out

            metrics = take(metrics, known_codes[within[other]] if len(known_codes) else -1)
            values = take(values, np.nan)
            row_errors = take(row_errors, reasons)
            del src, other, within, reasons
    per_row = (lambda a: a) if row_sample is None else (lambda a: a[row_sample])
    incomplete = incomplete_of(log, n_kept)
    item_codes = per_row(sel(icode)) if icode is not None else None
    del icode
    metric_names = col.metric_texts.names()
    present = _first_seen_codes(metrics, len(metric_names))
    return LeanPart(where, _run_of(spec), str(spec.get("task")), str(spec.get("model")), total,
                    np.array([metric_names[c] for c in present], dtype=object), per_row(kept_items),
                    per_row(kept_epochs), values, None, row_errors, None, None,
                    per_row(clusters) if clusters is not None else None,
                    per_row(hashes) if hashes is not None else None, None, {}, row_sample, n_kept,
                    list(_CANONICAL), _notes(path, log, header, n_kept, n_dup), incomplete, True,
                    metric_codes=metrics, metric_names=metric_names, error_texts=texts.names(),
                    cluster_names=col.cluster_texts.names(), item_codes=item_codes)


def _kept_samples(items: np.ndarray, epochs: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The kept samples of (id, epoch) keys (``None``: all, in order; the last record of a key
    wins, at the place of its first record) and a code of each sample's id (``None``: every
    id distinct)."""
    n = len(items)
    kept: np.ndarray | None = None
    icode: np.ndarray | None = None  # per sample: a code of its id (None: every id distinct)
    if n > 1:
        order = np.argsort(items, kind="stable")  # equal ids together, in record order
        same = _same_as_previous(items, order)
        if same.any():
            icode = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
            icode[order[0]] = 0
            icode[order[1:]] = np.cumsum(~same, dtype=icode.dtype)
            e = epochs[order]
            if not bool((~same | (e[1:] > e[:-1])).all()):  # (each id's epochs rising in record order: no key twice)
                lo = int(epochs.min())
                key = icode.astype(np.int64) * (int(epochs.max()) - lo + 1) + (epochs.astype(np.int64) - lo)
                _, first = np.unique(key, return_index=True)
                if len(first) < n:
                    _, last_rev = np.unique(key[::-1], return_index=True)
                    kept = (n - 1 - last_rev)[np.argsort(first, kind="stable")]
                del key, first
            del e
        del order, same
    return kept, icode


def _same_as_previous(items: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``s[1:] == s[:-1]`` of ``s = items[order]``, a block at a time (no sorted copy of the
    ids: 37 bytes a sample for a UUID)."""
    same = np.empty(max(len(order) - 1, 0), dtype=bool)
    for at in range(0, len(same), _BLOCK):
        s = items[order[at:at + _BLOCK + 1]]
        same[at:at + len(s) - 1] = s[1:] == s[:-1]
    return same


def _first_seen_codes(codes: np.ndarray, k: int) -> list[int]:
    """The distinct codes (0..k-1) of ``codes`` in order of first appearance."""
    if not len(codes):
        return []
    first = first_positions(codes, k)
    present = np.flatnonzero(first < len(codes))
    return [int(c) for c in present[np.argsort(first[present], kind="stable")]]


_BLOCK = 1 << 16
"""Rows :func:`first_positions` looks at a time (its temporaries: ~20 bytes a row of a block)."""


def first_positions(codes: np.ndarray, k: int, mask: np.ndarray | None = None) -> np.ndarray:
    """For each code 0..k-1 the first position where it occurs in ``codes`` (among the rows
    where ``mask`` is true; codes below 0 never count), ``len(codes)`` where it does not: a
    block of rows at a time, so no temporary of every row."""
    n = len(codes)
    first = np.full(k, n, dtype=np.int64)
    for at in range(0, n, _BLOCK):
        block = codes[at:at + _BLOCK]
        if mask is None and len(block) and int(block.min()) >= 0:
            uniq, pos = np.unique(block, return_index=True)
        else:
            ok = block >= 0
            if mask is not None:
                ok &= mask[at:at + _BLOCK]
            where = np.flatnonzero(ok)
            if not len(where):
                continue
            uniq, pos = np.unique(block[where], return_index=True)
            pos = where[pos]
        first[uniq] = np.minimum(first[uniq], pos + at)
    return first


@dataclass
class LeanPart(Part):
    """A lean log's rows: ``metrics`` holds the distinct metric names in order of first
    appearance (what :func:`evaladdon.adapters.separate_runs` reads), ``metric_codes`` the
    metric of each row (a code in ``metric_names``), ``errors`` each row's error reason as a
    code in ``error_texts`` (-1 none), ``clusters`` codes in ``cluster_names``, ``items`` the
    ids as :func:`~evaladdon.adapters.inspect.rows.label_bytes` and ``item_codes`` codes of
    them (equal ids, equal codes; ``None`` when every row's id is its own), ``row_sample``
    ``None`` when row i is kept sample i, ``hashes`` each row's content hash as label bytes
    (``b""``: none) when the collector kept them (``Collector(hashes=True)``), else ``None``."""

    metric_codes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int8))
    metric_names: tuple[str, ...] = ()
    error_texts: tuple[str, ...] = ()
    cluster_names: tuple[str, ...] = ()
    item_codes: np.ndarray | None = None


class ColumnsSink:
    """The columns sink of :class:`~evaladdon.adapters.inspect.walk.Collector` (``Collector(cluster,
    lean=COLUMNS)``): grown columns of numbers and codes instead of row batches."""

    def start(self, col: Collector) -> None:
        """The columns so far (none)."""
        col.lean_columns = None

    def drop(self, col: Collector) -> None:
        col.lean_columns = None
        col.batches = []

    def flush(self, col: Collector, w: Walked) -> None:
        flush_lean(col, w)

    def build(self, col: Collector, log: LogData, path: Path, cluster: str | None,
              results: list[tuple[str, str | None]]) -> Any:
        return build_lean_part(col, log, path, cluster, results)


COLUMNS = ColumnsSink()
"""The columns sink: ``Collector(cluster, lean=COLUMNS)``."""
