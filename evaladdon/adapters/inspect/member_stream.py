"""A large ``summaries.json`` of an ``.eval`` streamed: the member decompressed a chunk at a time
within the bounds of :func:`~evaladdon.adapters.common.guard.read_member` (:class:`_MemberStream`)
and parsed by ijson's C backend a sample at a time (:func:`_stream_summaries`), for the lean
collector of :mod:`evaladdon.adapters.inspect.native` (memory: the collector's columns, not the log)."""

from __future__ import annotations

import zipfile
import zlib
from typing import Any, Callable

from evaladdon.adapters.common.guard import (
    BOM,
    MAX_MEMBER_BYTES,
    MAX_RATIO,
    ZIP_ZSTANDARD,
    UnsupportedMember,
    _check_growth,
)
from evaladdon.adapters.inspect.stream import LEAN_BUFFER, NotNative, _DepthCheckedFile, _Prefixed, restore_constants
from evaladdon.errors import InputError


class _MemberStream:
    """A zip member as a binary stream for ijson, decompressed a chunk at a time within the
    size and ratio bounds of :func:`~evaladdon.adapters.common.guard.read_member` (its CRC checked
    at the end; a leading BOM removed)."""

    def __init__(self, zf: Any, info: zipfile.ZipInfo, where: str) -> None:
        self.info, self.where, self.out, self.crc, self.first = info, where, 0, 0, True
        _check_growth(where, info.filename, info.file_size, info.compress_size, MAX_MEMBER_BYTES, MAX_RATIO)
        if info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            self.fh: Any = zf.open(info)  # checks the CRC itself at the end
            self.check_crc = False
        elif info.compress_type == ZIP_ZSTANDARD:
            try:
                import zstandard
            except ImportError:
                raise UnsupportedMember(f"{info.filename} is zstd-compressed and zstandard is not installed") from None
            from evaladdon.adapters.common.zipdir import Region

            # the compressed bytes a block at a time (a 200,000-sample summaries.json of real
            # texts is tens of MB compressed)
            self.fh = zstandard.ZstdDecompressor().stream_reader(Region(zf.fp, info), read_size=1 << 20,
                                                                 read_across_frames=True)
            self.check_crc = True
        else:
            raise UnsupportedMember(f"{info.filename} uses zip compression method {info.compress_type}")

    def read(self, n: int = -1) -> bytes:
        if n == 0:  # ijson's probe of the stream's type
            return b""
        data = self.fh.read(n if n > 0 else 2**20)
        self.out += len(data)
        _check_growth(self.where, self.info.filename, self.out, self.info.compress_size, MAX_MEMBER_BYTES, MAX_RATIO)
        if self.check_crc:
            self.crc = zlib.crc32(data, self.crc)
            if not data and self.crc != self.info.CRC:
                raise zipfile.BadZipFile(f"bad CRC-32 for {self.info.filename}")
        if self.first and data:
            self.first = False
            if data.startswith(BOM):
                data = data[len(BOM):]
        return data

    def close(self) -> None:
        self.fh.close()


def _stream_summaries(zf: Any, info: zipfile.ZipInfo, where: str, add: Callable[[Any], None]) -> None:
    """Each sample summary of a large ``summaries.json`` to ``add``, parsed by ijson's C backend
    a sample at a time (depth-scanned as it is read); what ``orjson`` would not parse either
    (a truncated array) ends the fast path (:class:`NotNative`)."""
    try:
        import ijson

        backend = ijson.get_backend("yajl2_c")
    except ImportError:
        raise NotNative("streaming summaries.json needs ijson with its C backend") from None
    stream = _MemberStream(zf, info, where)
    try:
        head = stream.read(1)
        while head and head in b" \t\r\n":
            head = stream.read(1)
        if head != b"[":
            raise InputError("cannot read as an Inspect log (summaries.json is not a list of samples)", where)
        checked = _DepthCheckedFile(_Prefixed(head, stream), where)
        for s in backend.items(checked, "item", use_float=True, buf_size=LEAN_BUFFER):
            if not isinstance(s, dict):
                raise InputError("cannot read as an Inspect log (summaries.json is not a list of samples)", where)
            add(restore_constants(s) if checked.constants else s)
    except ijson.common.JSONError as exc:
        raise NotNative(f"summaries.json the streaming parser does not read: {str(exc)[:80]}") from None
    finally:
        stream.close()
