"""Inspect sample records -> canonical rows (shared by the native and the inspect-ai readers).

Both readers reduce a log to a header (plain dicts: ``version``, ``status``, ``eval``,
``results``) and one :class:`~evaladdon.adapters.inspect.records.SampleRecord` per sample; a
:class:`Collector` turns every few thousand records into column batches (a streamed JSON log hands its records over as they
are read, so memory holds columns, not records), :func:`build_part` finishes the columns
(duplicates, unscored rows, metadata columns) and :func:`frame` makes the canonical table
(one DataFrame and one ``finalize`` for many logs at once: ``read_runs``), so the two
readers give the identical table by construction, whatever the batch size.  An ordinary
``.eval`` (every sample scored, with an id and an integer epoch, none twice) may arrive as
row lists instead (:class:`Pending`, from ``quick.quick_rows``), which ``frame``
converts for all such logs at once by the same rules.

Rules:

- Samples are keyed by ``(str(id), epoch)``; a key recorded twice keeps the **last** record
  (Inspect's own rule: a re-run sample is written after the attempt it replaces) and a note
  says how many were dropped.
- Values: Inspect's grade letters (exactly ``C``/``I``/``P``/``N`` -> 1/0/0.5/0) and
  ``yes``/``no`` (any case) are Inspect vocabulary mapped here; everything else goes through
  the one value converter :func:`evaladdon.adapters.common.scores.coerce_scores`.  Dict-valued
  scores become one metric per key (``scorer/key``); list values are non-numeric.
- Texts are taken in the form Inspect keeps in ``summaries.json`` whichever container was
  read, so an ``.eval`` and a ``.json`` of the same run give the same table: top-level
  metadata strings and score answers whitespace-collapsed and cut at 1,024 characters
  (Inspect's ``thin_text``), other metadata values over 1 KB of JSON replaced by Inspect's
  "Key removed from summary (> 1k)", targets cut at 5,120 characters.  Records are reduced
  to these fields as they are read (:func:`~evaladdon.adapters.inspect.records.make_record`), so
  memory does not grow with inputs or transcripts, and become columns batch by batch (:class:`Collector`).
- ``prediction`` = the score's ``answer``; ``label`` = the sample ``target`` (a list of one
  target as that string, longer lists as a JSON array); ``confidence`` only from an explicit
  ``confidence`` or ``probability`` number in [0, 1] in the score's metadata.
- ``item_hash`` = SHA-256 of ``{"input": ..., "target": ...}`` normalised so that the
  thinned copy Inspect keeps in ``summaries.json`` and the full sample of a JSON log hash the
  same: every text cut to its first 5,120 characters (Inspect's summary limit, its
  "(content truncated)" marker removed), chat messages reduced to ``[role, text parts]`` with
  non-text parts as ``"(Image)"`` etc. (Inspect's placeholders) and message ids dropped (they
  differ per run).  ``None`` when a record has no input (never a hash of the target alone).
- A log with samples but no score anywhere (no sample score, no ``results.scores``) is
  refused: "no scores in this log".
- What the log declares (``results.total_samples``, else ``eval.dataset.samples`` x epochs
  within ``limit``/``sample_id``) is compared with what was read; a shortfall is a note and
  ``df.attrs["incomplete"]`` (declared, read, missing); ids that were never written cannot
  become rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evaladdon.adapters.common.scores import coerce_scores, raw_strings
from evaladdon.adapters.inspect.parts import (
    Part,
    Pending,
    _as_objects,
    _Batch,
    _arrow_texts,
    _cat,
    _cat_strings,
    _column,
    _has_text,
    _is_arrow,
    _object_texts_as_arrow,
    _objects,
    _records_column,
    _strings,
    _take_strings,
    _text_at,
    convert_pending,
    pending_columns,
    pending_metas,
)
from evaladdon.adapters.inspect.judges import judges_of
from evaladdon.adapters.inspect.records import SampleRecord, _declared, _run_of
from evaladdon.adapters.inspect.walk import UNSCORED, Texts, Walked, log_metrics, result_scores, row_plan, walk
from evaladdon.adapters.tuning import DEFAULT, ReadTuning
from evaladdon.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


@dataclass
class LogData:
    header: dict[str, Any]
    records: list[SampleRecord] | Collector | Pending  # Pending: an ordinary .eval read quickly; a streamed log's records arrive already as columns
    n_members: int | None  # sample members in an .eval zip
    unlisted: int  # members no summary listed (read from the member itself)
    summary_source: str
    samples_logged: bool = True  # False: a JSON log without a ``samples`` key (header only)
    known: list[str] | None = None  # the log's metrics, when the records are only some of its samples (spilled)


class RowsSink:
    """The rows sink of :class:`~evaladdon.adapters.inspect.walk.Collector` (its default): each
    walked batch becomes a :class:`_Batch` of the table's columns (values converted by
    :func:`evaladdon.adapters.common.scores.coerce_scores`, raw texts, answers, labels, hashes,
    metadata), and :func:`build_part` finishes them."""

    def start(self, col: Collector) -> None:
        """Nothing to set up: batches go to ``col.batches``."""

    def drop(self, col: Collector) -> None:
        col.batches.clear()

    def flush(self, col: Collector, w: Walked) -> None:
        import pandas as pd

        row_sample = np.asarray(w.row_sample, dtype=np.int64)
        convert = w.convert
        if len(convert):
            if all(type(c) is float or type(c) is int for c in convert):
                # every value a number (grades already mapped): coerce_scores' numeric path, the same
                # values and reasons (NaN/inf non-finite) without classifying objects one by one
                values, value_error = coerce_scores(pd.Series(np.array(convert, dtype=float)))
            else:
                values, value_error = coerce_scores(pd.Series(convert, dtype=object))
            row_reason = w.reasons[row_sample]
            has_reason = row_reason >= 0
            values = np.where(has_reason, np.nan, values)
            row_errors = np.where(has_reason, col.texts.objects(row_reason), value_error.to_numpy())
            # raw_strings' pandas round trip costs ~0.7 ms a batch, most of a small log's reading
            raw = _objects(w.raws) if w.all_str else raw_strings(pd.Series(w.raws, dtype=object)).to_numpy()
            codes, uniques = pd.factorize(raw)  # equal raw texts as one object
            raw = np.asarray(uniques, dtype=object)[codes]
        else:
            values, row_errors, raw = np.empty(0), np.empty(0, dtype=object), np.empty(0, dtype=object)
        codes = np.asarray(w.metrics, dtype=np.int64)
        metrics = col.metric_texts.objects(codes)
        col.batches.append(_Batch(
            _strings(w.items), np.array(w.epochs, dtype=np.int64), w.scored, w.nrows, w.reasons, w.errors,
            _strings(w.hashes), _strings(w.labels),
            col.cluster_texts.objects(w.clusters) if w.clusters is not None else None, w.meta_keys,
            {key: _objects(mcol) for key, mcol in w.metas.items()},
            w.nscores, np.array(w.score_name, dtype=np.int64),
            metrics, codes, raw, values, row_errors, _strings(w.answers), np.array(w.confidences, dtype=float)))


ROWS = RowsSink()
"""The rows sink: ``Collector(cluster)``."""


class Collector:
    """Sample records -> a sink's columns as a log is read, so that what a log keeps in memory
    is its table's columns, not one record per sample (a streamed ``.json`` log of any size
    then stays near the size of its table: ``benchmarks/bench_inspect.py --rss-sizes``).
    Every ``batch_size`` records go through :func:`~evaladdon.adapters.inspect.walk.walk` into the sink; ``build_part`` finishes
    them with column operations (duplicates, unscored rows, the order of score names and
    metadata columns), giving the same table whatever the batch size
    (``tests/adapters/test_inspect_native.py``).

    ``lean=None``: the rows sink (:data:`ROWS`); ``lean=COLUMNS``
    (:data:`evaladdon.adapters.inspect.columns.COLUMNS`, the sink of the pandas-free
    summarize, :mod:`evaladdon.routes.inspect_columns`): numbers and codes only, grown into one
    set of columns, and ``build_part`` applies the same rules to them, giving a ``LeanPart``;
    ``hashes=True`` adds each sample's content hash to them (``LeanPart.hashes``, for the
    pandas-free compare, :mod:`evaladdon.routes.inspect_arrays`), which the lean summarize
    does not pay for.

    Errors keep their precedence over the whole log: a sample without id or integer epoch
    is reported at the end (the first one), and a value that cannot be shown or converted
    (too deep, an int past float range) only when its sample is kept (not replaced by a
    later record of the same key)."""

    def __init__(self, cluster: str | None = None, batch_size: int | None = None, lean: Any = None,
                 hashes: bool = False) -> None:
        self.cluster = cluster
        # the columns sink keeps each sample's content hash too (compare pairs on it; summarize
        # does not ask, and keeps none); the rows sink keeps them always
        self.hashes = hashes
        # a columns sink (evaladdon.adapters.inspect.columns.COLUMNS): numbers only, no pandas, no
        # pyarrow, no texts kept; None: the rows of the table
        self.lean = lean
        self.sink: Any = lean or ROWS
        self.batch_size = max(1, int(DEFAULT.batch_size if batch_size is None else batch_size))
        self.batches: list[Any] = []
        self.names: dict[str, int] = {}  # score names in order of first appearance -> code
        self.metric_codes: dict[tuple[str, Any], int] = {}  # (score name, key or None) -> code in metric_texts
        self.metric_texts = Texts()  # metric names (``name`` or ``name/key``)
        self.texts = Texts()  # reasons (sample error, limit) and, in the columns sink, value errors
        self.cluster_texts = Texts()  # cluster labels
        self.key_sets: dict[tuple[str, ...], int] = {}  # tuples of meta.* keys -> code (rows sink)
        self.failed: dict[int, BaseException] = {}  # sample index -> first error of its rows
        self.bad: tuple[Any] | None = None  # (id,) of the first sample without id or integer epoch
        self.n = 0  # samples in batches
        self.lean_columns: Any = None  # the columns sink's columns so far (its Grown)
        self._pending: list[SampleRecord] = []
        self.sink.start(self)

    def add(self, r: SampleRecord) -> None:
        self._pending.append(r)
        if len(self._pending) >= self.batch_size:
            self.flush()

    def extend(self, records: Any) -> Collector:
        for r in records:
            self.add(r)
        return self

    def flush(self) -> None:
        """The pending records through :func:`~evaladdon.adapters.inspect.walk.walk` into the sink."""
        recs, self._pending = self._pending, []
        if not recs or self.bad is not None:
            return
        walked = walk(self, recs, rich=not self.lean)
        if walked is None:
            self.sink.drop(self)
            return
        self.sink.flush(self, walked)
        self.n += len(recs)


def no_scores(n_kept: int, n_err: int, where: Path) -> InputError:
    """The refusal of a log none of whose kept samples has a score (both reading paths)."""
    return InputError(f"no scores in this log ({n_kept} sample(s), none scored"
                      + (f", {n_err} with errors" if n_err else "") + ")", where)


def raise_first_failure(bad_cluster: np.ndarray, failed: dict[int, Exception], n: int, sel: Any,
                        kept: np.ndarray | None, label_at: Any, epochs: np.ndarray, cluster: str | None,
                        where: Path) -> None:
    """Raise for the first kept sample (in table order) whose cluster field (``bad_cluster``:
    kept positions without one) or a value (``failed``: sample index -> exception) fails, as
    the rows were met: cluster field first, then the sample's values (both reading paths)."""
    bad_value = np.empty(0, np.int64)
    if failed:
        mask = np.zeros(n, dtype=bool)
        mask[list(failed)] = True
        bad_value = np.flatnonzero(sel(mask))
    if len(bad_cluster) and (not len(bad_value) or bad_cluster[0] <= bad_value[0]):
        j = int(bad_cluster[0])
        raise InputError(f"sample {label_at(j)!r} (epoch {int(epochs[j])}) has no scalar metadata field "
                         f"{cluster!r} to cluster on", where)
    if len(bad_value):
        j = int(bad_value[0])
        raise failed[int(j if kept is None else kept[j])]

