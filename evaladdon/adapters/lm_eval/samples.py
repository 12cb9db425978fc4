"""lm-eval samples: the one light pass over sample records into canonical columns.

Reading: JSON lines are streamed (one line in memory at a time; a file under 4 MiB read whole after
its first line, :class:`~evaladdon.adapters.common.jsonlines.JsonLines`) and parsed with orjson; one light pass pulls the few fields a row
needs into column lists -- records shaped like the first regular one through one
``itemgetter``, the rest (and every error) through the general per-record code, with the
same result -- and everything after that is vectorised.  From the first regular record on,
the lines are decoded into typed records of only the fields the fast path reads (msgspec, the
rest skipped in C: :mod:`evaladdon.adapters.lm_eval.typed`), a line the type does not fit by
orjson.  Lines orjson refuses (``NaN`` literals) go to ``json`` after a depth check
(:mod:`evaladdon.adapters.common.jsonlines`).  When the rest of a small file was typed in one call
and every record is one the fast path reads plainly, the records are read as whole columns
instead (:mod:`.columns`, the same sink as record by record).

Rows per (doc_id, filter, metric), the metric named as in the results (``acc,none``).
Per-sample values that are lists (the inputs of corpus-level metrics such as f1 or bleu)
get the error ``corpus-level metric`` and keep their input as JSON text in ``raw``.
Repeats: a ``scores_per_repeat`` mapping (metric -> list of per-repeat scores) becomes epochs.
Multiple-choice samples fill ``prediction``, ``label`` and ``confidence`` on their ``acc`` and
``acc_norm`` rows (:mod:`.choices`; the rules are in :mod:`evaladdon.adapters.lm_eval`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

try:
    import orjson
except ImportError:  # pragma: no cover
    orjson = None  # type: ignore[assignment]

from evaladdon.adapters.common.jsonlines import JsonLines, read_json_array
from evaladdon.adapters.common.scores import NON_FINITE, coerce_scores, raw_strings
from evaladdon.adapters.lm_eval.choices import _fill_multiple_choice, _mc_extra
from evaladdon.adapters.lm_eval.columns import read_whole
from evaladdon.adapters.lm_eval.sink import _SCALARS, _close_run, _flush, _metric_of, _Sink
from evaladdon.adapters.lm_eval.typed import Typed, typed_lines
from evaladdon.adapters.tuning import DEFAULT, ReadTuning
from evaladdon.errors import InputError
from evaladdon.table.names import dotted_parts
from evaladdon.table.usable import CORPUS_LEVEL, PLUGIN_PAYLOAD

PAYLOAD_NAME = re.compile(r"_clustered(?:_se(?:_cr1)?)?(?:,|$)")  # evaladdon's own plug-in payloads
NOT_METRICS = {
    "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash",
    "prompt_hash", "target_hash", "task", "task_name", "scores_per_repeat", "truth", "index",
}
MC_METRICS = ("acc", "acc_norm")
MC_COLUMNS = ("prediction", "label", "confidence", "choice_lls")  # of evaladdon.table.OPTIONAL_COLUMNS, in this order
_WRITE_OUT = re.compile(r"^(prompt|logit)_\d+$")


def looks_like_samples_jsonl(head: bytes) -> bool:
    """lm-eval samples: a JSON array, or JSON lines, of objects with ``doc_id`` and ``doc``/``resps``."""
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
    if text.startswith("["):
        return '"doc_id"' in text[:2000]
    first = text.split("\n", 1)[0]
    return first.startswith("{") and '"doc_id"' in first[:300] and any(
        key in first for key in ('"doc"', '"resps"', '"arguments"', '"filtered_resps"'))


def _fast_schema(r: Any, with_doc: bool = False) -> tuple[Any, list[str], bool, tuple[str, ...]] | None:
    """The fields of a regular record (lm-eval 0.4.7+: a ``metrics`` list of names, a string
    ``filter``, ``doc_hash``): an ``itemgetter`` of doc_id, filter, doc_hash, metrics (and
    target, filtered_resps when ``acc`` is among the metrics), then the metric values, after
    one place-holder (``doc_id`` again: where the typed records of :mod:`.typed` hold
    ``scores_per_repeat``); the metric names; whether ``acc`` is; the fields.  ``with_doc``:
    ``doc`` too, after those and before the metric values.  None when ``r`` is not such a
    record, or logs ``acc_norm`` (its choice lengths are read by the general loop)."""
    if type(r) is not dict or type(r.get("filter")) is not str or "doc_id" not in r or "doc_hash" not in r:
        return None
    names = r.get("metrics")
    if type(names) is not list or not names or set(map(type, names)) != {str} or "acc_norm" in names:
        return None
    mc = "acc" in names
    fields = ("doc_id", "filter", "doc_hash", "metrics") + (("target", "filtered_resps") if mc else ()) + \
        (("doc",) if with_doc else ()) + tuple(names)
    return itemgetter(fields[0], *fields), list(names), mc, fields


def _extract(pairs: Iterable[tuple[int, Any]], *, filters: list[str], cluster: str | None,
             delim: str, source: str, metric_names: list[str] | None = None,
             place_word: str = "line", tuning: ReadTuning = DEFAULT) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The one pass over sample records (dicts) -> canonical columns (arrays) without
    run/task/model/source/harness.

    ``pairs`` yields ``(number, record)`` (line or sample number).  A record shaped like the
    first regular one (:func:`_fast_schema`) is read through one ``itemgetter`` and its
    multiple-choice log-likelihoods converted ~1,000 records at a time (:func:`_lls_or_none`);
    any other record goes through the general loop, which also raises the one-line errors.
    Both give the same rows (``tests/adapters/test_lm_eval_fast.py``); memory holds the columns, not
    the records.  ``tuning``: :attr:`~ReadTuning.fast_records`, ``lm_batch``, ``lm_flush``,
    ``lm_run``, ``lm_factorize_from``, ``typed_lines``, ``lm_columns``.

    The records before the first regular one go to the general path (:func:`_general_reader`)
    one by one, the schema tried on the first and every ``lm_batch``-th; from the first regular
    one on, :func:`_read_fast` reads the rest of ``pairs`` in one loop (JSON lines: decoded to
    typed records of only the schema's fields where they fit, :mod:`.typed`) -- or, when that
    rest came typed in one call and every record fits, :func:`~.columns.read_whole` reads it as
    whole columns (``tests/adapters/test_lm_eval_columns.py``); :func:`_finish` makes the arrays.
    """
    sink = _Sink()
    general = _general_reader(sink, filters=filters, cluster=cluster, delim=delim, source=source,
                              metric_names=metric_names, place_word=place_word)
    it = iter(pairs)
    if tuning.fast_records:
        doc_ids, try_every, with_doc = sink.doc_ids, tuning.lm_batch, cluster is not None
        for place, r in it:
            if len(doc_ids) % try_every == 0:  # the first record, then now and then
                schema = _fast_schema(r, with_doc)
                if schema is not None:  # this record and all after it: the fast path's loop (or columns)
                    typed = typed_lines(pairs, schema[3], cluster) if tuning.typed_lines else None
                    rest: Iterator[tuple[Any, Any]] | None = chain(((place, r),), it)
                    if typed is not None and tuning.lm_columns:  # a small file typed in one call: columns
                        rest = read_whole(sink, schema, place, r, pairs, it, cluster, tuning, typed)  # type: ignore[arg-type]
                    if rest is not None:
                        _read_fast(sink, schema, rest, general, cluster, tuning, typed,
                                   pairs.parsed if typed is not None else None)  # type: ignore[attr-defined]
                    break
            general(place, r)
    else:
        for place, r in it:
            general(place, r)
    return _finish(sink, cluster, tuning)


