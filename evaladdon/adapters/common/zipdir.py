"""A zip archive's central directory without a ``ZipInfo`` per member (for large ``.eval`` logs).

``zipfile.ZipFile`` builds a ``ZipInfo`` object for every member when it opens an archive:
~640 bytes each, so a 200,000-sample ``.eval`` (a ``samples/*.json`` member per sample)
costs ~130 MB before anything is read.  The lean summarize (:mod:`evaladdon.routes`) reads
only ``header.json``, ``summaries.json`` and the journal, and needs of the sample members
only their names; :func:`scan` walks the central directory once and keeps a ``ZipInfo`` for the other members and the sample members'
names as one fixed-width bytes array; the directory is read a megabyte at a time.  :class:`Archive` opens the kept members the way
``zipfile`` does (local header, stored or deflate, CRC checked at the end) and offers
``fp``, so :func:`evaladdon.adapters.common.guard.read_member` reads them (zstd included).

Written here because the standard library has no way to list an archive lazily; the
end-of-directory records (zip64 included) are found by ``zipfile._EndRecData``, the layout
of a directory entry is ``zipfile.structCentralDir``.  Anything unusual (encryption, a
multi-disk archive, a non-UTF-8 non-ASCII name) raises :class:`Unusual`; the caller then
reads the archive with ``zipfile``.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from typing import BinaryIO

import numpy as np

_SAMPLES = b"samples/"
_CHUNK = 4096
_BLOCK = 1 << 20
_ENTRY = struct.Struct(zipfile.structCentralDir)
_MAX_EXTRACT_VERSION = 63  # zipfile.MAX_EXTRACT_VERSION: a member needing more is refused there


_LOCAL_SIZE: int = zipfile.sizeFileHeader  # type: ignore[attr-defined]  # (zipfile's own layout of a local header)
_LOCAL_SIGNATURE: bytes = zipfile.stringFileHeader  # type: ignore[attr-defined]


class Unusual(Exception):
    """An archive this scanner leaves to ``zipfile``."""


def _zip64(extra: bytes, usize: int, csize: int, offset: int) -> tuple[int, int, int]:
    """Sizes and offset from a zip64 extra field (those stored as 0xFFFFFFFF), as ``ZipInfo._decodeExtra``."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack_from("<HH", extra, pos)
        if tag == 1:
            values = list(struct.unpack_from(f"<{size // 8}Q", extra, pos + 4))
            if usize == 0xFFFFFFFF:
                usize = values.pop(0)
            if csize == 0xFFFFFFFF:
                csize = values.pop(0)
            if offset == 0xFFFFFFFF:
                offset = values.pop(0)
            return usize, csize, offset
        pos += 4 + size
    raise Unusual("a zip64 size without its extra field")


