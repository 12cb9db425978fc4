"""The ``inspect_arrays`` route: ``compare`` (and ``gate``) of Inspect logs given as PATHs, without
pandas or pyarrow.

Why: importing pandas and pyarrow was ~0.24 s of a 0.55 s ``compare`` of two small ``.eval`` logs
(issue 31 item 5), whose own work is a few milliseconds.  ``summarize`` of the same logs was
pandas-free already (:mod:`evaladdon.routes.inspect_columns`), and so was ``compare --store``
(:mod:`evaladdon.routes.store_arrays`); this route joins the two.

How: each log is read by the same lean reader as the pandas-free summarize
(:func:`evaladdon.routes.inspect_columns._read_part`: the native reader into a
``Collector(lean=COLUMNS, hashes=True)``, :func:`~evaladdon.adapters.inspect.rows.build_part`'s
rules on columns), run naming is ``read_runs``' own (``name_runs``/``separate_runs``, the user's
names as labels), and the parts become the columns DuckDB's ``fetchnumpy`` gives
``store_arrays`` for the same rows once stored (:data:`~evaladdon.routes.store_arrays.COLUMNS`:
strings as object arrays, ``None`` for a missing error, cluster or hash; ``epoch`` int64,
``value`` float64), which go through the same :class:`~evaladdon.routes.store_arrays.FastGroups`,
:func:`~evaladdon.analysis.compare.compare_groups` and
:func:`~evaladdon.analysis.compare.finish_comparisons`.  Inspect logs declare no metric direction
(``declared={}``); ``--better`` is the user's, as on every route.

It declines (:class:`~evaladdon.routes.results.Decline`; the table route then reads the inputs and
answers, or gives its error, as always) on anything it cannot be sure to give as the table route
does: an input that does not sniff as an Inspect log, a log the native reader leaves to
inspect-ai or refuses, a wrong ``--cluster`` or ``--metric``, no rows, an epoch below 1, a row
without value or reason, a repeated (run, task, metric, item, epoch), an item id kept as a digest
(past 64 bytes) or ending in NUL, and any error on the way, the user's included (an unknown
``--baseline``, nothing to compare): the table route says it in its own words.
``tests/routes/test_route_equality.py`` holds its output byte for byte equal to the table
route's; ``tests/cli/test_command_imports.py`` checks that pandas and pyarrow stay out.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evaladdon.routes._columns import NotLean

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import CompareOptions, RouteLimits
    from evaladdon.routes.results import Comparisons


def compare(opts: CompareOptions, limits: RouteLimits) -> Comparisons:
    """The comparisons of the Inspect logs ``opts.inputs.paths`` (see module docstring); declines
    when it cannot be sure to give the table route's answer."""
    from evaladdon.routes.results import Decline

    try:
        return _compare(opts)
    except NotLean as exc:
        raise Decline(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - whatever it is, the table route reports it as it always has
        raise Decline(f"{type(exc).__name__}: {exc}") from None


def _compare(opts: CompareOptions) -> Comparisons:
    from evaladdon.routes.results import Comparisons
    from evaladdon.routes.store_arrays import FastGroups, FastStore
    from evaladdon.table.loaded import Loaded
    from evaladdon.table.scale import unit_interval

    i = opts.inputs
    parts, loaded = read_parts(i.paths, i.cluster, i.metric, i.progress)
    cols = columns(parts, i.cluster)
    del parts
    groups = FastGroups(cols, i.metric, loaded.names)
    if not groups.rows_unique():
        raise NotLean("a repeated (run, task, metric, item, epoch) (validate reports it)")
    bounded = unit_interval(cols["value"] if i.metric is None else cols["value"][cols["metric"] == i.metric])
    fast = FastStore(groups, loaded.notes, bounded, {})  # Inspect logs declare no direction
    skipped: list[Any] = []
    results = fast.compare(opts.baseline, opts.all_pairs, **opts.pairing(), skipped=skipped, needs=opts.needs)
    return Comparisons(results, Loaded(None, list(loaded.notes), [], loaded.skipped, loaded.names,  # type: ignore[arg-type]
                                       loaded.incomplete), all(r.points for r in results), skipped)


def read_parts(paths: tuple[str, ...], cluster: str | None, metric: str | None, progress: bool) -> tuple[list[Any], Any]:
    """The ``LeanPart`` (with content hashes) of each Inspect log of ``paths``, runs named as
    ``read_runs`` names them, and what reading gives besides the rows (a ``Loaded`` without a
    table: notes, skipped inputs, the user's run names, incomplete logs); :class:`NotLean` on an
    input or a table ``read_runs``/``validate``/``check_metric`` would treat otherwise."""
    from evaladdon.adapters import _progress, inputs, name_runs, separate_runs
    from evaladdon.adapters.inspect.log import read_inspect_log
    from evaladdon.routes.inspect_columns import _read_part
    from evaladdon.table.loaded import Loaded

    files, notes, name_of, skipped = inputs(paths)
    if not files or any(reader is not read_inspect_log for _, reader, _ in files):
        raise NotLean("an input is not an Inspect log")
    parts: list[Any] = []
    sources: list[Path] = []
    incomplete: dict[str, dict[str, Any]] = {}
    for f, _, _ in _progress(files, progress):
        part = _read_part(f, cluster, hashes=True)
        notes.extend(part.notes)
        if part.incomplete and part.n:
            incomplete[part.source] = dict(part.incomplete)
        parts.append(part)
        sources.append(f)
    name_runs(parts, sources, name_of)
    separate_runs(parts, set(name_of.values()))
    parts = [p for p in parts if p.n]  # a log without rows adds none
    if not parts:
        raise NotLean("no rows (read_runs reports it)")
    if metric is not None and not any(metric in p.metrics for p in parts):
        raise NotLean(f"no rows with metric {metric!r} (check_metric reports it)")
    user_named = set(name_of.values())
    runs = dict.fromkeys(p.run for p in parts)
    names = {r: r for r in runs if r in user_named or r.split("/")[0] in user_named}
    return parts, Loaded(None, notes, [], skipped, names, incomplete)  # type: ignore[arg-type]


def columns(parts: list[Any], cluster: str | None) -> dict[str, np.ndarray]:
    """The rows of ``parts`` (each with rows, in order) as the columns of
    :data:`evaladdon.routes.store_arrays.COLUMNS`, as DuckDB's ``fetchnumpy`` gives them for the
    same rows once stored; :class:`NotLean` where ``validate`` would refuse the table."""
    counts = [p.n for p in parts]

    def constant(attr: str) -> np.ndarray:
        values = np.empty(len(parts), dtype=object)
        values[:] = [getattr(p, attr) for p in parts]
        return np.repeat(values, counts)

    def cat(arrays: list[np.ndarray]) -> np.ndarray:
        return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)

    epoch = cat([p.epochs.astype(np.int64) for p in parts])
    if int(epoch.min()) < 1:
        raise NotLean("an epoch below 1 (validate reports it)")
    value = cat([np.asarray(p.values, dtype=np.float64) for p in parts])
    error = cat([_coded(p.errors, p.error_texts) for p in parts])
    if bool((np.isnan(value) & np.equal(error, None)).any()):  # type: ignore[call-overload]
        raise NotLean("a row without value or reason (validate reports it)")
    if any(p.hashes is None for p in parts):  # (hashes=True: every part with rows has them)
        raise NotLean("a log read without content hashes")
    return {
        "run": constant("run"), "model": constant("model"), "task": constant("task"),
        "metric": cat([_coded(p.metric_codes, p.metric_names, none=False) for p in parts]),
        "source": constant("source"), "item": texts(cat([p.items for p in parts])), "epoch": epoch,
        "value": value, "error": error,
        "cluster": cat([_coded(p.clusters, p.cluster_names, none=False) if cluster is not None
                        else np.full(p.n, None, dtype=object) for p in parts]),
        "item_hash": texts(cat([p.hashes for p in parts])),
    }


