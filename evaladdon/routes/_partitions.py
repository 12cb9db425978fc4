"""Hash partitions of a large Inspect ``.json`` log on disk, for the spilled summarize
(:mod:`evaladdon.routes.inspect_spill`, whose docstring tells the four passes): the router that
writes each sample record to its partition file (``marshal`` of plain data, never pickle), the
re-routing by cluster, the scan of each partition's keys, and the batches of partitions merged
back in their original order."""

from __future__ import annotations

import heapq
import marshal
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from evaladdon.analysis.options import RouteLimits
from evaladdon.routes._columns import NotLean

__all__ = ["FLUSH", "MAX_PARTS", "Lopsided", "Router", "batches", "lopsided", "merge_files", "n_parts", "reroute"]

MAX_PARTS = 4096
FLUSH = 1 << 11
"""Records the router buffers (all partitions together) before it writes them."""


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
    for path, b in zip(files, bufs, strict=True):
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
    # metric -> (first seq, row in sample), its score name, whether a plain value made it (not a dict's key)
    metrics: dict[str, tuple[tuple[int, int], str, bool]] = field(default_factory=dict)
    n_records: int = 0
    n_kept: int = 0


def _scan(files: list[Path], root: Path) -> _Scan:
    """Step 2 of the module docstring."""
    out = _Scan(root)
    with (root / "seq.bin").open("wb") as seq_file:  # (one file: each file created costs ~1 ms here)
        for path in files:
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
                if scores:
                    _scan_metrics(out.metrics, seq, scores)
            out.offsets.append(out.n_kept)
            seq_file.write(np.sort(np.fromiter((v[0] for v in keys.values()), dtype=np.int64, count=len(keys))).tobytes())
            out.sizes.append(len(keys))
            out.counts.append(n)
            out.n_records += n
            out.n_kept += len(keys)
            del keys
    return out


def _scan_metrics(metrics: dict[str, tuple[tuple[int, int], str, bool]], seq: int, scores: dict[str, Any]) -> None:
    """The metrics a kept sample's ``scores`` make (as the walk names them: a dict value a
    metric ``name/key`` a key), each kept at its first (sequence, row) over the log."""
    k = 0
    for name, value in scores.items():
        pairs = [(f"{name}/{key}", False) for key in value] if isinstance(value, dict) else [(name, True)]
        for metric, plain in pairs:
            m = metrics.get(metric)
            if m is None or (seq, k) < m[0]:
                metrics[metric] = ((seq, k), name, plain)
            k += 1


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