# long: the record rules in the order they apply; step 4d of the redesign shares them with the columns sink
def build_part(log: LogData, path: Path, cluster: str | None, *, tuning: ReadTuning | None = None) -> Part:
    """One Inspect log's rows (see module docstring); :func:`frame` makes the table.

    ``log.records``: a list of records or the :class:`Collector` that gathered them (a list
    is collected in batches of ``tuning.batch_size``)."""
    where = str(path)
    header = log.header
    spec = header.get("eval") or {}
    results = result_scores(header)

    if isinstance(log.records, Pending):
        return _pending_part(log, path, cluster, log.records, spec)
    col = log.records if isinstance(log.records, Collector) else Collector(
        cluster, batch_size=(tuning or DEFAULT).batch_size).extend(log.records)
    if col.cluster != cluster:
        raise ValueError(f"records were collected for cluster {col.cluster!r}, not {cluster!r}")
    col.flush()
    if col.bad is not None:
        raise InputError(f"cannot read as an Inspect log (sample {str(col.bad[0])[:40]!r} has no id or integer epoch)",
                         where)
    if col.lean:
        return col.lean.build(col, log, path, cluster, results)  # type: ignore[no-any-return]
    batches = col.batches
    items = _cat_strings([b.items for b in batches])
    epochs = _cat(batches, "epochs", np.int64)
    n = len(items)

    # (id, epoch) keys; the last record of a key wins, at the place of its first record
    # (dict order, as Inspect's own de-duplication)
    kept: np.ndarray | None = None
    if n:
        if _is_arrow(items):
            import pyarrow.compute as pc

            if pc.count_distinct(items).as_py() < n:  # (no hash table kept when ids are distinct)
                encoded = items.combine_chunks().dictionary_encode()
                icode, iuniq = encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary
            else:
                icode, iuniq = None, items
        else:
            import pandas as pd

            icode, iuniq = pd.factorize(items)
        if len(iuniq) < n:
            euniq, ecode = np.unique(epochs, return_inverse=True)
            key = icode.astype(np.int64) * len(euniq) + ecode
            _, first = np.unique(key, return_index=True)
            if len(first) < n:
                _, last_rev = np.unique(key[::-1], return_index=True)
                kept = (n - 1 - last_rev)[np.argsort(first, kind="stable")]
    n_kept = n if kept is None else len(kept)
    n_dup = n - n_kept

    def sel(a: Any) -> Any:
        return a if kept is None else _take_strings(a, kept)

    # metrics: the log's results first, then as they first appear in the kept samples
    scored_all = _cat(batches, "scored", bool)
    nrows_all = _cat(batches, "nrows", np.int64)
    known = log_metrics(col, log.known, results, _cat(batches, "metric_codes", np.int64), nrows_all,
                        _cat(batches, "score_name", np.int64), _cat(batches, "nscores", np.int64), kept, n)
    if n_kept and not known:
        raise no_scores(n_kept, int(sel(_cat(batches, "errors", bool)).sum()), where)

    kept_items, kept_epochs = sel(items), sel(epochs)
    clusters = sel(_cat(batches, "clusters", object)) if cluster is not None else None
    # the first kept sample (in table order) whose cluster field or a value fails, as the
    # row builder met them: cluster field first, then the sample's values
    bad_cluster = np.flatnonzero(clusters == None) if clusters is not None else np.empty(0, np.int64)  # noqa: E711
    raise_first_failure(bad_cluster, col.failed, n, sel, kept, lambda j: _text_at(kept_items, j), kept_epochs,
                        cluster, where)

    # rows: a scored sample's own rows, an unscored one a row per known metric
    plan = row_plan(kept, scored_all, nrows_all, len(known), _cat(batches, "reasons", np.int64))
    total, row_sample = plan.total, plan.row_sample
    metrics = _cat(batches, "metrics", object)
    raws = _cat(batches, "raws", object)
    values = _cat(batches, "values", float)
    row_errors = _cat(batches, "row_errors", object)
    answers = _cat_strings([b.answers for b in batches])
    confidences = _cat(batches, "confidences", float)
    if plan.fill is not None:
        src, other, within, reasons = plan.fill
        reasons[reasons < 0] = col.texts(UNSCORED)
        known_arr = _objects(known)

        def take(a: np.ndarray, fill: Any) -> np.ndarray:
            out = a[src] if len(a) else np.empty(total, dtype=a.dtype)
            out[other] = fill
            return out

        metrics = take(metrics, known_arr[within[other]] if len(known_arr) else None)
        values = take(values, np.nan)
        row_errors = take(row_errors, col.texts.objects(reasons))
        raws = take(raws, "")
        answers = take(_as_objects(answers), None)
        confidences = take(confidences, np.nan)
        del src, other, within, reasons
    incomplete = incomplete_of(log, n_kept)
    per_row = (lambda a: _take_strings(a, row_sample)) if not (plan.fill is None and n_kept == total
                                                                and bool((nrows_all == 1).all())) else (lambda a: a)
    hashes = sel(_cat_strings([b.hashes for b in batches]))
    labels = sel(_cat_strings([b.labels for b in batches]))

    columns = list(_CANONICAL)
    if _has_text(answers):
        columns.append("prediction")
    if _has_text(labels):
        columns.append("label")
    if bool((~np.isnan(confidences)).any()):
        columns.append("confidence")
    metas: dict[str, np.ndarray] = {}
    if n_kept:
        key_codes = sel(_cat(batches, "meta_keys", np.int64))
        uniq, at = np.unique(key_codes, return_index=True)
        key_tuples = list(col.key_sets)
        order = [k for c in uniq[np.argsort(at)] for k in key_tuples[c]]
        for key in dict.fromkeys(order):
            metas[key] = sel(np.concatenate([b.metas[key] if key in b.metas else np.full(len(b.items), np.nan, object)
                                             for b in batches]))
        columns.extend(k for k in metas if k not in columns)
    judges = judges_of(header)
    return Part(where, _run_of(spec), str(spec.get("task")), str(spec.get("model")), total, metrics,
                per_row(kept_items), per_row(kept_epochs), values, raws, row_errors, answers, confidences,
                per_row(clusters) if clusters is not None else None, per_row(hashes), per_row(labels), metas,
                row_sample, n_kept, columns + _judge_column(judges), _notes(path, log, header, n_kept, n_dup),
                incomplete, judges=judges)