def _coded(codes: np.ndarray | None, labels: tuple[str, ...], none: bool = True) -> np.ndarray:
    """Codes into ``labels`` as an object array of the labels, ``None`` where a code is -1
    (``none=False``: no code may be -1)."""
    if codes is None:
        raise NotLean("a log without the codes asked for")
    table = np.empty(len(labels) + 1, dtype=object)
    table[1:] = labels
    out = table[codes.astype(np.int64) + 1]
    if not none and len(codes) and int(codes.min()) < 0:
        raise NotLean("a row without a label the table would give")
    return out


def texts(b: np.ndarray) -> np.ndarray:
    """:func:`~evaladdon.adapters.inspect.parts.label_bytes` elements back as an object array of
    ``str`` (``b""``: ``None``), vectorised: each element's ``\\x01`` terminator cleared, then
    ASCII cast (or, past ASCII, UTF-8 decoded with ``surrogatepass``, the encoding's inverse).
    :class:`NotLean` for an element that is a digest (a text past 64 bytes: its text is gone)
    or a text ending in NUL (numpy would drop it)."""
    n = len(b)
    out = np.empty(n, dtype=object)
    if n == 0:
        return out
    b = np.ascontiguousarray(b)
    w = b.dtype.itemsize
    m = b.view(np.uint8).reshape(n, w).copy()
    length = np.strings.str_len(b)
    has = np.flatnonzero(length > 0)
    last = length[has] - 1
    if bool((m[has, 0] == 0xFF).any()):
        raise NotLean("an id past 64 bytes, kept as a digest")
    if bool((m[has, last] != 1).any()) or bool(((last > 0) & (m[has, np.maximum(last - 1, 0)] == 0)).any()):
        raise NotLean("a text ending in NUL")
    m[has, last] = 0
    s = m.view(f"S{w}").reshape(n)
    u = np.strings.decode(s, "utf-8", "surrogatepass") if bool((m >= 0x80).any()) else s.astype(f"U{w}")
    out[:] = u.astype(object)
    out[length == 0] = None
    return out