# long: a closure whose per-record function finds its lists' append as cell variables (hot path)
def _general_reader(sink: _Sink, *, filters: list[str], cluster: str | None, delim: str, source: str,
                    metric_names: list[str] | None, place_word: str) -> Callable[[Any, Any], None]:
    """The general path of :func:`_extract`: a function that reads one record of any shape into
    ``sink`` (``place``: its line or sample number, for the one-line errors it raises).  A closure,
    so the per-record function finds its lists' ``append`` as cell variables, not attributes."""
    doc_ids, info, metric_key = sink.doc_ids, sink.info, sink.metric_key
    ids_append, hashes_append, clusters_append = doc_ids.append, sink.hashes.append, sink.clusters.append
    rec_append, metric_append = sink.recs.append, sink.metrics_l.append
    epoch_append, raw_append = sink.epochs.append, sink.raw.append
    mc_rec_append, mc_fr_append, mc_len_append, mc_gold_append = (x.append for x in sink.mc)
    seen: dict[Any, int] = {}
    cluster_parts = cluster.split(".") if cluster is not None else []
    one_part = len(cluster_parts) == 1

    def read(place: Any, r: Any) -> None:
        if type(r) is not dict:
            raise InputError(f"{place_word} {place} is not an object", source)
        if "doc_id" not in r:
            raise InputError(f"{place_word} {place} has no doc_id", source)
        get = r.get
        i = len(doc_ids)
        doc_id = r["doc_id"]
        ids_append(doc_id)
        hashes_append(get("doc_hash"))
        filt = get("filter")
        if filt is None:
            key = doc_id if isinstance(doc_id, (str, int, float)) else repr(doc_id)
            k = seen.get(key, 0)
            seen[key] = k + 1
            if k < len(filters):
                filt = filters[k]
            elif k == 0:
                filt = "none"
            else:
                filt, info["extra_filters"] = f"filter{k}", True
        elif type(filt) is not str:
            filt = str(filt)
        if cluster is not None:
            doc = get("doc")
            cv = (doc.get(cluster) if type(doc) is dict else None) if one_part else dotted_parts(doc, cluster_parts)
            if cv is None or isinstance(cv, (dict, list)):
                raise InputError(f"doc {doc_id!r} has no scalar doc field {cluster!r} to cluster on", source)
            clusters_append(cv)
        names = get("metrics")
        if type(names) is not list:
            names = metric_names or [k for k in r if k not in NOT_METRICS and not _WRITE_OUT.match(k)]
        spr = get("scores_per_repeat")
        fr = get("filtered_resps")
        if type(fr) is list and len(fr) >= 2 and ("acc" in names or "acc_norm" in names):
            first = fr[0]  # one [loglikelihood, is_greedy] per choice (see _mc_extra)
            if type(first) is list and len(first) == 2 and type(first[0]) is not bool:
                target = get("target")
                if type(target) is int and "acc_norm" not in names:  # the common case, inline
                    lens, gold = None, (target if 0 <= target < len(fr) else -1)
                else:
                    lens, gold = _mc_extra(r, len(fr), target, delim, "acc_norm" in names)
                mc_rec_append(i)
                mc_fr_append(fr)
                mc_len_append(lens)
                mc_gold_append(gold)
        keys = metric_key.get(filt)
        if keys is None:
            keys = metric_key[filt] = {}
        for name in names:
            metric = keys.get(name) if type(name) is str else None
            if metric is None:
                metric = f"{name},{filt}" if filt else str(name)
                if type(name) is str:
                    keys[name] = metric
            values = spr.get(name) if type(spr) is dict else None
            if type(values) is list:
                info["has_repeats"] = True
                for e, v in enumerate(values, start=1):
                    rec_append(i)
                    metric_append(metric)
                    epoch_append(e)
                    raw_append(v)
            else:
                rec_append(i)
                metric_append(metric)
                epoch_append(1)
                raw_append(get(name))

    return read