# long: one pass over the zip's central directory, its per-entry work inline (no call per member)
def scan(fh: BinaryIO, keep: set[bytes] = frozenset(), strict: bool = False  # type: ignore[assignment]
         ) -> tuple[dict[str, zipfile.ZipInfo], np.ndarray]:
    """``ZipInfo`` of every member not under ``samples/`` and of the sample members named in
    ``keep`` (a re-written name: the last wins, as in ``zipfile``), and the names of the
    ``samples/*.json`` members (UTF-8 bytes, one element each, duplicates kept).

    ``strict``: also raise :class:`Unusual` where ``zipfile.ZipFile`` would refuse the
    directory or read it otherwise (a member needing a newer zip version, any extra field, a
    NUL in a name, a directory before the start of the file), so that a caller can fall back
    to ``zipfile`` for its wording of what is wrong (the table path of ``.eval`` logs)."""
    end = zipfile._EndRecData(fh)  # noqa: SLF001 - the stdlib's own EOCD/zip64 locator
    if end is None:
        raise zipfile.BadZipFile("File is not a zip file")
    if end[zipfile._ECD_DISK_NUMBER] != end[zipfile._ECD_DISK_START]:  # noqa: SLF001
        raise Unusual("a multi-disk archive")
    size_cd, offset_cd = end[zipfile._ECD_SIZE], end[zipfile._ECD_OFFSET]  # noqa: SLF001
    concat = end[zipfile._ECD_LOCATION] - size_cd - offset_cd  # noqa: SLF001 - data prepended to the archive
    if end[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:  # noqa: SLF001
        concat -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator
    if strict and offset_cd + concat < 0:
        raise Unusual("a central directory before the start of the file")
    fh.seek(offset_cd + concat)
    infos: dict[str, zipfile.ZipInfo] = {}
    names: list[np.ndarray] = []
    chunk: list[bytes] = []
    head = zipfile.sizeCentralDir
    data, pos, unread = b"", 0, size_cd  # the directory read a megabyte at a time
    if size_cd <= _BLOCK and end[zipfile._ECD_ENTRIES_TOTAL] >= 32:  # noqa: SLF001 - (most logs) the whole
        # directory at once, its entries found in bulk (a few entries: one by one costs less)
        data = fh.read(size_cd)
        unread -= len(data)
        got = _plain_directory(data, keep, strict, concat) if not unread else None
        if got is not None:
            return got

    def have(k: int) -> None:
        nonlocal data, pos, unread
        if pos + k <= len(data):
            return
        more = fh.read(min(unread, max(k, _BLOCK)))
        unread -= len(more)
        data, pos = data[pos:] + more, 0
        if len(data) < k:
            raise zipfile.BadZipFile("truncated central directory")

    entry = _ENTRY.unpack_from
    while unread or pos < len(data):
        if pos + head > len(data):
            have(head)
        d = entry(data, pos)
        if d[0] != zipfile.stringCentralDir:
            raise zipfile.BadZipFile("Bad magic number for central directory")
        flags, n_name, n_extra = d[5], d[12], d[13]
        size = head + n_name + n_extra + d[14]
        if pos + size > len(data):
            have(size)
        start = pos + head
        raw = data[start:start + n_name]
        pos += size
        if flags & 0x1:
            raise Unusual("an encrypted member")
        if not flags & 0x800 and not raw.isascii():
            raise Unusual("a member name in a legacy code page")
        if strict and (n_extra or d[3] > _MAX_EXTRACT_VERSION or b"\x00" in raw):
            raise Unusual("an extra field, a newer zip version or a NUL in a name")
        if raw.startswith(_SAMPLES) and raw.endswith(b".json") and raw not in keep:  # most members
            chunk.append(raw)
            if len(chunk) >= _CHUNK:
                names.append(np.array(chunk, dtype=np.bytes_))
                chunk = []
            continue
        method, crc, csize, usize, offset = d[6], d[9], d[10], d[11], d[18]
        extra = data[start + n_name:start + n_name + n_extra]
        if 0xFFFFFFFF in (usize, csize, offset):
            usize, csize, offset = _zip64(extra, usize, csize, offset)
        info = zipfile.ZipInfo(raw.decode("utf-8"))
        info.flag_bits, info.compress_type, info.CRC = flags, method, crc
        info.compress_size, info.file_size, info.header_offset = csize, usize, offset + concat
        infos[info.filename] = info
    if chunk:
        names.append(np.array(chunk, dtype=np.bytes_))
    return infos, (np.concatenate(names) if len(names) > 1 else names[0] if names else np.empty(0, dtype="S1"))


def _plain_directory(data: bytes, keep: set[bytes], strict: bool, concat: int
                     ) -> tuple[dict[str, zipfile.ZipInfo], np.ndarray] | None:
    """:func:`scan` of a whole directory in memory when it is plain (every signature found
    at once chains entry to entry, no encryption, ASCII names without NUL, and with
    ``strict`` no extra field or newer zip version): the sample members' fields are read as
    arrays, not entry by entry (~4x faster on a small log).  ``None``: not plain, scan entry
    by entry."""
    raw = np.frombuffer(data, dtype=np.uint8)
    sig = zipfile.stringCentralDir  # where the 4 signature bytes occur (a regex search costs ~2x)
    starts = np.flatnonzero((raw[:-3] == sig[0]) & (raw[1:-2] == sig[1]) & (raw[2:-1] == sig[2]) & (raw[3:] == sig[3]))
    if not len(starts) or starts[0] != 0:
        return None
    if int(starts[-1]) + zipfile.sizeCentralDir > len(raw):
        return None

    def u16(at: int) -> np.ndarray:
        return raw[starts + at].astype(np.int64) | raw[starts + at + 1].astype(np.int64) << 8

    n_name, n_extra, n_comment = u16(28), u16(30), u16(32)
    ends = starts + zipfile.sizeCentralDir + n_name + n_extra + n_comment
    if not (np.array_equal(ends[:-1], starts[1:]) and int(ends[-1]) == len(raw)):
        return None  # a signature inside a name or field: entry by entry
    if (u16(8) & 0x1).any() or (strict and (n_extra.any() or (raw[starts + 6] > _MAX_EXTRACT_VERSION).any())):
        return None
    first = starts + zipfile.sizeCentralDir
    names = [data[a:b] for a, b in zip(first.tolist(), (first + n_name).tolist(), strict=True)]
    joined = b"".join(names)
    if not joined.isascii() or b"\x00" in joined:
        return None
    is_sample = [n.startswith(_SAMPLES) and n.endswith(b".json") and n not in keep for n in names]
    infos: dict[str, zipfile.ZipInfo] = {}
    for at, name, sample in zip(starts.tolist(), names, is_sample, strict=True):
        if sample:
            continue
        d = _ENTRY.unpack_from(data, at)
        flags, method, crc, csize, usize, offset = d[5], d[6], d[9], d[10], d[11], d[18]
        if 0xFFFFFFFF in (usize, csize, offset):
            usize, csize, offset = _zip64(data[at + zipfile.sizeCentralDir + d[12]:
                                               at + zipfile.sizeCentralDir + d[12] + d[13]], usize, csize, offset)
        info = zipfile.ZipInfo(name.decode("utf-8"))
        info.flag_bits, info.compress_type, info.CRC = flags, method, crc
        info.compress_size, info.file_size, info.header_offset = csize, usize, offset + concat
        infos[info.filename] = info
    samples = [n for n, sample in zip(names, is_sample, strict=True) if sample]
    return infos, (np.array(samples, dtype=np.bytes_) if samples else np.empty(0, dtype="S1"))


def data_offset(fh: BinaryIO, info: zipfile.ZipInfo) -> int:
    """Where a member's (compressed) bytes start: after its local file header, whose name and
    extra field lengths may differ from the central directory's."""
    fh.seek(info.header_offset)
    local = fh.read(zipfile.sizeFileHeader)
    if len(local) != zipfile.sizeFileHeader or local[:4] != zipfile.stringFileHeader:
        raise zipfile.BadZipFile("bad local file header")
    n_name, n_extra = struct.unpack_from("<HH", local, 26)
    return info.header_offset + zipfile.sizeFileHeader + n_name + n_extra


def local_name_matches(fh: BinaryIO, info: zipfile.ZipInfo) -> bool:
    """Whether a member's local header names it as the directory does (``zipfile`` refuses a
    member whose names differ, and one with patched data or encryption flagged there)."""
    fh.seek(info.header_offset)
    local = fh.read(zipfile.sizeFileHeader)
    if len(local) != zipfile.sizeFileHeader or local[:4] != zipfile.stringFileHeader:
        return False
    flags, = struct.unpack_from("<H", local, 6)
    n_name, = struct.unpack_from("<H", local, 26)
    if (flags | info.flag_bits) & 0x61:  # encrypted, compressed patched data, strong encryption
        return False
    return fh.read(n_name) == info.filename.encode("utf-8" if info.flag_bits & 0x800 else "ascii")


def seek_checked_data(fh: BinaryIO, info: zipfile.ZipInfo) -> None:
    """``fh`` at a member's (compressed) bytes, its local header read once: what
    :func:`local_name_matches` and :func:`data_offset` check (the signature, no encryption
    or patched data flagged, the directory's name), else :class:`Unusual`, in one seek and
    one read when the local header has no extra field."""
    name = info.filename.encode("utf-8" if info.flag_bits & 0x800 else "ascii")
    fh.seek(info.header_offset)
    local = fh.read(_LOCAL_SIZE + len(name))
    if len(local) < _LOCAL_SIZE or local[:4] != _LOCAL_SIGNATURE:
        raise Unusual(f"{info.filename}: no local header")
    flags, = struct.unpack_from("<H", local, 6)
    n_name, n_extra = struct.unpack_from("<HH", local, 26)
    if (flags | info.flag_bits) & 0x61 or n_name != len(name) or local[_LOCAL_SIZE:] != name:
        raise Unusual(f"{info.filename}: its local header differs")
    if n_extra:
        fh.seek(info.header_offset + _LOCAL_SIZE + n_name + n_extra)


class _Member:
    """A stored or deflated member's bytes (``zipfile.ZipExtFile``'s job, for :class:`Archive`)."""

    def __init__(self, fh: BinaryIO, info: zipfile.ZipInfo) -> None:
        fh.seek(data_offset(fh, info))
        self.fh, self.info, self.left, self.crc, self.out = fh, info, info.compress_size, 0, 0
        self.inflate = zlib.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None

    def read(self, n: int = -1) -> bytes:
        want = n if n is not None and n > 0 else 1 << 30
        while True:
            if self.inflate is None:
                data = self.fh.read(min(self.left, want)) if self.left else b""
                if self.left and not data:
                    raise EOFError("truncated zip member")
                self.left -= len(data)
                end = self.left == 0
            else:
                tail = self.inflate.unconsumed_tail
                if not tail and self.left:
                    tail = self.fh.read(min(self.left, 1 << 20))
                    if not tail:
                        raise EOFError("truncated zip member")
                    self.left -= len(tail)
                data = self.inflate.decompress(tail, want) if tail else b""
                end = not self.left and not self.inflate.unconsumed_tail
            self.out += len(data)
            self.crc = zlib.crc32(data, self.crc)
            if data or end:
                break
        if not data and (self.out != self.info.file_size or self.crc != self.info.CRC):
            raise zipfile.BadZipFile(f"Bad CRC-32 for file {self.info.filename!r}")
        return data

    def __enter__(self) -> _Member:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        return None


class Region:
    """The compressed bytes of a member as a bounded stream (for zstd members: the
    decompressor reads them a block at a time instead of all at once)."""

    def __init__(self, fh: BinaryIO, info: zipfile.ZipInfo) -> None:
        self.fh, self.at = fh, data_offset(fh, info)
        self.left = info.compress_size

    def read(self, n: int = -1) -> bytes:
        n = self.left if n is None or n < 0 else min(n, self.left)
        if n == 0:
            return b""
        self.fh.seek(self.at)
        got = self.fh.read(n)
        if not got:
            raise EOFError("truncated zip member")
        self.at += len(got)
        self.left -= len(got)
        return got


class Archive:
    """The members :func:`scan` kept, opened as ``zipfile.ZipFile.open`` would (``fp`` is the file)."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fp = fh

    def open(self, info: zipfile.ZipInfo) -> _Member:
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise NotImplementedError(f"compression method {info.compress_type}")
        return _Member(self.fp, info)
