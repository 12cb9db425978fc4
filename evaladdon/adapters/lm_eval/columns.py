"""lm-eval sample records of a small file typed in one call, read as whole columns.

When :class:`~evaladdon.adapters.common.jsonlines.JsonLines` typed the rest of a samples file in
one ``decode_lines`` call (:meth:`~evaladdon.adapters.common.jsonlines.JsonLines.whole_rest`: a
list of msgspec Structs of the fast path's fields, :mod:`.typed`), :func:`read_columns` transposes
them (``astuple`` and ``zip``, in C) and decides by whole-column checks in C (counts, sets of
types) that EVERY record is one the fast loop (:func:`~evaladdon.adapters.lm_eval.samples._read_fast`)
takes the plain way: no ``scores_per_repeat``, the first regular record's metric names, a string
filter, a scalar cluster value and -- when ``acc`` is logged -- ``filtered_resps`` whose
log-likelihoods :func:`~.sink._lls_or_none` reads for the whole file at once, with an int target
each.  Then it fills the :class:`~.sink._Sink` as that loop would -- the same doc ids, hashes,
cluster values, values, runs and rows (one step per stretch of one filter), blocks of
``lm_flush`` multiple-choice records (slices of the one array) and ``plain`` count -- so
:func:`~evaladdon.adapters.lm_eval.samples._finish` and everything after it are unchanged.  A
record that does not fit: nothing is changed and the loop reads the file, record by record.

The reference is that loop (``ReadTuning(lm_columns=False)``): ``tests/adapters/test_lm_eval_columns.py``
compares the two sinks and the tables of mixes of files.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, repeat
from operator import attrgetter, is_, ne
from typing import Any

import numpy as np

from evaladdon.adapters.common.jsonlines import JsonLines
from evaladdon.adapters.lm_eval.sink import _SCALARS, _close_run, _gold_of, _lls_or_none, _metric_of, _Sink
from evaladdon.adapters.lm_eval.typed import Typed
from evaladdon.adapters.tuning import ReadTuning
from evaladdon.table.names import dotted_parts

MAX_STRETCHES = 16
"""Stretches of one filter (consecutive records) a file read as columns may have; a file whose
filter changes more often (alternating filters) is read by the loop: one step a stretch here
would be one a record."""

_CLUSTER = attrgetter("c")  # the cluster value of a typed doc (.typed: the doc Struct's one field)


def read_whole(sink: _Sink, schema: tuple[Any, list[str], bool, tuple[str, ...]], place: Any, r: Any,
               lines: JsonLines, it: Iterator[tuple[Any, Any]], cluster: str | None, tuning: ReadTuning,
               typed: Typed) -> Iterator[tuple[Any, Any]] | None:
    """The records from the first regular one (``r``, at ``place``) on, as columns when the rest
    came from ``lines`` typed in one call and :func:`read_columns` takes them all (then None,
    ``it`` closed); otherwise the (place, record) pairs for the fast loop, from ``r`` on, as
    ``it`` would have given them (an error raised by the next line comes after ``r``, as there)."""
    try:
        nxt = next(it, None)  # the first typed line: the rest is typed (in one call or not) by now
    except Exception as exc:  # noqa: BLE001 - raised again where the loop would meet it
        return chain(((place, r),), _raising(exc))
    if nxt is None:
        return iter(((place, r),))
    objs = lines.whole_rest()
    if objs and objs[0] is nxt[1] and read_columns(sink, schema, r, objs, cluster, tuning, typed):
        close = getattr(it, "close", None)  # the lines' generator (its file closed)
        if close is not None:
            close()
        return None
    return chain(((place, r), nxt), it)


def _raising(exc: Exception) -> Iterator[tuple[Any, Any]]:
    raise exc
    yield  # pragma: no cover - a generator


def read_columns(sink: _Sink, schema: tuple[Any, list[str], bool, tuple[str, ...]], r: Any, objs: list[Any],
                 cluster: str | None, tuning: ReadTuning, typed: Typed) -> bool:
    """Records ``r`` (a dict, the first regular one: its ``schema``) and ``objs`` (``typed``'s
    records) into ``sink`` as the fast loop reads them, when every one is a record it takes the
    plain way (see the module docstring); True when done, False (``sink`` untouched) when not.
    Every check comes before the first change to ``sink``."""
    acc = schema[2]
    cols = _columns(schema, r, objs, typed)
    if cols is None:
        return False
    stretches = _stretches(cols[2])
    if stretches is None:
        return False
    cvs: list[Any] | None = None
    if cluster is not None:
        cvs = _cluster_values(cols[7 if acc else 5], cluster, typed)
        if cvs is None:
            return False
    lls = None
    if acc:
        fits, lls = _choice_lls(cols[6], cols[5])
        if not fits:
            return False
    _fill(sink, schema[1], cols, cvs, stretches, lls, tuning)
    return True


def _columns(schema: tuple[Any, list[str], bool, tuple[str, ...]], r: Any, objs: list[Any],
             typed: Typed) -> list[tuple[Any, ...]] | None:
    """The records' fields as columns (``scores_per_repeat``, then the schema's fields), when none
    logs ``scores_per_repeat``, every one logs the first one's metric names and a string filter,
    and ``objs`` are all ``typed``'s records; else None."""
    getter, f_names = schema[0], schema[1]
    if type(r) is not dict or "scores_per_repeat" in r:
        return None
    try:
        first = getter(r)  # doc_id as a place-holder, then the fields: astuple's order after its first
    except (KeyError, TypeError):
        return None
    unset, n = typed.unset, len(objs) + 1
    if list(map(type, objs)).count(typed.struct) != n - 1:
        return None
    cols = list(zip((unset, *first[1:]), *map(typed.astuple, objs), strict=True))  # per field, in record order
    spr, filts, names = cols[0], cols[2], cols[4]
    if spr.count(unset) != n or names.count(f_names) != n or list(map(type, filts)).count(str) != n:
        return None
    return cols