# long: the reader's hot loop, every step of a fast record inline (benchmarks/bench_lm_eval.py)
def _read_fast(sink: _Sink, schema: tuple[Any, list[str], bool, tuple[str, ...]], pairs: Iterator[tuple[Any, Any]],
               general: Callable[[Any, Any], None], cluster: str | None, tuning: ReadTuning,
               typed: Typed | None = None, parsed: Callable[[Any], Any] | None = None) -> None:
    """The fast path of :func:`_extract`, from its first regular record to the end of ``pairs``:
    a record shaped like it (``schema``, :func:`_fast_schema`) is read through one
    ``itemgetter``; anything else (and every error) goes to ``general``, the general path
    (:func:`_general_reader`), and the loop goes on.  ``typed``: the records that come as its
    ``struct`` (:mod:`.typed`) give the same tuple by ``astuple`` (``scores_per_repeat`` first,
    ``UNSET`` when absent); one the fast path declines goes to ``general`` as ``parsed(place)`` gives it.

    Over 80 lines on purpose: this is the reader's hot loop, one iteration per record; every
    step of a fast record stays inline (no call per record but the ``itemgetter``), with the
    lists' ``append`` bound to locals once (``benchmarks/bench_lm_eval.py``)."""
    getter, f_names, acc, _ = schema
    n_names = len(f_names)
    at_doc = 7 if acc else 5
    t: Any
    doc_t: Any
    rec_t, doc_t = (typed.struct, typed.doc) if typed is not None else (None, None)
    astuple, unset = (typed.astuple, typed.unset) if typed is not None else (None, None)
    one_name = n_names == 1
    cluster_parts = cluster.split(".") if cluster is not None else []
    one_part = len(cluster_parts) == 1
    doc_ids, metric_key, pending = sink.doc_ids, sink.metric_key, sink.pending
    ids_append, hashes_append, clusters_append = doc_ids.append, sink.hashes.append, sink.clusters.append
    rec_append, metric_append = sink.recs.append, sink.metrics_l.append
    epoch_append, raw_append = sink.epochs.append, sink.raw.append
    pend_i, pend_fr, pend_gold = (x.append for x in pending)
    pend_idx, flush_at, min_run = pending[0], tuning.lm_flush, tuning.lm_run
    by_filter: dict[str, list[str]] = {}  # filter -> the rows' metric names
    plain = 0  # fast records with an int doc id, a str hash, a float value (and a str cluster value)
    run_start, run_filt, run_metric = -1, None, ""  # the open run of rows (see _close_run)
    for place, r in pairs:
        if type(r) is rec_t:  # a typed record: its fields, scores_per_repeat first
            t = astuple(r)  # type: ignore[misc]
            fits = t[0] is unset
        else:
            try:
                t = getter(r)
            except (KeyError, TypeError):
                t = None
            fits = t is not None and "scores_per_repeat" not in r
        if fits and t[4] == f_names and type(t[2]) is str:
            if cluster is not None:
                doc = t[at_doc]
                if type(doc) is doc_t:
                    cv = doc.c
                else:
                    cv = (doc.get(cluster) if type(doc) is dict else None) if one_part else \
                        dotted_parts(doc, cluster_parts)
                ok = type(cv) in _SCALARS  # not None, a dict or a list (JSON's other types)
            else:
                ok, cv = True, ""  # (a str: no cluster is a plain one below)
            fr = t[6] if acc else None
            is_mc = acc and type(fr) is list and len(fr) >= 2 and type(fr[0]) is list and \
                len(fr[0]) == 2 and type(fr[0][0]) is not bool
            if ok and (not is_mc or type(t[5]) is int):
                i = len(doc_ids)
                filt = t[2]
                if one_name:
                    if filt != run_filt:  # a new run of rows (see _close_run)
                        if run_start >= 0:
                            _close_run(sink, run_start, i, run_metric, min_run)
                        row_metrics = by_filter.get(filt)
                        if row_metrics is None:
                            row_metrics = by_filter[filt] = [_metric_of(nm, filt, metric_key) for nm in f_names]
                        run_start, run_filt, run_metric = i, filt, row_metrics[0]
                    raw_append(t[-1])
                else:
                    if run_start >= 0:
                        _close_run(sink, run_start, i, run_metric, min_run)
                        run_start, run_filt = -1, None
                    row_metrics = by_filter.get(filt)
                    if row_metrics is None:
                        row_metrics = by_filter[filt] = [_metric_of(nm, filt, metric_key) for nm in f_names]
                    base = len(t) - n_names
                    for j, metric in enumerate(row_metrics):
                        rec_append(i)
                        metric_append(metric)
                        epoch_append(1)
                        raw_append(t[base + j])
                ids_append(t[1])
                hashes_append(t[3])
                if cluster is not None:
                    clusters_append(cv)
                if type(t[1]) is int and type(t[3]) is str and type(t[-1]) is float and type(cv) is str:
                    plain += 1  # its doc id, hash, value and cluster as most are: see _finish
                if is_mc:
                    pend_i(i)
                    pend_fr(fr)
                    pend_gold(t[5])
                    if len(pend_idx) >= flush_at:
                        _flush(sink)
                continue
        if run_start >= 0:
            _close_run(sink, run_start, len(doc_ids), run_metric, min_run)
            run_start, run_filt = -1, None
        general(place, parsed(place) if type(r) is rec_t else r)  # type: ignore[misc]
    if pending[0]:
        _flush(sink)
    if run_start >= 0:
        _close_run(sink, run_start, len(doc_ids), run_metric, min_run)
    sink.plain = plain


