"""``evaladdon summarize`` of Inspect logs without pandas or pyarrow, a few numbers per sample.

Taken only when it is sure to give what the table path gives (:func:`eligible`, then
:func:`summarize_lean` returns ``None`` on anything else, and the command reads the inputs
the table way): every input sniffs as an Inspect log (``expand_paths``/``sniff`` of
:mod:`evaladdon.adapters`, the same skip notes) and the native reader reads it; no
``--store``/``--engine dask``; ``--metric`` names a metric some log has.  Any error on the
way -- a log the reader refuses, a wrong ``--cluster``, a key ``validate`` would refuse,
a non-ASCII score string -- also hands over to the table path, which reports it as always.

One reader, two consumers: the records come from the same native reader
(:mod:`evaladdon.adapters.inspect_native`) into a ``Collector(lean=True)``
(:mod:`evaladdon.adapters.inspect_rows`), whose :func:`~evaladdon.adapters.inspect_rows.build_part`
applies the same rules (duplicates, unscored rows, score-name order, errors and limits,
notes, incomplete logs) to columns of numbers: per row the metric (a shared ``str``), the
value (float64), the error (a shared ``str`` or ``None``), the sample's id and cluster as
fixed-width bytes (:func:`~evaladdon.adapters.inspect_rows.label_bytes`) and its epoch.  Run
naming (``NAME=PATH``, equal run ids of different files) is ``read_runs``' own
(``name_runs``/``separate_runs``), labels :func:`evaladdon.run_names.labels_of`, and
the statistics :func:`evaladdon.summary.summarize_groups`, fed first-appearance integer
codes as ``summarize_table`` feeds it (so ``estimate_mean`` factorizes nothing).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evaladdon.stats._checks import first_appearance

ENABLED = True
"""False: ``summarize`` always reads tables (the tests compare both paths)."""

LAST: dict[str, str] = {}
"""How the last :func:`summarize_lean` ended: ``{"path": "lean"}`` or ``{"path": "table", "why": ...}``."""


class NotLean(Exception):
    """The lean path cannot be sure to give the table path's answer."""


def eligible(args: argparse.Namespace) -> bool:
    """Options under which the lean path may run (the inputs are checked while reading)."""
    return (ENABLED and getattr(args, "command", "summarize") == "summarize" and bool(getattr(args, "paths", None))
            and not getattr(args, "store", None) and not getattr(args, "where", None)
            and (getattr(args, "engine", None) or "local") == "local" and not getattr(args, "scheduler", None)
            and (getattr(args, "reader", None) or "auto") == "auto")


@dataclass
class LeanResult:
    summaries: list[Any]  # GroupSummary
    loaded: Any  # evaladdon.adapters.Loaded without a table (notes, skipped, names, incomplete)
    notes: list[str]
    marks: dict[tuple[str, str, str], dict[str, Any]]


def summarize_lean(args: argparse.Namespace) -> LeanResult | None:
    """The summaries of ``args.paths`` (see module docstring), or ``None``: read them as tables."""
    try:
        out = _summarize(args)
    except NotLean as exc:
        LAST.clear()
        LAST.update(path="table", why=str(exc))
        return None
    except Exception as exc:  # noqa: BLE001 - whatever it is, the table path reports it as it always has
        LAST.clear()
        LAST.update(path="table", why=f"{type(exc).__name__}: {exc}")
        return None
    LAST.clear()
    LAST.update(path="lean")
    return out


def _read_part(f: Path, cluster: str | None) -> Any:
    from evaladdon.adapters._gc import no_cyclic_gc
    from evaladdon.adapters.inspect_native import NotNative, read_eval_zip, read_json_stream
    from evaladdon.adapters.inspect_rows import Collector, build_part

    try:
        with no_cyclic_gc():
            records = Collector(cluster, lean=True)
            with f.open("rb") as fh:
                zipped = fh.read(4).startswith(b"PK")
            log = read_eval_zip(f, records) if zipped else read_json_stream(f, cluster, records)
            return build_part(log, f, cluster)
    except NotNative as exc:
        raise NotLean(f"{f}: the native reader does not read it ({exc})") from None