def _judge_column(judges: dict[str, str]) -> list[str]:
    """The optional ``judge`` column, last, for a log with model-graded scorers (their graders)."""
    return ["judge"] if judges else []


def _pending_part(log: LogData, path: Path, cluster: str | None, rows: Pending, spec: dict[str, Any]) -> Part:
    """:func:`build_part` of an ordinary log (see :class:`Pending`): its rows stay lists."""
    if rows.cluster != cluster:
        raise ValueError(f"rows were collected for cluster {rows.cluster!r}, not {cluster!r}")
    n_kept = rows.n_samples
    declared, basis = _declared(log.header) if _samples_logged(log) else (None, "")
    incomplete = None
    if declared is not None and declared > n_kept:
        incomplete = {"declared": declared, "read": n_kept, "missing": declared - n_kept, "basis": basis}
    judges = judges_of(log.header)
    return Part(str(path), _run_of(spec), str(spec.get("task")), str(spec.get("model")), len(rows.metrics),
                rows.metrics, None, None, None, None, None, None, None, None, None, None, {}, None, n_kept,  # type: ignore[arg-type]
                list(rows.columns) + _judge_column(judges), _notes(path, log, log.header, n_kept, 0), incomplete,
                pending=rows, judges=judges)


def build_table(log: LogData, path: Path, cluster: str | None, *, tuning: ReadTuning | None = None) -> pd.DataFrame:
    """Canonical rows of one Inspect log (see module docstring)."""
    return table_of(build_part(log, path, cluster, tuning=tuning))


