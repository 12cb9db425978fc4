"""The lean ``summarize`` of one large ``.json`` Inspect log in bounded memory: hash partitions on disk.

:func:`evaladdon.routes.inspect_columns.summarize` keeps ~26-45 bytes a sample of every log it
reads, so a streamed ``.json`` log of any size is not bounded.  A lone ``.json`` input larger
than ``RouteLimits.spill_bytes``, or found while read in memory to hold more than
``RouteLimits.max_records`` records (:class:`TooMany`: it is read again), is summarized here
instead, in four passes:

1. **route** (:class:`~evaladdon.routes._partitions.Router`): the native streaming reader
   (:func:`~evaladdon.adapters.inspect.stream.read_json_stream`) hands each sample record to
   a router that writes it (``marshal`` of plain data: sequence number, id, epoch, score
   values, cluster value, error, limit; never pickle) to one of K partition files in a
   ``tempfile.TemporaryDirectory``.  The partition is a CRC-32 of ``str(id)``, so every
   record of an item (all its epochs, all its duplicates) is in one partition.  With
   ``--cluster`` the router also numbers the distinct cluster labels (global codes, in order
   of first appearance) up to ``RouteLimits.few_clusters``: a log of that few clusters keeps its
   id-keyed partitions (a cluster may span batches: step 4 takes global cluster codes); a log
   of more is re-routed (:func:`reroute`, one more pass over the partition files) by the
   cluster label's CRC-32, so that each cluster is whole in one partition (then a partition
   holding a large share of the log is :class:`Lopsided`, and an id met in two cluster
   partitions hands the log to the table path).  A record without id or integer epoch hands
   the log over at once.
2. **scan** (:func:`_scan`): per partition, the (id, epoch) keys with the sequence of their
   first record and the score names of their last one: the global rules of
   :func:`~evaladdon.adapters.inspect.rows.build_part` that one partition cannot see --
   the log's metrics (results first, then as they first appear in the kept
   samples, in table order), the duplicate count, the kept-sample count (incomplete-log
   note) -- are made from them.
3. **build** (:func:`_build`): per batch of consecutive partitions (:func:`batches`: up to
   ``RouteLimits.batch_records`` records and ``RouteLimits.merge_files`` files; a union of partitions keeps
   items and clusters whole) a fresh ``Collector(cluster, lean=COLUMNS)`` gets the batch's
   records in their original order (a merge of its files by sequence number) and :func:`build_part` (the same code,
   the same rules: last record of a key wins, unscored rows, errors and limits, value and
   cluster-field failures) makes its ``LeanPart``, with the log's metrics handed in
   (``LogData.known``, :func:`~evaladdon.adapters.inspect.walk.known_metrics` of the scan's
   metrics: an unscored sample gets a row per metric of the whole log).  A log within one batch is one part, whose statistics are ``estimate_mean``'s
   own (the in-memory path's output, byte for byte).  Each (run, task, metric) group of it becomes arrays
   (:func:`~evaladdon.routes.inspect_columns._group_arrays`, the in-memory code); the usable rows'
   values, item and cluster codes go to ``.npy`` files, and what the group's summary needs
   from the other rows stays in memory: per reason its count and the global table position
   of its first row (``count_reasons`` orders ties by first appearance), the position of
   the metric's first row (group order), counts of usable and clustered rows.
4. **estimate**: :func:`evaladdon.analysis.summarize.summarize_group` per group (the same code as the
   in-memory path), the estimate by :func:`evaladdon.stats.mean_parts.estimate_mean_parts`
   over the group's parts read back from disk.  With ``--cluster`` on id-keyed batches, each
   part's good rows also get their global cluster codes (``g.npy``; an item whose rows lie in
   two clusters hands the log to the table path, whose error line is the in-memory path's),
   and a group of several parts is estimated with ``n_clusters`` (clusters spanning parts);
   a group of one part with its own codes, as without spilling.

A table position is ``(sequence of the kept sample's first record) * 2**20 + row within the
sample``: the order of the in-memory table, where a kept sample sits at its first record.

Anything else (several inputs, an ``.eval`` log, ``--method bootstrap``, a failure on the
way) raises :class:`~evaladdon.routes.inspect_columns.NotLean` or the failure itself, and the table
path answers, as it does for the in-memory lean path.  What stays in memory: one
batch's collector (up to ``RouteLimits.batch_records`` records, or one larger partition), one
partition's scan (partitions of ~``RouteLimits.part_bytes`` of JSON: up to ~58,000 of the tiniest
records), the router's buffers (:data:`FLUSH` records), and per group and distinct error
text a few numbers, and with ``--cluster`` up to ``RouteLimits.few_clusters`` labels (router) and three
floats a cluster (statistics).  Not bounded: a partition much larger than the
others (one item with a large share of the samples, or, re-routed by cluster, one of many
clusters: then :class:`Lopsided`),
the number of groups and of distinct error texts.  The statistics hold one part's arrays at a
time (``estimate_mean_parts``' three passes read the ``.npy`` files again each time).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from evaladdon.routes._columns import NotLean
from evaladdon.analysis.options import RouteLimits
from evaladdon.routes._partitions import (FLUSH, MAX_PARTS, Lopsided, Router, _merged, _records,  # noqa: F401
                                          _Scan, _scan, batches, lopsided, merge_files, n_parts, reroute)

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import SummarizeOptions

_WITHIN = 1 << 20  # rows of one sample below this (a table position is seq * _WITHIN + row within)


class TooMany(Exception):
    """A lone ``.json`` log read in memory has more than ``RouteLimits.max_records`` records."""


def _lone_json_size(files: list[Any]) -> int | None:
    """The size of the one ``.json`` log ``files`` (``inputs``' triples) is, else ``None``."""
    if len(files) != 1:
        return None
    f = files[0][0]
    try:
        size = f.stat().st_size
        with f.open("rb") as fh:
            zipped = fh.read(4).startswith(b"PK")
    except OSError:
        return None
    return None if zipped else size


def wanted(files: list[Any], limits: RouteLimits) -> bool:
    """Whether ``files`` is one ``.json`` log above ``limits.spill_bytes``."""
    size = _lone_json_size(files)
    return size is not None and size > limits.spill_bytes


def record_cap(files: list[Any], limits: RouteLimits) -> int | None:
    """``limits.max_records`` when ``files`` is one ``.json`` log (read in memory, it may be
    spilled after all: :class:`TooMany`), else ``None`` (no cap)."""
    return limits.max_records if _lone_json_size(files) is not None else None


@dataclass
class _Group:
    gid: int
    model: str
    first: int  # table position of the metric's first row
    parts: list[int] = field(default_factory=list)  # batches with usable rows
    n_good: int = 0
    n_clustered: int = 0
    reasons: dict[str, list[int]] = field(default_factory=dict)  # reason -> [count, first table position]


def _positions(part: Any, first_seq: np.ndarray) -> np.ndarray:
    """Each row's table position (module docstring)."""
    rs = part.row_sample
    if rs is None:
        return first_seq * _WITHIN
    rs = np.asarray(rs, dtype=np.int64)
    counts = np.bincount(rs, minlength=len(first_seq))
    if len(counts) and int(counts.max()) >= _WITHIN:
        raise NotLean("a sample with 2**20 rows or more")
    starts = np.cumsum(counts) - counts
    return first_seq[rs] * _WITHIN + (np.arange(len(rs), dtype=np.int64) - starts[rs])


def _global_clusters(part: Any, rows: np.ndarray | None, good: np.ndarray, items: np.ndarray,
                     labels: dict[str, int]) -> np.ndarray:
    """The good rows' global cluster codes (``labels``: the router's label -> code, -1 for no
    cluster), from the batch's local codes into ``part.cluster_names``.  An item (``items``: its
    codes in the batch, every row of an item is in it) whose good rows lie in two clusters hands
    the log to the table path, whose error line is the one to give (:class:`NotLean`)."""
    try:
        remap = np.array([labels[name] for name in part.cluster_names] + [-1], dtype=np.int64)
    except KeyError:
        raise NotLean("a cluster label the routing did not see") from None
    local = part.clusters if rows is None else part.clusters[rows]
    codes = remap[np.asarray(local[good], dtype=np.int64)]
    if codes.size:
        first = np.full(int(items.max()) + 1, -2, dtype=np.int64)
        first[items[::-1]] = codes[::-1]
        if bool((first[items] != codes).any()):
            raise NotLean("an item in two clusters (the table path decides)")
    return codes


# long: one batch's collector, part and group files at a time, each released before the next
# (the spilled route's memory bound); split, the helpers would keep a batch alive across calls
def _build(router: Router, scan: _Scan, log: Any, f: Path, cluster: str | None, metric: str | None,
           root: Path, labels: dict[str, int] | None = None,
           limits: RouteLimits = RouteLimits()) -> tuple[dict[str, _Group], Any]:
    """Step 3 of the module docstring: the groups by metric, and one batch's part (its
    columns let go) to name the run by.  With ``labels`` (id-keyed batches, clusters spanning
    them) each part's global cluster codes go to a ``g.npy`` file as well."""
    from evaladdon._util.gc import no_cyclic_gc
    from evaladdon.adapters.inspect.columns import COLUMNS
    from evaladdon.adapters.inspect.records import SampleRecord, Score
    from evaladdon.adapters.inspect.rows import Collector, LogData, build_part
    from evaladdon.adapters.inspect.walk import known_metrics, result_scores
    from evaladdon.routes._columns import _group_arrays, _metric_rows
    from evaladdon.table.usable import unusable_reasons

    # the log's metrics in the in-memory order (results first, then as they first appear in the
    # kept samples), handed to each partition's build_part (an unscored sample a row of each)
    metrics = sorted(scan.metrics.items(), key=lambda kv: kv[1][0])
    known = known_metrics(result_scores(log.header), [(m, name, plain) for m, (_, name, plain) in metrics],
                          [name for name, _ in sorted(scan.best.items(), key=lambda kv: kv[1])])

    def meta(cv: Any) -> dict[str, Any]:
        if cv is None or cluster is None:
            return {}
        out: Any = cv
        for step in reversed(cluster.split(".")):
            out = {step: out}
        return out

    groups: dict[str, _Group] = {}
    shown: Any = None
    for i, batch in enumerate(batches(scan.counts, limits.batch_records, merge_files(limits.merge_files))):
        seqs = [scan.first_seq(j) for j in batch]
        first_seq = seqs[0] if len(seqs) == 1 else np.sort(np.concatenate(seqs))
        del seqs
        with no_cyclic_gc():
            col = Collector(cluster, lean=COLUMNS)
            for t in _merged(router.files, batch):
                sc = t[3]
                col.add(SampleRecord(t[1], t[2], None if sc is None else {k: Score(v, None, None) for k, v in sc.items()},
                                     meta(t[4]), t[5], t[6], None, None))
            part = build_part(LogData(header=log.header, records=col, n_members=None, unlisted=0,
                                      summary_source=log.summary_source, samples_logged=log.samples_logged,
                                      known=known), f, cluster)
            del col
        if part.n_samples != len(first_seq):
            raise NotLean("the batch's kept samples differ from its scan (an id digest collision?)")
        if not part.n:
            continue
        if int(part.epochs.min()) < 1:
            raise NotLean("an epoch below 1 (validate reports it)")
        where = _positions(part, first_seq)
        for m, rows in _metric_rows(part, metric).items():
            at = where if rows is None else where[rows]
            ga = _group_arrays(part.run, part.task, m, [(part, rows)], cluster, [])
            g = groups.get(m)
            if g is None:
                g = groups[m] = _Group(len(groups), str(ga.model), int(at[0]))
            g.first = min(g.first, int(at[0]))
            bad, reasons = unusable_reasons(ga.values, ga.error, ga.has_error)
            if reasons is not None:
                uniq, first, counts = np.unique(reasons, return_index=True, return_counts=True)
                bad_at = at[bad]
                for u, j, c in zip(uniq, first, counts, strict=True):
                    r = g.reasons.setdefault(str(u), [0, int(bad_at[j])])
                    r[0] += int(c)
                    r[1] = min(r[1], int(bad_at[j]))
            good = ~bad
            n_good = int(good.sum())
            if not n_good:
                continue
            clusters = ga.clusters[good]
            n_clustered = int((clusters >= 0).sum())
            if labels is not None and n_clustered:
                np.save(root / f"g{g.gid}p{i}g.npy",
                        _global_clusters(part, rows, good, np.asarray(ga.items)[good], labels))
            g.n_good += n_good
            g.n_clustered += n_clustered
            g.parts.append(i)
            np.save(root / f"g{g.gid}p{i}v.npy", ga.values[good])
            np.save(root / f"g{g.gid}p{i}i.npy", ga.items[good])
            if n_clustered:
                np.save(root / f"g{g.gid}p{i}c.npy", clusters)
            del ga, bad, good, clusters
        del where
        if shown is None:
            shown = part
        for attr in ("metric_codes", "items", "item_codes", "epochs", "values", "errors", "clusters", "row_sample"):
            setattr(part, attr, None)
        del part
    return groups, shown


def summarize_spilled(opts: SummarizeOptions, f: Path, notes: list[str], name_of: dict[Path, str], skipped: list[Any],
                      limits: RouteLimits) -> Any:
    """The :class:`~evaladdon.routes.plan.Summaries` of the one log ``f`` (module docstring)."""
    from evaladdon.table.loaded import Loaded
    from evaladdon.adapters import name_runs, separate_runs
    from evaladdon._util.gc import no_cyclic_gc
    from evaladdon.adapters.inspect.stream import NotNative, read_json_stream
    from evaladdon.adapters.inspect.rows import _notes, incomplete_of
    from evaladdon.analysis.summarize import marks_from
    from evaladdon.routes.results import Summaries
    from evaladdon.table.names import labels_of
    from evaladdon.stats.mean_parts import MeanPart, estimate_mean_parts
    from evaladdon.analysis.summarize import finish_summaries, summarize_group

    method = str(opts.method).lower().replace("_", "-")
    if method == "bootstrap":
        raise NotLean("a bootstrap interval needs every value in one part")
    cluster = opts.inputs.cluster
    metric = opts.inputs.metric
    with tempfile.TemporaryDirectory(prefix="evaladdon-spill-") as tmp:
        root = Path(tmp)
        router = Router(root, n_parts(f.stat().st_size, limits), cluster, limits.few_clusters)
        try:
            with no_cyclic_gc():
                log = read_json_stream(f, cluster, router)  # type: ignore[arg-type]
        except NotNative as exc:
            raise NotLean(f"{f}: the native reader does not read it ({exc})") from None
        router.flush()
        labels = router.labels
        if cluster is not None and labels is None:
            reroute(router, root, limits.lopsided_records)  # many clusters: each whole in a partition
        scan = _scan(router.files, root)
        groups, shown = _build(router, scan, log, f, cluster, metric, root, labels, limits)
        n_labels = len(labels) if labels else None
        if shown is None:
            raise NotLean("no rows (read_runs reports it)")
        if metric is not None and metric not in groups:
            raise NotLean(f"no rows with metric {metric!r} (check_metric reports it)")
        order = sorted(groups, key=lambda m: groups[m].first)
        # the log's part as the naming of runs sees it: its run and its metrics
        shown.metrics = np.array(order, dtype=object)
        notes.extend(_notes(f, log, log.header, scan.n_kept, scan.n_records - scan.n_kept))
        incomplete: dict[str, dict[str, Any]] = {}
        inc = incomplete_of(log, scan.n_kept)
        if inc:
            incomplete[shown.source] = dict(inc)
        name_runs([shown], [f], name_of)
        separate_runs([shown], set(name_of.values()))
        user_named = set(name_of.values())
        run = shown.run
        names = {run: run} if run in user_named or run.split("/")[0] in user_named else {}
        loaded = Loaded(None, notes, [], skipped, names, incomplete)  # type: ignore[arg-type]
        run_labels = labels_of([(run, shown.model, shown.task, shown.source)], names)

        summaries = []
        for m in order:
            g = groups[m]
            dropped = {reason: c for reason, (c, _) in sorted(g.reasons.items(), key=lambda kv: (-kv[1][0], kv[1][1]))}

            # clusters spanning the group's parts (id-keyed batches): global codes; one part: its own
            spanning = n_labels if n_labels is not None and len(g.parts) > 1 else None

            def parts(g: _Group = g, clustered: bool = False,
                      kind: str = "g" if spanning else "c") -> Iterator[MeanPart]:
                for i in g.parts:
                    yield MeanPart(np.load(root / f"g{g.gid}p{i}v.npy"), np.load(root / f"g{g.gid}p{i}i.npy"),
                                   np.load(root / f"g{g.gid}p{i}{kind}.npy") if clustered else None)

            def estimate(clustered: bool, parts: Any = parts, spanning: int | None = spanning) -> Any:
                return estimate_mean_parts(lambda: parts(clustered=clustered), clustered=clustered, level=opts.level,
                                           method=opts.method, cluster_method=opts.cluster_method,
                                           n_clusters=spanning if clustered else None)

            got = summarize_group(run, shown.task, g.model, m, dropped, g.n_good, g.n_clustered, estimate, run_labels,
                                  notes)
            if got is not None:
                summaries.append(got)
        summaries = finish_summaries(summaries, notes)
    marks = marks_from(summaries, incomplete, lambda s: [shown.source])
    return Summaries(summaries, loaded, notes, marks, [], route_detail="spilled")