def _finish(sink: _Sink, cluster: str | None, tuning: ReadTuning) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The columns and facts (``info``) of :func:`_extract` from what its paths put in ``sink``."""
    doc_ids, raw, runs, info = sink.doc_ids, sink.raw, sink.runs, sink.info
    rec, metric, epoch = _row_arrays(sink.recs, sink.metrics_l, sink.epochs, runs)
    n_rows = len(rec)
    # one row per record, in order (one metric, the fast path throughout): no take by record
    identity = not sink.recs and len(runs) == 1 and runs[0][:2] == (0, len(doc_ids))
    # every row a plain record's: the types the passes below would find are known already (the
    # values were checked while in the CPU caches; a later pass over 50,000 scattered objects
    # costs ~5-10 ms each)
    all_plain = identity and sink.plain == len(doc_ids)
    if all_plain:
        has_corpus = False
    else:
        kinds = set(map(type, raw))  # one C-level pass; the per-value test only when some value is a container
        has_corpus = list in kinds or dict in kinds
    if has_corpus:
        corpus_l = [type(v) is list or type(v) is dict for v in raw]
        dumps = orjson.dumps if orjson is not None else None
        for j in np.flatnonzero(corpus_l):  # corpus inputs only: kept as JSON text
            try:
                raw[j] = dumps(raw[j]).decode() if dumps else str(raw[j])
            except (TypeError, ValueError):  # orjson: nested deeper than 255, odd keys
                raw[j] = "<unserialisable>"
    info["int_ids"] = all_plain or (pd.api.types.infer_dtype(doc_ids, skipna=False) == "integer" if doc_ids else True)
    info["str_hashes"] = all_plain and n_rows > 0
    ids = _id_strings(doc_ids, info["int_ids"])
    info["metric_keys"] = set(sink.metrics_l).union(run[2] for run in runs)
    if has_corpus:
        corpus = np.asarray(corpus_l, dtype=bool)
        raw_series = pd.Series(raw, dtype=object)
        values, errors = coerce_scores(raw_series.where(~corpus, None))
        error = np.where(corpus, CORPUS_LEVEL, errors.to_numpy())
        error = np.where(corpus & _plugin_payloads(metric), PLUGIN_PAYLOAD, error)
        values = np.where(corpus, np.nan, values)
        raw_text = raw_strings(raw_series).to_numpy(dtype=object)
    else:
        values, error, raw_text = _values_and_text(raw, "floating" if all_plain else None)
    clusters = sink.clusters
    out: dict[str, np.ndarray] = {
        "metric": metric,
        "item": ids if identity else ids[rec],
        "epoch": epoch,
        "value": np.asarray(values, dtype=np.float64),
        "raw": raw_text,
        "cluster": (np.asarray(clusters, dtype=object) if all_plain else _by_record(
            _id_strings(clusters, pd.api.types.infer_dtype(clusters, skipna=False) == "integer"), rec, identity))
        if cluster is not None else np.full(n_rows, None, dtype=object),
        "item_hash": _by_record(np.asarray(sink.hashes, dtype=object), rec, identity) if n_rows
        else np.array([], dtype=object),
        "error": error,
    }
    if sink.mc[0] or sink.blocks:
        info["mc"], info["mc_no_label"] = _fill_multiple_choice(out, rec, len(doc_ids), sink.mc, sink.blocks,
                                                                tuning.lm_factorize_from, identity)
    info["doc_ids"] = ids
    return out, info


def _plugin_payloads(metric: np.ndarray) -> np.ndarray:
    """Rows of evaladdon's own lm-eval plug-in payloads (``<m>_clustered``, ``<m>_clustered_se``,
    any filter; :mod:`evaladdon.integrations.lm_eval_plugin`), decided once per distinct name."""
    names, codes = np.unique(metric.astype(str), return_inverse=True)  # (not pd.factorize: ReadTuning's choice)
    ours = np.array([PAYLOAD_NAME.search(str(n)) is not None for n in names], dtype=bool)
    return ours[codes] if names.size else np.zeros(metric.shape, dtype=bool)


def _row_arrays(recs: list[int], metrics_l: list[str], epochs: list[int], runs: list[tuple[int, int, str, int]]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Record index, metric and epoch of every row: the rows listed one by one (``recs``,
    ``metrics_l``, ``epochs``) with the runs of :func:`_extract` put back at their places
    (a run ``(first record, count, metric, position)``: records first..first+count-1, one row
    each, of ``metric``, epoch 1, before the listed row at ``position``)."""
    if not runs:
        metric = np.asarray(metrics_l, dtype=object) if metrics_l else np.array([], dtype=object)
        return np.asarray(recs, dtype=np.int64), metric, np.asarray(epochs, dtype=np.int64)
    if len(runs) == 1 and not recs:  # the common case: one run, nothing else
        start, n, m, _ = runs[0]
        return np.arange(start, start + n, dtype=np.int64), np.full(n, m, dtype=object), np.ones(n, dtype=np.int64)
    r_parts, m_parts, e_parts = [], [], []
    pos = 0
    for start, n, m, at in runs + [(0, 0, "", len(recs))]:
        if at > pos:
            r_parts.append(np.asarray(recs[pos:at], dtype=np.int64))
            m_parts.append(np.asarray(metrics_l[pos:at], dtype=object))
            e_parts.append(np.asarray(epochs[pos:at], dtype=np.int64))
        if n:
            r_parts.append(np.arange(start, start + n, dtype=np.int64))
            m_parts.append(np.full(n, m, dtype=object))
            e_parts.append(np.ones(n, dtype=np.int64))
        pos = at
    return np.concatenate(r_parts), np.concatenate(m_parts), np.concatenate(e_parts)