def _samples_logged(log: LogData) -> bool:
    config = (log.header.get("eval") or {}).get("config") or {}
    return log.samples_logged and config.get("log_samples") is not False


def incomplete_of(log: LogData, n_kept: int) -> dict[str, Any] | None:
    """What an incomplete log misses (declared, read, missing, basis), ``None`` when complete."""
    declared, basis = _declared(log.header) if _samples_logged(log) else (None, "")
    if declared is not None and declared > n_kept:
        return {"declared": declared, "read": n_kept, "missing": declared - n_kept, "basis": basis}
    return None


def _notes(p: Path, log: LogData, header: dict[str, Any], n_samples: int, n_dup: int) -> list[str]:
    notes = []
    status = header.get("status")
    declared, basis = _declared(header) if _samples_logged(log) else (None, "")
    if status != "success":
        notes.append(f"{p}: log status is {status!r}" + (f" ({n_samples} sample(s) recorded)" if n_samples else ""))
    if n_samples == 0:
        why = "" if _samples_logged(log) else " (it was written without them: log_samples off or header only)"
        notes.append(f"{p}: the log holds no samples{why}, so it adds no rows")
    if declared is not None and declared > n_samples:
        notes.append(f"{p}: incomplete: the log declares {declared} sample(s) ({basis}) but holds {n_samples}; "
                     f"{declared - n_samples} missing sample(s) are not in the table")
    if log.unlisted:
        notes.append(f"{p}: {log.unlisted} sample(s) missing from {log.summary_source} were read from their "
                     "sample files")
    if n_dup:
        notes.append(f"{p}: {n_dup} duplicate (id, epoch) sample record(s); kept the last of each, as Inspect does")
    return notes


