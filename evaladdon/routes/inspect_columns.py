"""``evaladdon summarize`` of Inspect logs without pandas or pyarrow, a few numbers per sample.

Taken only when it is sure to give what the table path gives (``routes.plan`` offers it for
PATHs on the local engine; :func:`summarize` declines on anything else, and the next route reads
the inputs the table way): every input sniffs as an Inspect log (``expand_paths``/``sniff`` of
:mod:`evaladdon.adapters`, the same skip notes) and the native reader reads it; no
``--store``/``--engine dask``; ``--metric`` names a metric some log has.  Any error on the
way -- a log the reader refuses, a wrong ``--cluster``, a key ``validate`` would refuse,
a non-ASCII score string -- also hands over to the table path, which reports it as always.

One reader, two consumers: the records come from the same native reader
(:mod:`evaladdon.adapters.inspect.native`) into a ``Collector(lean=COLUMNS)``
(:mod:`evaladdon.adapters.inspect.rows`), whose :func:`~evaladdon.adapters.inspect.rows.build_part`
applies the same rules (duplicates, unscored rows, score-name order, errors and limits,
notes, incomplete logs) to columns of numbers (:mod:`evaladdon.adapters.inspect.columns`): per
row the value (float64), the sample's id as fixed-width bytes
(:func:`~evaladdon.adapters.inspect.rows.label_bytes`), and as narrow integers its epoch and
the codes of its metric, error and cluster (~26 bytes a row for short ids).  Each group's
arrays are made from them a block at a time (:func:`_first_appearance_codes`), and a log's
columns are let go as its last group takes them, so the peak is the statistics' own
arrays (value, item and cluster codes: 24 bytes a row, and ``estimate_mean``'s temporaries).  Run
naming (``NAME=PATH``, equal run ids of different files) is ``read_runs``' own
(``name_runs``/``separate_runs``), labels :func:`evaladdon.table.names.labels_of`, and
the statistics :func:`evaladdon.analysis.summarize.summarize_groups`, fed first-appearance integer
codes as ``summarize_table`` feeds it (so ``estimate_mean`` factorizes nothing).

One ``.json`` log larger than ``RouteLimits.spill_bytes`` (and nothing else) is
summarized by :mod:`evaladdon.routes.inspect_spill` instead: the same reader, collector, ``build_part``
and per-group code, a batch of hash partitions of the samples at a time, so that memory stays
bounded; so is a smaller lone ``.json`` log found, while read in memory, to hold more than
``RouteLimits.max_records`` records (read again, spilled).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evaladdon.routes._columns import (NotLean, _first_appearance_codes, _first_codes,  # noqa: F401
                                        _group_arrays, _metric_rows)

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import SummarizeOptions
    from evaladdon.analysis.options import RouteLimits
    from evaladdon.routes.results import Summaries


def summarize(opts: SummarizeOptions, limits: RouteLimits) -> Summaries:
    """The summaries of ``opts.inputs.paths`` (see module docstring); declines
    (:class:`~evaladdon.routes.plan.Decline`) when it cannot be sure to give the table's."""
    from evaladdon.routes.results import Decline

    try:
        return _summarize(opts, limits)
    except NotLean as exc:
        raise Decline(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - whatever it is, the table route reports it as it always has
        raise Decline(f"{type(exc).__name__}: {exc}") from None


def _read_part(f: Path, cluster: str | None, cap: int | None = None, hashes: bool = False) -> Any:
    """The ``LeanPart`` of log ``f``; more than ``cap`` records (not ``None``) raise
    :class:`evaladdon.routes.inspect_spill.TooMany`; ``hashes``: with the samples' content hashes
    (``compare``: :mod:`evaladdon.routes.inspect_arrays`)."""
    from evaladdon._util.gc import no_cyclic_gc
    from evaladdon.adapters.inspect.stream import NotNative, read_json_stream
    from evaladdon.adapters.inspect.native import read_eval_zip
    from evaladdon.adapters.inspect.columns import COLUMNS
    from evaladdon.adapters.inspect.rows import Collector, build_part

    try:
        with no_cyclic_gc():
            records = Collector(cluster, lean=COLUMNS, hashes=hashes) if cap is None else _Capped(cluster, cap)
            with f.open("rb") as fh:  # opened once: the first bytes tell the reader, which reads on
                zipped = fh.read(4).startswith(b"PK")
                fh.seek(0)
                log = read_eval_zip(f, records, fh=fh) if zipped else read_json_stream(f, cluster, records, fh=fh)
            return build_part(log, f, cluster)
    except NotNative as exc:
        raise NotLean(f"{f}: the native reader does not read it ({exc})") from None


def _capped_class() -> type:
    from evaladdon.adapters.inspect.columns import COLUMNS
    from evaladdon.adapters.inspect.rows import Collector
    from evaladdon.routes.inspect_spill import TooMany

    class Capped(Collector):
        """A lean collector that raises ``TooMany`` at its ``cap + 1``-th record."""

        def __init__(self, cluster: str | None, cap: int) -> None:
            super().__init__(cluster, lean=COLUMNS)
            self.cap = cap
            self.seen = 0

        def add(self, r: Any) -> None:
            self.seen += 1
            if self.seen > self.cap:
                raise TooMany(f"more than {self.cap} records")
            super().add(r)

    return Capped


def _Capped(cluster: str | None, cap: int) -> Any:
    return _capped_class()(cluster, cap)


def _spilled(opts: SummarizeOptions, f: Path, notes: list[str], name_of: dict[Path, str],
             skipped: list[Any], limits: RouteLimits) -> Summaries | None:
    """The spilled summary of the one log ``f`` (:mod:`evaladdon.routes.inspect_spill`), or ``None``
    when its clusters are too lopsided to spill (:class:`~evaladdon.routes.inspect_spill.Lopsided`)
    or the disk takes no partitions (``OSError``: TMPDIR full or missing; a note says the memory
    bound is not kept, issue 26 item 7): then it is read in memory, as before spilling existed."""
    from evaladdon.routes import inspect_spill as spill

    n_notes = len(notes)
    try:
        return spill.summarize_spilled(opts, f, notes, name_of, skipped, limits)
    except spill.Lopsided:
        return None
    except OSError as exc:  # no room in TMPDIR (or none): this route reads it in memory, and says so
        del notes[n_notes:]
        notes.append(f"{f}: could not spill to disk ({exc.strerror or exc}); read in memory instead, "
                     "so its memory is not bounded")
        return None


# long: the declines (NotLean) and the release of each log's parts are in the order the table
# route would report errors; every exit is a Decline or the answer
def _summarize(opts: SummarizeOptions, limits: RouteLimits) -> Summaries:
    from evaladdon.routes.results import Summaries
    from evaladdon.table.loaded import Loaded
    from evaladdon.adapters import _progress, inputs, name_runs, separate_runs
    from evaladdon.adapters.inspect.log import read_inspect_log
    from evaladdon.table.names import labels_of
    from evaladdon.analysis.summarize import summarize_groups

    cluster = opts.inputs.cluster
    metric = opts.inputs.metric
    files, notes, name_of, skipped = inputs(opts.inputs.paths)
    if not files or any(reader is not read_inspect_log for _, reader, _ in files):
        raise NotLean("an input is not an Inspect log")
    from evaladdon.routes import inspect_spill as spill

    # (the bootstrap resamples every value at once: no parts, the in-memory path)
    bootstrap = str(opts.method).lower().replace("_", "-") == "bootstrap"
    cap = None
    if not bootstrap and spill.wanted(files, limits):  # one large .json log: in partitions on disk (bounded memory)
        out = _spilled(opts, files[0][0], notes, name_of, skipped, limits)
        if out is not None:
            return out
    elif not bootstrap:  # one smaller .json log: spilled after all if its records are many
        cap = spill.record_cap(files, limits)
    parts: list[Any] = []
    sources: list[Path] = []
    incomplete: dict[str, dict[str, Any]] = {}
    for f, _, _ in _progress(files, opts.inputs.progress):
        try:
            part = _read_part(f, cluster, cap)
        except spill.TooMany:
            out = _spilled(opts, f, notes, name_of, skipped, limits)
            if out is not None:
                return out
            part = _read_part(f, cluster, None)
        notes.extend(part.notes)
        if part.incomplete and part.n:
            incomplete[part.source] = dict(part.incomplete)
        parts.append(part)
        sources.append(f)
    name_runs(parts, sources, name_of)
    separate_runs(parts, set(name_of.values()))
    if not any(p.n for p in parts):
        raise NotLean("no rows (read_runs reports it)")
    if any(p.n and int(p.epochs.min()) < 1 for p in parts):
        raise NotLean("an epoch below 1 (validate reports it)")
    if metric is not None and not any(p.n and metric in p.metrics for p in parts):
        raise NotLean(f"no rows with metric {metric!r} (check_metric reports it)")
    user_named = set(name_of.values())
    runs = dict.fromkeys(p.run for p in parts if p.n)
    names = {r: r for r in runs if r in user_named or r.split("/")[0] in user_named}
    loaded = Loaded(None, notes, [], skipped, names, incomplete)  # type: ignore[arg-type]

    # the rows of each (run, task, metric) in table order (logs in order, rows in log order)
    groups: dict[tuple[str, str, str], list[tuple[Any, np.ndarray | None]]] = {}
    label_rows = []
    for p in parts:
        if not p.n:
            continue
        rows_of = _metric_rows(p, metric)
        if not rows_of:
            continue
        label_rows.append((p.run, p.model, p.task, p.source))
        for m, rows in rows_of.items():
            groups.setdefault((p.run, p.task, m), []).append((p, rows))
    labels = labels_of(label_rows, names)
    sources_of: dict[tuple[str, str, str], list[str]] = {}
    last_group = {id(p): k for k, pieces in enumerate(groups.values()) for p, _ in pieces}
    del parts, p

    def arrays() -> Any:
        for k, ((run, task, m), pieces) in enumerate(groups.items()):
            sources_of[(run, task, m)] = list(dict.fromkeys(p.source for p, _ in pieces))
            # a log's columns go as soon as its last group has taken them
            group = _group_arrays(run, task, m, pieces, cluster, [p for p, _ in pieces if last_group[id(p)] == k])
            pieces.clear()
            yield group
            del group

    summaries = summarize_groups(arrays(), labels, level=opts.level, method=opts.method,
                                 cluster_method=opts.cluster_method, notes=notes)
    from evaladdon.analysis.summarize import marks_from

    marks = marks_from(summaries, incomplete, lambda s: sources_of.get((s.run, s.task, s.metric), []))
    return Summaries(summaries, loaded, notes, marks, [])
