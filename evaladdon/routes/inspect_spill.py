"""The lean ``summarize`` of one large ``.json`` Inspect log in bounded memory: hash partitions on disk.

:func:`evaladdon.routes.inspect_columns.summarize_lean` keeps ~26-45 bytes a sample of every log it
reads, so a streamed ``.json`` log of any size is not bounded.  A lone ``.json`` input larger
than ``RouteLimits.spill_bytes``, or found while read in memory to hold more than
``RouteLimits.max_records`` records (:class:`TooMany`: it is read again), is summarized here
instead, in four passes:

1. **route** (:class:`Router`): the native streaming reader
   (:func:`~evaladdon.adapters.inspect_native.read_json_stream`) hands each sample record to
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
   :func:`~evaladdon.adapters.inspect_rows.build_part` that one partition cannot see --
   the log's score-name order (results first, then as names first appear in the kept
   samples, in table order), the duplicate count, the kept-sample count (incomplete-log
   note) -- are made from them.
3. **build** (:func:`_build`): per batch of consecutive partitions (:func:`batches`: up to
   ``RouteLimits.batch_records`` records and ``RouteLimits.merge_files`` files; a union of partitions keeps
   items and clusters whole) a fresh ``Collector(cluster, lean=True)`` gets the batch's
   records in their original order (a merge of its files by sequence number) and :func:`build_part` (the same code,
   the same rules: last record of a key wins, unscored rows, errors and limits, value and
   cluster-field failures) makes its ``LeanPart``, with the log's score-name order handed
   in as the header's result names (so an unscored sample gets a row per score name of the
   whole log).  A log within one batch is one part, whose statistics are ``estimate_mean``'s
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

import heapq
import marshal
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from evaladdon.routes.inspect_columns import NotLean
from evaladdon.analysis.options import RouteLimits

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import SummarizeOptions

MAX_PARTS = 4096
FLUSH = 1 << 11
"""Records the router buffers (all partitions together) before it writes them."""

_WITHIN = 1 << 20  # rows of one sample below this (a table position is seq * _WITHIN + row within)


class TooMany(Exception):
    """A lone ``.json`` log read in memory has more than ``RouteLimits.max_records`` records."""


class Lopsided(Exception):
    """With ``--cluster`` re-routed by cluster (more than ``RouteLimits.few_clusters`` labels), one
    partition holds a large share of the log's records (:func:`lopsided`): spilling would hold
    it whole, at more memory than reading the log in memory (measured when every ``--cluster``
    log was routed by cluster: 1M tiny samples in 3 clusters, 245 MB spilled, 136 MB in memory;
    routed by id now, 72 MB), so the caller reads it in memory after all."""


def lopsided(counts: list[int], limit: int) -> bool:
    """Whether the largest partition of ``counts`` records exceeds ``limit``
    (``RouteLimits.lopsided_records``) and a quarter of all records (see :class:`Lopsided`)."""
    top = max(counts, default=0)
    return top > limit and 4 * top > sum(counts)


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


def n_parts(size: int, limits: RouteLimits) -> int:
    """K for a file of ``size`` bytes (``limits.part_bytes``, or ``limits.parts`` when set)."""
    if limits.parts is not None:
        return limits.parts
    k = 2
    while k < MAX_PARTS and k * limits.part_bytes < size:
        k *= 2
    return k


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def _records(path: Path) -> Iterator[tuple[Any, ...]]:
    """The records a :class:`Router` wrote to ``path``, in order."""
    if not path.exists():
        return
    with path.open("rb") as fh:
        while True:
            try:
                chunk = marshal.load(fh)
            except EOFError:
                return
            yield from chunk


class Router:
    """The collector the streaming reader fills (``lean`` and :meth:`add` are all it uses):
    each record to its partition file (see module docstring)."""

    lean = True

    def __init__(self, root: Path, k: int, cluster: str | None, few_clusters: int = RouteLimits.few_clusters) -> None:
        from evaladdon.table.names import dotted

        self.dotted = dotted
        self.k = k
        self.cluster = cluster
        self.few_clusters = few_clusters
        self.files = [root / f"part{i}.marshal" for i in range(k)]
        self.buf: list[list[tuple[Any, ...]]] = [[] for _ in range(k)]
        # with --cluster: cluster label -> global code (first appearance), None past few_clusters labels
        self.labels: dict[str, int] | None = {} if cluster is not None else None
        self.held = 0
        self.seq = 0
        self.counts = [0] * k  # records per partition

    def add(self, r: Any) -> None:
        epoch = r.epoch
        if r.id is None or isinstance(epoch, bool) or not isinstance(epoch, int):
            raise NotLean("a sample without id or integer epoch (build_part reports it)")
        sid = str(r.id)
        scores = None if r.scores is None else {name: s.value for name, s in r.scores.items()}
        cv = None
        if self.cluster is not None:
            cv = self.dotted(r.metadata, self.cluster)
            if isinstance(cv, (dict, list)):
                cv = None  # (not a scalar: the lean collector's -1, as for a missing field)
            labels = self.labels
            if cv is not None and labels is not None:
                label = str(cv)
                if label not in labels:
                    labels[label] = len(labels)
                    if len(labels) > self.few_clusters:
                        self.labels = None  # many clusters: re-routed by cluster (reroute)
        part = _crc(sid) & (self.k - 1)
        self.buf[part].append((self.seq, sid, epoch, scores, cv, bool(r.error), r.limit))
        self.counts[part] += 1
        self.seq += 1
        self.held += 1
        if self.held >= FLUSH:
            self.flush()

    def flush(self) -> None:
        _flush(self.files, self.buf)
        self.held = 0


def _flush(files: list[Path], bufs: list[list[tuple[Any, ...]]]) -> None:
    for path, b in zip(files, bufs):
        if b:
            with path.open("ab") as fh:
                marshal.dump(b, fh)
            b.clear()


def reroute(router: Router, root: Path, lopsided_records: int = RouteLimits.lopsided_records) -> list[Path]:
    """With ``--cluster`` and more than ``RouteLimits.few_clusters`` labels: the id-keyed partitions
    routed again by the CRC-32 of the cluster label, so that each cluster is whole in one
    partition (``router.files`` and ``router.counts`` replaced; each new file sorted by
    sequence number, as the merge of a batch needs).  An id met with two cluster partitions
    hands the log to the table path (:class:`NotLean`: an item in two clusters, or a replaced
    record of another cluster); a lopsided result raises :class:`Lopsided`.  Memory: one
    partition's ids (here) and one partition's records (the sort)."""
    k = router.k
    files = [root / f"cpart{i}.marshal" for i in range(k)]
    bufs: list[list[tuple[Any, ...]]] = [[] for _ in range(k)]
    counts = [0] * k
    held = 0
    for path in router.files:
        where: dict[str, int] = {}
        for t in _records(path):
            cv = t[4]
            part = _crc("\x00" if cv is None else "\x01" + str(cv)) & (k - 1)
            if where.setdefault(t[1], part) != part:
                raise NotLean("an item whose records lie in two cluster partitions (the table path decides)")
            bufs[part].append(t)
            counts[part] += 1
            held += 1
            if held >= FLUSH:
                _flush(files, bufs)
                held = 0
        del where
        _flush(files, bufs)
        held = 0
        if path.exists():
            path.unlink()
    if lopsided(counts, lopsided_records):
        raise Lopsided(f"{max(counts)} of {sum(counts)} records in one cluster partition")
    for path in files:  # records of several id partitions interleave: sorted by sequence number
        if path.exists():
            recs = sorted(_records(path), key=lambda t: t[0])
            with path.open("wb") as fh:
                for at in range(0, len(recs), FLUSH):
                    marshal.dump(recs[at:at + FLUSH], fh)
            del recs
    router.files, router.counts = files, counts
    return files


@dataclass
class _Scan:
    root: Path  # per partition, kept samples' first sequences in order: root / "seq.bin" (int64) at offsets[i]
    sizes: list[int] = field(default_factory=list)  # kept samples per partition
    counts: list[int] = field(default_factory=list)  # records per partition
    offsets: list[int] = field(default_factory=list)  # where each partition's sequences start in seq.bin

    def first_seq(self, i: int) -> np.ndarray:
        """Partition ``i``'s kept samples' first sequence numbers, in order."""
        return np.fromfile(self.root / "seq.bin", dtype=np.int64, count=self.sizes[i], offset=8 * self.offsets[i])
    best: dict[str, tuple[int, int]] = field(default_factory=dict)  # score name -> (first seq, index in sample)
    n_records: int = 0
    n_kept: int = 0


def _scan(files: list[Path], root: Path) -> _Scan:
    """Step 2 of the module docstring."""
    out = _Scan(root)
    with (root / "seq.bin").open("wb") as seq_file:  # (one file: each file created costs ~1 ms here)
        for i, path in enumerate(files):
            keys: dict[tuple[str, int], list[Any]] = {}
            n = 0
            for t in _records(path):
                n += 1
                v = keys.get((t[1], t[2]))
                if v is None:
                    keys[(t[1], t[2])] = [t[0], t[3]]
                else:
                    v[1] = t[3]  # the last record of a key wins (its scores), at the place of its first
            best = out.best
            for seq, scores in keys.values():
                for j, name in enumerate(scores or ()):
                    b = best.get(name)
                    if b is None or (seq, j) < b:
                        best[name] = (seq, j)
            out.offsets.append(out.n_kept)
            seq_file.write(np.sort(np.fromiter((v[0] for v in keys.values()), dtype=np.int64, count=len(keys))).tobytes())
            out.sizes.append(len(keys))
            out.counts.append(n)
            out.n_records += n
            out.n_kept += len(keys)
            del keys
    return out


@dataclass
class _Group:
    gid: int
    model: str
    first: int  # table position of the metric's first row
    parts: list[int] = field(default_factory=list)  # batches with usable rows
    n_good: int = 0
    n_clustered: int = 0
    reasons: dict[str, list[int]] = field(default_factory=dict)  # reason -> [count, first table position]


def merge_files(limit: int = RouteLimits.merge_files) -> int:
    """``limit`` (``RouteLimits.merge_files``), or half the soft limit of open files if that is lower (256 where
    the limit is unknown)."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft == resource.RLIM_INFINITY or soft <= 0:
            return limit
    except (ImportError, OSError, ValueError):  # (no resource module: Windows)
        soft = 512
    return max(2, min(limit, soft // 2))


def batches(counts: list[int], budget: int, files: int | None = None) -> list[list[int]]:
    """Consecutive partitions (those with records) grouped so that a group's records are at
    most ``budget``, or one partition alone when it has more (``RouteLimits.batch_records``),
    and a group is at most ``files`` partitions (default :func:`merge_files`)."""
    files = merge_files() if files is None else files
    out: list[list[int]] = []
    held = 0
    for i, n in enumerate(counts):
        if not n:
            continue
        if out and held + n <= budget and len(out[-1]) < files:
            out[-1].append(i)
            held += n
        else:
            out.append([i])
            held = n
    return out


def _merged(files: list[Path], batch: list[int]) -> Iterator[tuple[Any, ...]]:
    """The records of the partitions in ``batch`` in their global order (each file is in
    order; records compare by their sequence number first, and no two share one)."""
    if len(batch) == 1:
        return _records(files[batch[0]])
    return heapq.merge(*(_records(files[i]) for i in batch))


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


def _build(router: Router, scan: _Scan, log: Any, f: Path, cluster: str | None, metric: str | None,
           root: Path, labels: dict[str, int] | None = None,
           limits: RouteLimits = RouteLimits()) -> tuple[dict[str, _Group], Any]:
    """Step 3 of the module docstring: the groups by metric, and one batch's part (its
    columns let go) to name the run by.  With ``labels`` (id-keyed batches, clusters spanning
    them) each part's global cluster codes go to a ``g.npy`` file as well."""
    from evaladdon._util.gc import no_cyclic_gc
    from evaladdon.adapters.inspect_rows import Collector, LogData, SampleRecord, Score, build_part
    from evaladdon.routes.inspect_columns import _group_arrays, _metric_rows
    from evaladdon.table.usable import unusable_reasons

    header = dict(log.header)
    results = header.get("results") if isinstance(header.get("results"), dict) else {}
    result_names = [str(s.get("name")) for s in (results or {}).get("scores") or [] if isinstance(s, dict)]
    known = list(dict.fromkeys(result_names))
    known += [name for name, _ in sorted(scan.best.items(), key=lambda kv: kv[1]) if name not in set(known)]
    # the log's score-name order, handed to each partition's build_part as its results' names
    header["results"] = {"scores": [{"name": name} for name in known]}

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
            col = Collector(cluster, lean=True)
            for t in _merged(router.files, batch):
                sc = t[3]
                col.add(SampleRecord(t[1], t[2], None if sc is None else {k: Score(v, None, None) for k, v in sc.items()},
                                     meta(t[4]), t[5], t[6], None, None))
            part = build_part(LogData(header=header, records=col, n_members=None, unlisted=0,
                                      summary_source=log.summary_source, samples_logged=log.samples_logged), f, cluster)
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
                for u, j, c in zip(uniq, first, counts):
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
    from evaladdon.adapters.inspect_native import NotNative, read_json_stream
    from evaladdon.adapters.inspect_rows import _notes, incomplete_of
    from evaladdon.analysis.summarize import marks_from
    from evaladdon.routes.plan import Summaries
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
        labels = labels_of([(run, shown.model, shown.task, shown.source)], names)

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

            got = summarize_group(run, shown.task, g.model, m, dropped, g.n_good, g.n_clustered, estimate, labels,
                                  notes)
            if got is not None:
                summaries.append(got)
        summaries = finish_summaries(summaries, notes)
    marks = marks_from(summaries, incomplete, lambda s: [shown.source])
    return Summaries(summaries, loaded, notes, marks, [], route_detail="spilled")
