"""Inspect ``.eval`` logs read without inspect-ai: the zip's members parsed with orjson.

What is read (nothing else is touched): ``header.json`` (or ``_journal/start.json`` for an
unfinished run), ``summaries.json`` (or the journal ``_journal/summaries/1..N.json``), and the
names of the ``samples/*.json`` members; a member whose (id, epoch) no summary lists is read
itself.  Deflate and zstd (Inspect's default writer) members, each bounded in decompressed size
(:mod:`evaladdon.adapters.common.guard`), parsed by orjson (which stops at 1,024 levels) and
depth-scanned only before the stdlib parser reads what orjson refused.  Anything else (log
format versions other than 2 and 3, other zip compression) raises
:class:`~evaladdon.adapters.inspect.stream.NotNative`, and the caller falls back to Inspect's own
reader.  Records come out in the shape of :mod:`evaladdon.adapters.inspect.rows`; JSON logs,
and what both readers share, are :mod:`evaladdon.adapters.inspect.stream`'s.

Given a :class:`~evaladdon.adapters.inspect.rows.Collector` (``records=``, the lean summarize
of :mod:`evaladdon.routes`), the records go into it as they are read: an ``.eval``'s directory is
scanned without a ``ZipInfo`` per sample member (:mod:`evaladdon.adapters.common.zipdir`), a large
``summaries.json`` is streamed with ijson (zstd decompressed from the file a block at a time),
and the sample members no summary lists are found by binary search on their names, so
memory holds the collector's columns, not the log.

The table path (:func:`read_eval_table`, what ``read_runs`` and ``read_inspect_log`` use)
reads an ordinary ``.eval`` the same cheap way (``zipdir.scan`` in strict mode, each member
in one read of its declared size) and, when no rule of ``build_part`` applies to it, puts its
summaries straight into row lists (:func:`quick_rows`) that ``rows.frame`` converts
for all such logs of a read at once: most of the per-file cost of many small logs was the
records, a column batch and a ``build_part`` per log.  Anything else is read as before
(:func:`read_eval_zip`, records, ``Collector``), so its results and messages are unchanged.
"""

from __future__ import annotations

import threading
import zipfile
import zlib
from contextlib import nullcontext
from itertools import repeat
from pathlib import Path
from typing import Any, BinaryIO, Callable, Sequence

import numpy as np

from evaladdon.adapters.common.guard import (
    BOM,
    MAX_MEMBER_BYTES,
    MAX_RATIO,
    ZIP_ZSTANDARD,
    UnsupportedMember,
    _check_growth,
    read_member,
)
from evaladdon.adapters.inspect.stream import (
    NotNative,
    _header_of,
    _loads,
    _record_at,
    record,
)
from evaladdon.adapters.inspect.member_stream import _stream_summaries
from evaladdon.adapters.inspect.parts import label_bytes
from evaladdon.adapters.inspect.quick import _Unordinary, quick_rows
from evaladdon.adapters.inspect.rows import Collector, LogData
from evaladdon.adapters.tuning import DEFAULT, ReadTuning
from evaladdon.errors import InputError


def _member_key(name: str) -> tuple[str, int] | None:
    """(id, epoch) of ``samples/{id}_epoch_{epoch}.json``."""
    stem = name[len("samples/"):-len(".json")]
    sid, sep, epoch = stem.rpartition("_epoch_")
    if not sep or not epoch.isdigit():
        return None
    return sid, int(epoch)




def _raw_header(infos: Any, member: Callable[[str], Any]) -> Any:
    """The parsed ``header.json``, else ``_journal/start.json`` of an unfinished run (status
    "started", as Inspect's reader says too); neither: not a log the fast path reads."""
    if "header.json" in infos:
        return member("header.json")
    if "_journal/start.json" in infos:
        header = member("_journal/start.json")
        return {**header, "status": "started"} if isinstance(header, dict) else header
    raise NotNative("no header.json or _journal/start.json")