_CANONICAL = ("run", "source", "harness", "task", "model", "metric", "item", "epoch", "value", "raw", "cluster",
              "item_hash", "error")


def frame(parts: list[Part]) -> pd.DataFrame:
    """The canonical table of several logs' rows: one DataFrame and one
    :func:`evaladdon.table.finalize`, equal to concatenating the logs' own tables (columns in
    the order of first appearance; a column a log lacks is missing in its rows)."""
    import pandas as pd

    from evaladdon.table import finalize
    from evaladdon.table.codes import _release_arrow_memory

    if any(p.lean for p in parts):
        raise ValueError("a lean part holds no table columns")
    whole: dict[str, Any] | None = None  # every part's rows as lists: their columns converted at once, uncut
    if len(parts) > 1 and all(p.pending is not None for p in parts):
        whole = pending_columns([p.pending for p in parts])  # type: ignore[misc]
    elif any(p.pending is not None for p in parts):
        parts = convert_pending(parts)
    if len(parts) > 1 and whole is None:
        parts = [p for p in parts if p.n] or parts[:1]  # an empty log adds no rows and no columns (a pending one has rows)
    n = sum(p.n for p in parts)

    def rows(attr: str) -> np.ndarray:
        if whole is not None:
            return whole[attr]
        if len(parts) == 1:
            return getattr(parts[0], attr)
        return np.concatenate([getattr(p, attr) for p in parts])

    def texts(attr: str) -> Any:
        return _column(_cat_strings([whole[attr]] if whole is not None else [getattr(p, attr) for p in parts]))

    def constant(attr: str | None) -> Any:
        # a log's text repeated over its rows: an arrow take of the logs' texts when pandas keeps
        # str columns in arrow (what it makes of the same str objects, without converting each
        # row's: ~80 ns a row and column), else an object array, not a scalar (pandas makes a
        # str column of a scalar by a repeat and an arrow take, ~0.3 ms a column)
        values = [getattr(p, attr) if attr is not None else "inspect" for p in parts]
        texts = _strings(values) if n else None  # (no rows: the object column it was)
        if texts is not None and _is_arrow(texts):
            return _column(texts.take(np.repeat(np.arange(len(parts)), [p.n for p in parts])))
        if len(parts) == 1:
            return np.full(n, values[0], dtype=object)
        return np.repeat(np.array(values, dtype=object), [p.n for p in parts])

    clustered = (whole["clusters"] if whole is not None else parts[0].clusters) is not None
    cols: dict[str, Any] = {
        "run": constant("run"), "source": constant("source"), "harness": constant(None),
        "task": constant("task"),
        "model": constant("model"), "metric": rows("metrics"), "item": texts("items"), "epoch": rows("epochs"),
        "value": rows("values"), "raw": rows("raws"), "cluster": rows("clusters") if clustered else None,
        "item_hash": texts("hashes"), "error": rows("errors"),
    }
    order = list(dict.fromkeys(c for p in parts for c in p.columns))
    if "prediction" in order:
        cols["prediction"] = texts("answers")
    if "label" in order:
        cols["label"] = texts("labels")
    if "confidence" in order:
        cols["confidence"] = rows("confidences")
    if "judge" in order:  # model-graded scorers' graders (missing for other metrics)
        cols["judge"] = np.concatenate([pd.Series(p.metrics, dtype=object).map(p.judges).to_numpy(dtype=object)
                                        for p in parts])
    _meta_columns(parts, whole is not None, cols)
    _object_texts_as_arrow(cols)  # metric, raw, cluster, meta.*: as item above
    out = pd.DataFrame(cols, index=pd.RangeIndex(n))
    if list(out.columns) != order:
        out = out[order]
    out = finalize(out)
    # arrow's allocator (mimalloc) keeps the pages the batches' kernels touched; hand them
    # back so they do not add to the peak of what follows (the statistics): -5 to -8 MB
    # after a 20,000-60,000-sample log, ~1 ms
    _release_arrow_memory()
    return out