def _by_record(per_record: np.ndarray, rec: np.ndarray, identity: bool) -> np.ndarray:
    """A per-record column as a per-row one (``identity``: one row per record, in order)."""
    return per_record if identity else per_record[rec]


def _values_and_text(raw: list[Any], kind: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values, errors and ``raw`` text of logged metric values, by the shared converter
    (:func:`evaladdon.adapters.common.scores.coerce_scores`, :func:`~evaladdon.adapters.common.scores.raw_strings`).

    The common case -- every value a JSON float (or every one an integer) -- goes to the
    converter as a numeric column (the same values and errors as the object path gives
    them), and its text is made once per distinct value (``str``, as ``raw_strings``; a NaN
    is ``""``): the object column's round trip through pandas strings is most of the
    per-file cost of a small log.  Distinct floats are told apart by their bits, so
    ``-0.0`` keeps its sign.
    """
    if kind is None or not raw:  # ``kind``: the caller knows every value is a float
        kind = pd.api.types.infer_dtype(raw, skipna=False) if raw else "empty"
    arr: np.ndarray | None = None
    if kind == "floating":
        arr = np.asarray(raw, dtype=np.float64)
        keys = arr.view(np.int64)
    elif kind == "integer":
        try:
            arr = keys = np.asarray(raw, dtype=np.int64)
        except OverflowError:  # beyond int64: the object path
            arr = None
    if arr is None:
        series = pd.Series(raw, dtype=object)
        values, errors = coerce_scores(series)
        return values, errors.to_numpy(), raw_strings(series).to_numpy(dtype=object)
    values, errors = _numeric_scores(arr)
    if len(arr) <= 4096:  # a small file: str of each value beats the sort's fixed cost (the same text)
        return values, errors, np.array(["" if v != v else str(v) for v in arr.tolist()], dtype=object)
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    text = np.array(["" if v != v else str(v) for v in arr[first].tolist()], dtype=object)
    return values, errors, text[inv.reshape(-1)]


def _numeric_scores(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~evaladdon.adapters.common.scores.coerce_scores` of a float64 or int64 array (its
    numeric path: nothing missing, NaN and infinities ``non-finite``), without the pandas
    Series it builds -- a fixed cost that was a fifth of reading a 100-doc file.  Held equal
    to ``coerce_scores`` in ``tests/adapters/test_lm_eval_combined.py``."""
    values = arr.astype(np.float64, copy=False)
    finite = np.isfinite(values)
    error = np.full(len(values), None, dtype=object)
    if not finite.all():
        error[~finite] = NON_FINITE
        values = np.where(finite, values, np.nan)
    return values, error


def _id_strings(doc_ids: list[Any], int_ids: bool) -> np.ndarray:
    """Doc ids (or cluster values) as ``str`` in an object array: strings as they are,
    integers by ``str`` in one C-level map, anything else by pandas' ``astype(str)`` (the
    same text every way: ``str`` of the value)."""
    if int_ids and doc_ids:
        return np.array(list(map(str, doc_ids)), dtype=object)  # int -> decimal text, in C
    if doc_ids and pd.api.types.infer_dtype(doc_ids, skipna=False) == "string":
        return np.asarray(doc_ids, dtype=object)
    return pd.Series(doc_ids, dtype=object).astype(str).to_numpy(dtype=object)


def _records_of(path: Path) -> tuple[Any, str]:
    """(number, record) pairs of a samples file -- JSON lines streamed, or a legacy JSON
    array -- and what the number counts (``line`` or ``sample``)."""
    fh = path.open("rb")  # opened once: its head decides, then its lines are read
    try:
        head = fh.read(4096)
        if head.lstrip()[:1] == b"[" or head.startswith(b"\xef\xbb\xbf") and head[3:].lstrip()[:1] == b"[":
            fh.close()  # as starts_with_array
            return enumerate(read_json_array(path), start=1), "sample"
        fh.seek(0)
    except BaseException:
        fh.close()
        raise
    return JsonLines(path, fh=fh), "line"