def read_eval_zip(path: Path, records: Collector | None = None, *, tuning: ReadTuning | None = None,
                  fh: BinaryIO | None = None) -> LogData:
    """An ``.eval`` log (see module docstring).  ``records``: a :class:`Collector` that takes the
    records as they are read (a ``summaries.json`` larger than ``tuning.stream_bytes`` then
    streamed), instead of a list.  ``fh``: ``path`` already open (binary; left open)."""
    where = str(path)
    if records is not None:
        return _read_eval_into(path, records, (tuning or DEFAULT).stream_bytes, fh)
    try:
        zf = zipfile.ZipFile(path if fh is None else fh)
    except (zipfile.BadZipFile, OSError, NotImplementedError, ValueError, EOFError) as exc:
        raise InputError(f"cannot read as an Inspect log ({type(exc).__name__}: {exc})", where) from None
    try:
        with zf:
            infos = {i.filename: i for i in zf.infolist()}  # a re-written member: the last wins
            try:
                def member(name: str) -> Any:
                    return _loads(read_member(zf, infos[name], where), where, name)

                header = _header_of(_raw_header(infos, member), where)
                names = {n for n in infos if n.startswith("samples/") and n.endswith(".json")}
                if "summaries.json" in infos:
                    summaries = member("summaries.json")
                    source = "summaries.json"
                else:
                    journal = sorted(
                        (int(n.rsplit("/", 1)[1][:-5]), n) for n in infos
                        if n.startswith("_journal/summaries/") and n.endswith(".json")
                        and n.rsplit("/", 1)[1][:-5].isdigit())
                    summaries = []
                    for _, name in journal:
                        part = member(name)
                        if not isinstance(part, list):
                            raise InputError(f"cannot read as an Inspect log ({name} is not a list)", where)
                        summaries.extend(part)
                    source = "the journal summaries"
                if not isinstance(summaries, list) or not all(isinstance(s, dict) for s in summaries):
                    raise InputError(f"cannot read as an Inspect log ({source} is not a list of samples)", where)
                records = [_record_at(s, where) for s in summaries]
                listed = {f"samples/{r.id}_epoch_{r.epoch}.json" for r in records}
                seen = {(str(r.id), r.epoch) for r in records} if names - listed else set()
                members = {k: n for n in names - listed if (k := _member_key(n)) is not None}
                unlisted = [n for k, n in members.items() if k not in seen]
                n_members = len(names)
                for name in sorted(unlisted):
                    sample = member(name)
                    if not isinstance(sample, dict):
                        raise InputError(f"cannot read as an Inspect log ({name} is not a sample object)", where)
                    records.append(_record_at(sample, where))
            except (InputError, NotNative, RecursionError):
                raise
            except UnsupportedMember as exc:
                raise NotNative(str(exc)) from None
            except Exception as exc:  # zipfile, zlib and zstandard raise many types on damaged archives
                text = " ".join(str(exc).split())[:200]
                raise InputError(f"cannot read as an Inspect log ({type(exc).__name__}: {text})", where) from None
    except NotNative:
        raise
    return LogData(header=header, records=records, n_members=n_members, unlisted=len(unlisted),
                   summary_source=source)


def read_eval_table(path: Path, cluster: str | None = None, *, tuning: ReadTuning | None = None,
                    fh: BinaryIO | None = None) -> LogData:
    """:func:`read_eval_zip` for the table path, cheaper on many small logs: the archive's
    directory scanned without a ``ZipInfo`` per sample member (:func:`zipdir.scan`, strict),
    when the log is ordinary (a header, summaries naming every sample member, nothing
    ``zipfile`` would word differently).  Anything else -- an error, an unusual archive,
    sample members no summary lists -- is read again by :func:`read_eval_zip`, so every
    result and every message is that function's.  ``tuning.quick``: the summaries of an ordinary
    log straight into row lists (:func:`quick_rows`; False: as records).  ``fh``: ``path`` open
    (left open), which both readers use: the log is opened once."""
    try:
        with path.open("rb") if fh is None else nullcontext(fh) as f:
            log = _read_eval_ordinary(path, cluster, (tuning or DEFAULT).quick, f)
    except Exception:  # noqa: BLE001 - read_eval_zip reads it again and words what is wrong
        log = None
    return log if log is not None else read_eval_zip(path, fh=fh)