def _cluster_values(docs: tuple[Any, ...], cluster: str, typed: Typed) -> list[Any] | None:
    """Each record's cluster value (the first record's doc a dict, orjson's; the others
    ``typed.doc``), when every one is a scalar (not None, a dict or a list); else None."""
    doc0, doc_t = docs[0], typed.doc
    if doc_t is None or type(doc0) is doc_t or list(map(type, docs)).count(doc_t) != len(docs) - 1:
        return None
    cv0 = (doc0.get(cluster) if type(doc0) is dict else None) if "." not in cluster else \
        dotted_parts(doc0, cluster.split("."))
    cvs = [cv0, *map(_CLUSTER, docs[1:])]
    return cvs if set(map(type, cvs)) <= _SCALARS else None


def _choice_lls(frs: tuple[Any, ...], targets: tuple[Any, ...]) -> tuple[bool, np.ndarray | None]:
    """Whether the records of a file logging ``acc`` fit, and their log-likelihoods (R, k) when they
    are multiple-choice: every ``filtered_resps`` ``k`` [float, x] pairs (:func:`~.sink._lls_or_none`),
    and with k >= 2 every target an int (k < 2: no record is multiple-choice, as the loop's test)."""
    n = len(frs)
    if list(map(type, frs)).count(list) != n:
        return False, None
    lls = _lls_or_none(frs)  # type: ignore[arg-type]
    if lls is None:
        return False, None
    if lls.shape[1] < 2:
        return True, None
    return list(map(type, targets)).count(int) == n, lls  # not a bool, a str, a list


def _fill(sink: _Sink, f_names: list[str], cols: list[tuple[Any, ...]], cvs: list[Any] | None,
          stretches: list[tuple[int, int, str]], lls: np.ndarray | None, tuning: ReadTuning) -> None:
    """``sink`` as the fast loop fills it from these records (all of them read the plain way)."""
    ids, hashes, values, n = cols[1], cols[3], cols[-1], len(cols[1])
    checks = [(ids, int), (hashes, str), (values, float)] + ([(cvs, str)] if cvs is not None else [])
    plain = _plain(n, checks)
    i0 = len(sink.doc_ids)
    sink.doc_ids.extend(ids)
    sink.hashes.extend(hashes)
    if cvs is not None:
        sink.clusters.extend(cvs)
    by_filter: dict[str, list[str]] = {}
    n_names = len(f_names)
    for a, b, filt in stretches:
        row_metrics = by_filter.get(filt)
        if row_metrics is None:
            row_metrics = by_filter[filt] = [_metric_of(nm, filt, sink.metric_key) for nm in f_names]
        if n_names == 1:  # a run of rows (or rows, when short: _close_run)
            _close_run(sink, i0 + a, i0 + b, row_metrics[0], tuning.lm_run)
        else:  # a row a metric a record, listed
            sink.recs.extend(chain.from_iterable(map(repeat, range(i0 + a, i0 + b), repeat(n_names, b - a))))
            sink.metrics_l.extend(row_metrics * (b - a))
            sink.epochs.extend(repeat(1, (b - a) * n_names))
    sink.raw.extend(values if n_names == 1 else chain.from_iterable(zip(*cols[len(cols) - n_names:], strict=True)))
    if lls is not None:  # the loop's blocks: lm_flush records each (_flush)
        step, k, targets = max(tuning.lm_flush, 1), lls.shape[1], cols[5]
        for a in range(0, n, step):
            b = min(a + step, n)
            sink.blocks.append((np.arange(i0 + a, i0 + b, dtype=np.int64), lls[a:b], None, _gold_of(targets[a:b], k)))
    sink.plain = plain


def _stretches(filts: tuple[str, ...]) -> list[tuple[int, int, str]] | None:
    """(first, end, filter) of each stretch of consecutive records of one filter; None when more
    than :data:`MAX_STRETCHES`."""
    n = len(filts)
    if filts.count(filts[0]) == n:
        return [(0, n, filts[0])]
    starts = np.flatnonzero(np.fromiter(map(ne, filts[1:], filts[:-1]), dtype=bool, count=n - 1)) + 1
    if len(starts) >= MAX_STRETCHES:
        return None
    edges = [0, *starts.tolist(), n]
    return [(a, b, filts[a]) for a, b in zip(edges, edges[1:], strict=False)]


def _plain(n: int, checks: list[tuple[Any, type]]) -> int:
    """Records whose every column holds its type (the fast loop's ``plain``: an int doc id, a str
    hash, a float value, a str cluster value), by C-level counts."""
    if all(list(map(type, col)).count(kind) == n for col, kind in checks):
        return n
    ok = np.ones(n, dtype=bool)
    for col, kind in checks:
        ok &= np.fromiter(map(is_, map(type, col), repeat(kind)), dtype=bool, count=n)
    return int(np.count_nonzero(ok))