def _first_codes(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """``pd.factorize(labels)[0]`` (first-appearance codes) by sorting: what ``estimate_mean``
    takes as they are (:func:`evaladdon.stats.cluster.codes`)."""
    codes, uniques = first_appearance(labels)
    return codes, len(uniques)


def _summarize(args: argparse.Namespace) -> LeanResult:
    from evaladdon.adapters import Loaded, _progress, inputs, name_runs, separate_runs
    from evaladdon.adapters.inspect_log import read_inspect_log
    from evaladdon.cli.options import show_progress
    from evaladdon.run_names import labels_of
    from evaladdon.summary import GroupArrays, summarize_groups

    cluster = getattr(args, "cluster", None)
    metric = getattr(args, "metric", None)
    files, notes, name_of, skipped = inputs(args.paths)
    if not files or any(reader is not read_inspect_log for _, reader, _ in files):
        raise NotLean("an input is not an Inspect log")
    parts: list[Any] = []
    sources: list[Path] = []
    incomplete: dict[str, dict[str, Any]] = {}
    for f, _, _ in _progress(files, show_progress(args)):
        part = _read_part(f, cluster)
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
    if metric is not None and not any(p.n and bool((p.metrics == metric).any()) for p in parts):
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
        metrics = p.metrics
        rows_of: dict[str, np.ndarray | None]
        if metric is not None:
            rows = np.flatnonzero(metrics == metric)
            if not len(rows):
                continue
            rows_of = {metric: None if len(rows) == p.n else rows}  # None: every row of the log (a view, no copy)
        elif bool((metrics == metrics[0]).all()):
            rows_of = {str(metrics[0]): None}
        else:
            uniq, first, inverse = np.unique(metrics, return_index=True, return_inverse=True)
            inverse = inverse.reshape(-1)
            order = np.argsort(inverse, kind="stable")
            split = np.split(order, np.cumsum(np.bincount(inverse, minlength=len(uniq)))[:-1])
            rows_of = {str(uniq[k]): split[k] for k in np.argsort(first, kind="stable")}
        label_rows.append((p.run, p.model, p.task, p.source))
        for m, rows in rows_of.items():
            groups.setdefault((p.run, p.task, m), []).append((p, rows))
    labels = labels_of(label_rows, names)
    sources_of: dict[tuple[str, str, str], list[str]] = {}

    def arrays() -> Any:
        for (run, task, m), pieces in groups.items():
            sources_of[(run, task, m)] = list(dict.fromkeys(p.source for p, _ in pieces))

            def cat(attr: str) -> np.ndarray:
                got = [getattr(p, attr) if rows is None else getattr(p, attr)[rows] for p, rows in pieces]
                return got[0] if len(got) == 1 else np.concatenate(got)

            values, error, epochs = cat("values"), cat("errors"), cat("epochs")
            has_error = np.asarray(error != None, dtype=bool)  # noqa: E711 - None or a str, elementwise
            good = ~(has_error | ~np.isfinite(values))
            n_good = int(good.sum())
            codes = np.zeros(len(values), dtype=np.int64)
            if len(pieces) == 1:
                # one log: its kept samples have distinct (item, epoch) (build_part), and a sample's
                # rows are adjacent, so a repeated key is a sample with two rows of this metric
                samples = cat("row_sample")
                if len(samples) > 1 and bool((samples[1:] == samples[:-1]).any()):
                    raise NotLean(f"run {run!r}, task {task!r}, metric {m!r}: a repeated (item, epoch) "
                                  "(validate reports it)")
                del samples
                if len(epochs) and bool((epochs == epochs[0]).all()):  # one epoch: every row its own item
                    codes[good] = np.arange(n_good)
                else:
                    codes[good] = _first_codes(cat("items")[good])[0]
            else:
                item_codes, _ = _first_codes(cat("items"))
                key = item_codes * (int(epochs.max()) + 1) + epochs
                if np.unique(key).size < key.size:
                    raise NotLean(f"run {run!r}, task {task!r}, metric {m!r}: a repeated (item, epoch) "
                                  "(validate reports it)")
                del key
                codes[good] = _first_codes(item_codes[good])[0]
                del item_codes
            clusters = np.full(len(values), -1, dtype=np.int64)
            if cluster is not None and all(p.clusters is not None for p, _ in pieces):
                clusters[good] = _first_codes(cat("clusters")[good])[0]
            yield GroupArrays(run, task, pieces[0][0].model, m, values, has_error, error, codes, clusters)

    summaries = summarize_groups(arrays(), labels, level=args.level, method=args.method,
                                 cluster_method=args.cluster_method, notes=notes)
    from evaladdon.cli.summarize_cmd import marks_from

    marks = marks_from(summaries, incomplete, lambda s: sources_of.get((s.run, s.task, s.metric), []))
    return LeanResult(summaries, loaded, notes, marks)