_SHARED = threading.local()
_SHARED_BYTES = 1 << 20


def _zstd(size: int) -> Any:
    """A zstd decompressor: one per thread, kept, for members of at most a MiB (making one
    costs ~10-20 us, a fifth of a small log's member read; one decompresses at a time), a new
    one for larger members (so no thread keeps a large member's window)."""
    import zstandard

    if size > _SHARED_BYTES:
        return zstandard.ZstdDecompressor()
    dctx = getattr(_SHARED, "zstd", None)
    if dctx is None:
        dctx = _SHARED.zstd = zstandard.ZstdDecompressor()
    return dctx


def _whole_member(fh: Any, info: zipfile.ZipInfo, where: str) -> bytes:
    """A member's bytes in one read of its declared size (BOM removed), when they are exactly
    what it declares (size and CRC-32): what :func:`~evaladdon.adapters.common.guard.read_member`
    gives, without its chunked reads; anything else raises (the caller reads the log again
    with ``read_member``, which words it)."""
    _check_growth(where, info.filename, info.file_size, info.compress_size, MAX_MEMBER_BYTES, MAX_RATIO)
    from evaladdon.adapters.common.zipdir import seek_checked_data

    seek_checked_data(fh, info)  # (the local header as zipfile checks it)
    raw = fh.read(info.compress_size)
    want = info.file_size
    if info.compress_type == ZIP_ZSTANDARD:
        with _zstd(want).stream_reader(raw, read_across_frames=True) as reader:
            data = reader.read(want + 1)  # one byte more than declared: a longer member is refused below
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        inflate = zlib.decompressobj(-15)
        data = inflate.decompress(raw, want + 1)
        if not inflate.eof:
            raise zipfile.BadZipFile(f"{info.filename}: not one deflate stream of its declared size")
    elif info.compress_type == zipfile.ZIP_STORED:
        data = raw
    else:
        raise UnsupportedMember(f"{info.filename} uses zip compression method {info.compress_type}")
    if len(raw) != info.compress_size or len(data) != want or zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile(f"{info.filename}: not its declared size or CRC-32")
    return data[len(BOM):] if data.startswith(BOM) else data


def _read_eval_ordinary(path: Path, cluster: str | None, quick: bool, fh: BinaryIO) -> LogData | None:
    """An ordinary ``.eval`` (:func:`read_eval_table`) from ``fh``, or ``None``; raises on anything wrong."""
    from evaladdon.adapters.common import zipdir

    where = str(path)
    infos, sample_names = zipdir.scan(fh, strict=True)

    def member(name: str) -> Any:
        return _loads(_whole_member(fh, infos[name], where), where, name)

    header = _header_of(_raw_header(infos, member), where)
    if "summaries.json" in infos:
        summaries = member("summaries.json")
        source = "summaries.json"
    else:
        summaries = []
        for name in _journal(infos):
            part = member(name)
            if not isinstance(part, list):
                return None
            summaries.extend(part)
        source = "the journal summaries"
    if not isinstance(summaries, list) or not all(map(isinstance, summaries, repeat(dict))):  # (a C loop)
        return None
    rows: Any = None
    if quick:
        try:
            rows = quick_rows(summaries, cluster)
        except _Unordinary:
            pass
    if rows is not None:
        got = _listed_bytes(rows.items, rows.epochs)
        if got is not None:  # (the common case: one epoch, ids without a line break)
            member_names = set(sample_names.tolist())
            if len(got) < rows.n_samples or not member_names <= got:
                rows = None  # an (id, epoch) twice, or members no summary lists: as below
            else:
                return LogData(header=header, records=rows, n_members=len(member_names), unlisted=0,
                               summary_source=source)
    names = {b.decode("utf-8") for b in sample_names.tolist()}
    if rows is not None:
        listed = {f"samples/{item}_epoch_{epoch}.json" for item, epoch in zip(rows.items, rows.epochs, strict=True)}  # per sample
        if len(listed) < rows.n_samples:  # an (id, epoch) twice (the epoch, an int, ends the name): build_part's rule
            rows = None
    if rows is None:
        rows = [record(s) for s in summaries]
        listed = {f"samples/{r.id}_epoch_{r.epoch}.json" for r in rows}
    if names - listed:
        return None  # sample members no summary lists: read_eval_zip reads them
    return LogData(header=header, records=rows, n_members=len(names), unlisted=0, summary_source=source)