def _meta_columns(parts: list[Part], pending: bool, cols: dict[str, Any]) -> None:
    """The ``meta.*`` columns of ``parts`` (:func:`frame`) into ``cols``: each sample's value on
    its rows, NaN where a log lacks the key; ``pending``: the parts' rows are still lists
    (their metas and row samples converted here, :func:`pending_metas`); each as :func:`_meta_column`."""
    keys = list(dict.fromkeys(k for p in parts for k in (p.pending.metas if pending else p.metas)))  # type: ignore[union-attr]
    if not keys:
        return
    held = [pending_metas(p.pending) if pending else (p.metas, p.row_sample) for p in parts]  # type: ignore[arg-type]
    if len(parts) == 1:
        take = held[0][1]
    else:
        offsets = np.cumsum([0] + [p.n_samples for p in parts[:-1]])
        take = np.concatenate([h[1] + off for h, off in zip(held, offsets, strict=True)])
    for key in keys:
        values = [h[0][key] if key in h[0] else np.full(p.n_samples, np.nan, dtype=object)
                  for p, h in zip(parts, held, strict=True)]
        cols.setdefault(key, _meta_column(values[0] if len(values) == 1 else np.concatenate(values), take))


def _meta_column(values: np.ndarray, take: np.ndarray) -> Any:
    """A ``meta.*`` column: ``values`` (per sample, ``object``) on the rows ``take``.  Values that
    are all ``str``: one arrow array taken per row (what :func:`_records_column`, the take and
    :func:`_object_texts_as_arrow` made of them, without pandas' round trip and the Python
    ``str`` a row it made back); else :func:`_records_column`'s conversion, taken.  Oracle: that
    way (``tests/adapters/test_inspect_quick.py``)."""
    texts = _arrow_texts(values) if len(take) else None  # (no rows: the object column it was)
    return _column(texts.take(take)) if texts is not None else _records_column(values)[take]


def table_of(part: Part) -> pd.DataFrame:
    """One log's table, with its notes (and ``incomplete``) in ``attrs``."""
    df = frame([part])
    df.attrs["notes"] = part.notes
    if part.incomplete is not None:
        df.attrs["incomplete"] = part.incomplete
    return df