def _listed_bytes(items: Sequence[str], epochs: Sequence[int]) -> set[bytes] | None:
    """The member names the samples of one epoch list (``samples/{id}_epoch_{epoch}.json``,
    UTF-8) made by one join, one encoding and one split (no string a sample in Python), as
    the set of bytes the directory's names are compared with; ``None`` when the samples have
    several epochs, an id holds a line break or is no UTF-8 (a lone surrogate): the caller
    then builds the names one by one, as texts.  The same answers either way: UTF-8 is one to
    one, so bytes are equal exactly when their texts are."""
    n = len(items)
    epoch = epochs[0]
    if epochs.count(epoch) != n:
        return None
    tail = f"_epoch_{epoch}.json"
    try:
        pieces = ("samples/" + (tail + "\nsamples/").join(items) + tail).encode("utf-8").split(b"\n")
    except UnicodeEncodeError:
        return None
    return set(pieces) if len(pieces) == n else None


def _journal(infos: dict[str, zipfile.ZipInfo]) -> list[str]:
    return [n for _, n in sorted(
        (int(n.rsplit("/", 1)[1][:-5]), n) for n in infos
        if n.startswith("_journal/summaries/") and n.endswith(".json") and n.rsplit("/", 1)[1][:-5].isdigit())]


def _read_eval_into(path: Path, records: Collector, stream_bytes: int = DEFAULT.stream_bytes,
                    fh: BinaryIO | None = None) -> LogData:
    """:func:`read_eval_zip` with the records going into ``records`` as they are read: the same
    records in the same order (summaries, then the members no summary lists, by name), the archive's
    directory scanned without a ``ZipInfo`` per sample member (:mod:`~evaladdon.adapters.common.zipdir`),
    a large ``summaries.json`` streamed.  Errors are not worded as :func:`read_eval_zip` words them:
    on anything wrong the lean summarize (its one caller) reads the log that way.  ``fh``: ``path``, open."""
    from evaladdon.adapters.common import zipdir

    where = str(path)
    try:
        with path.open("rb") if fh is None else nullcontext(fh) as fh:
            try:
                infos, sample_names = zipdir.scan(fh)
            except zipdir.Unusual as exc:
                raise NotNative(str(exc)) from None
            archive: Any = zipdir.Archive(fh)

            def member(name: str) -> Any:
                return _loads(read_member(archive, infos[name], where), where, name)

            header = _raw_header(infos, member)

            def rescan(names: list[str]) -> None:  # the ZipInfo of sample members read themselves
                infos.update(zipdir.scan(fh, {n.encode("utf-8") for n in names})[0])

            return _eval_into(archive, infos, sample_names, _header_of(header, where), records, member, where, rescan,
                              stream_bytes)
    except (InputError, NotNative, RecursionError):
        raise
    except UnsupportedMember as exc:
        raise NotNative(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - a damaged archive
        raise InputError(f"cannot read as an Inspect log ({type(exc).__name__}: {str(exc)[:200]})", where) from None


def _eval_into(zf: Any, infos: dict[str, zipfile.ZipInfo], names: Any, header: dict[str, Any],
               records: Collector, member: Callable[[str], Any], where: str,
               rescan: Callable[[list[str]], None], stream_bytes: int = DEFAULT.stream_bytes) -> LogData:
    """The records of an ``.eval`` into ``records`` (see :func:`_read_eval_into`); ``names``: the
    ``samples/*.json`` members' names as a bytes array; a ``summaries.json`` larger than
    ``stream_bytes`` (decompressed) is streamed with ijson."""
    import numpy as np

    chunk: list[bytes] = []  # the member names of the last records (bytes)

    names.sort()  # in place: membership by binary search, a bool a member
    found = np.zeros(len(names), dtype=bool)

    def mark(found: np.ndarray = found) -> None:  # (bound here: the name is deleted after the scan)
        if chunk and len(names):
            named = np.array(chunk, dtype=np.bytes_)
            at = np.minimum(np.searchsorted(names, named), len(names) - 1)
            found[at[names[at] == named]] = True
        chunk.clear()

    def add(s: Any) -> None:
        r = _record_at(s, where)
        chunk.append(f"samples/{r.id}_epoch_{r.epoch}.json".encode("utf-8", "surrogatepass"))
        if len(chunk) >= 4096:
            mark()
        records.add(r)

    if "summaries.json" in infos:
        source = "summaries.json"
        info = infos["summaries.json"]
        if info.file_size > stream_bytes:
            _stream_summaries(zf, info, where, add)
        else:
            summaries = member("summaries.json")
            if not isinstance(summaries, list) or not all(isinstance(s, dict) for s in summaries):
                raise InputError(f"cannot read as an Inspect log ({source} is not a list of samples)", where)
            for s in summaries:
                add(s)
            del summaries
    else:
        source = "the journal summaries"
        # a part at a time (an error here ends the lean reading, whose caller then reads the
        # log the table way and reports it as read_eval_zip does: same checks, same order)
        for name in _journal(infos):
            part = member(name)
            if not isinstance(part, list):
                raise InputError(f"cannot read as an Inspect log ({name} is not a list)", where)
            if not all(isinstance(s, dict) for s in part):
                raise InputError(f"cannot read as an Inspect log ({source} is not a list of samples)", where)
            for s in part:
                add(s)
            del part
    mark()
    remaining = np.unique(names[~found])  # sample members no record names (usually none)
    del found  # (names stays sorted: distinct members counted below)
    members = {k: n for n in (b.decode("utf-8") for b in remaining.tolist()) if (k := _member_key(n)) is not None}
    unlisted: list[str] = []
    if members:  # keys of the records (rare: a member named otherwise than its summary, or unsummarised)
        seen = _collected_keys(records)
        unlisted = [n for k, n in members.items() if (label_bytes([k[0]])[0], k[1]) not in seen]
    if unlisted:
        rescan(unlisted)
    for name in sorted(unlisted):
        sample = member(name)
        if not isinstance(sample, dict):
            raise InputError(f"cannot read as an Inspect log ({name} is not a sample object)", where)
        records.add(_record_at(sample, where))
    return LogData(header=header, records=records, n_members=int((names[1:] != names[:-1]).sum()) + 1 if len(names) else 0, unlisted=len(unlisted),
                   summary_source=source)


def _collected_keys(records: Collector) -> set[tuple[bytes, int]]:
    """(label bytes of the id, epoch) of every record a lean :class:`Collector` holds."""
    if not records.lean:
        raise ValueError("only a lean Collector keeps ids as label bytes")
    records.flush()
    return {(bytes(i), int(e)) for b in records.batches for i, e in zip(b.items.tolist(), b.epochs.tolist(), strict=True)}
