"""Limits on what a log may make the readers do: JSON nesting depth, decompressed size, what is read at all.

Depth and size are checked before any recursive parser (orjson, the stdlib ``json``, pydantic inside
inspect_ai) sees a document, and each refusal is one line naming the file (``InputError``,
exit 2 in the CLI).

- **Depth** (:func:`check_depth`, :func:`check_file_depth`): a vectorised byte scan of
  bracket depth outside JSON strings.  Written here because no JSON library offers a
  depth check without parsing (orjson stops at 1,024 levels on its own; ``json`` and
  inspect_ai's streaming header reader grow memory with the square of the depth).
- **Regular files** (:func:`check_regular`): a FIFO, a device or a socket named as an input is
  refused before it is opened (``/dev/zero`` or a pipe would be read forever).
- **Decompressed size** (:func:`read_member`): a zip member is read in bounded chunks
  (deflate through ``zipfile``; zstd, method 93, which Inspect writes by default and the
  stdlib ``zipfile`` of Python < 3.14 cannot open, through ``zstandard``), refusing past
  :data:`MAX_MEMBER_BYTES` or past :data:`MAX_RATIO` times the compressed size once the
  output exceeds :data:`RATIO_FLOOR` bytes.
"""

from __future__ import annotations

import os
import stat
import struct
import zipfile
from pathlib import Path
from typing import BinaryIO

import numpy as np

from evaladdon.errors import InputError

MAX_DEPTH = 512
"""Deepest nesting of JSON arrays/objects accepted (Inspect logs nest ~10-30 levels)."""

MAX_MEMBER_BYTES = 4 * 2**30
"""Largest decompressed zip member read (a 20,000-sample ``summaries.json`` is ~40 MB)."""

MAX_RATIO = 200
"""Largest decompression ratio accepted once a member's output passes :data:`RATIO_FLOOR`
(JSON compresses ~5-30x; deflate bombs reach ~1,000x)."""

RATIO_FLOOR = 64 * 2**20

BOM = b"\xef\xbb\xbf"
_CHUNK = 8 * 2**20
ZIP_ZSTANDARD = 93


class DepthScanner:
    """Streaming maximum-depth scan of JSON bytes, string- and escape-aware.

    State carried between chunks: current depth, whether inside a string, and the
    number of backslashes that ended the previous chunk.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.max_depth = 0
        self.in_string = False
        self.trailing_backslashes = 0
        self.chunk_in_string = False  # in a string at the start of the last chunk fed
        self.quotes = np.empty(0, dtype=np.int64)  # positions of the last chunk's real (unescaped) quotes

    def feed(self, data: bytes | memoryview) -> int:
        b = np.frombuffer(data, dtype=np.uint8)
        if len(b) == 0:
            return self.max_depth
        self.chunk_in_string = self.in_string
        quotes = self._real_quotes(b, data)
        brackets, opening = _brackets(b)
        if len(brackets):
            # a bracket is outside strings when an even number of real quotes precede it
            before = np.searchsorted(quotes, brackets) + int(self.in_string)
            outside = before % 2 == 0
            if outside.any():
                step = np.where(opening[outside], 1, -1)
                depth = self.depth + np.cumsum(step)
                self.max_depth = max(self.max_depth, int(depth.max()))
                self.depth = int(depth[-1])
        self.quotes = quotes  # the chunk's real quotes (what else reads it asks where its strings are)
        self.in_string = (len(quotes) + int(self.in_string)) % 2 == 1
        self._carry_backslashes(b)
        return self.max_depth

    def _real_quotes(self, b: np.ndarray, data: bytes | memoryview) -> np.ndarray:
        """Positions of the quotes in ``b`` that are not escaped by a backslash."""
        quotes = np.flatnonzero(b == 34)
        if not len(quotes):
            return quotes
        # a quote is escaped when an odd run of backslashes precedes it; only quotes right
        # after a backslash (or at the chunk's start) can be, and their runs are short, so
        # extend those runs one byte at a time
        if isinstance(data, bytes) and b'\\"' not in data:  # a C substring search: none escaped
            cand = np.empty(0, dtype=np.int64)
        else:
            cand = np.flatnonzero(b[np.maximum(quotes - 1, 0)] == 92)  # (a quote at 0 sees itself)
        if quotes[0] == 0:
            cand = np.concatenate(([0], cand))
        if not len(cand):
            return quotes
        run = np.zeros(len(cand), dtype=np.int64)
        active = np.arange(len(cand))
        k = 1
        while len(active):
            pos = quotes[cand[active]] - k
            inside = pos >= 0
            run[active[~inside]] += self.trailing_backslashes  # the run began in the last chunk
            active, pos = active[inside], pos[inside]
            hit = b[pos] == 92
            run[active[hit]] += 1
            active = active[hit]
            k += 1
        return np.delete(quotes, cand[run % 2 == 1])

    def _carry_backslashes(self, b: np.ndarray) -> None:
        n = len(b)
        if b[n - 1] != 92:
            self.trailing_backslashes = 0
        else:
            first_plain_from_end = int(np.argmax(b[::-1] != 92))
            if b[n - 1 - first_plain_from_end] == 92:  # the whole chunk is backslashes
                self.trailing_backslashes += n
            else:
                self.trailing_backslashes = first_plain_from_end


def _brackets(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``[ ] { }`` in ``b`` and whether each opens."""
    # [ ] { } are exactly the bytes with (b & 0xD9) == 0x59 that are not Y _ y DEL:
    # two passes over the chunk instead of seven, then a test on the candidates
    cand = np.flatnonzero((b & 0xD9) == 0x59)
    kind = b[cand]
    opening = (kind == 91) | (kind == 123)
    is_bracket = opening | (kind == 93) | (kind == 125)
    return cand[is_bracket], opening[is_bracket]


class LinesDepthScanner(DepthScanner):
    """:class:`DepthScanner` for JSON lines: every line is its own document, so a newline
    starts again at depth 0 outside any string (JSON text has no raw newline inside a
    string).  Needed where a parser reads lines in parallel blocks (``pyarrow.json``): a
    broken line (an odd quote, stray closing brackets) must not hide a deep line after it
    from the scan, as it would in one running count over the file."""

    def feed(self, data: bytes | memoryview) -> int:
        b = np.frombuffer(data, dtype=np.uint8)
        newlines = np.flatnonzero(b == 10)
        if not len(newlines):
            return super().feed(data)
        quotes = self._real_quotes(b, data)
        brackets, opening = _brackets(b)
        # quotes before the start of each line of the chunk (line 0 began in an earlier chunk)
        quotes_before_line = np.concatenate(([0], np.searchsorted(quotes, newlines)))
        last_depth = 0
        if len(brackets):
            line = np.searchsorted(newlines, brackets)
            before = np.searchsorted(quotes, brackets) - quotes_before_line[line] + (line == 0) * int(self.in_string)
            outside = before % 2 == 0
            line = line[outside]
            running = np.concatenate(([0], np.cumsum(np.where(opening[outside], 1, -1))))
            # depth within its own line: the running count less its value where the line began
            depth = running[1:] - running[np.searchsorted(line, line)] + (line == 0) * self.depth
            if len(depth):
                self.max_depth = max(self.max_depth, int(depth.max()))
                last_depth = int(depth[-1]) if line[-1] == len(newlines) else 0
        self.depth = last_depth
        self.in_string = (len(quotes) - int(quotes_before_line[-1])) % 2 == 1
        self._carry_backslashes(b)
        return self.max_depth


def check_depth(data: bytes | memoryview, where: str, what: str = "the document", limit: int = MAX_DEPTH) -> None:
    """Refuse ``data`` when its JSON nesting is deeper than ``limit``."""
    scanner = DepthScanner()
    view = memoryview(data)
    for start in range(0, len(view), _CHUNK):
        if scanner.feed(view[start:start + _CHUNK]) > limit:
            raise InputError(f"{what} is nested more than {limit} levels deep; refusing to parse it", where)


def check_file_depth(path: Path, limit: int = MAX_DEPTH, lines: bool = False) -> None:
    """:func:`check_depth` over a file, in bounded chunks (``lines``: each line its own document,
    :func:`check_lines_depth`)."""
    if lines:
        return check_lines_depth(path, limit)
    scanner = DepthScanner()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            if scanner.feed(chunk) > limit:
                raise InputError(f"JSON nested more than {limit} levels deep; refusing to parse it", str(path))
    return None


def _most_openings(chunk: bytes, cut: int, carried: int) -> int:
    """The most ``[`` and ``{`` on one of the lines ending in ``chunk[:cut]`` (the first line
    counted from ``carried``, its depth where it began)."""
    b = np.frombuffer(chunk, dtype=np.uint8, count=cut)
    opens = np.flatnonzero((b & 0xDF) == 0x5B)  # exactly [ and {
    if not len(opens):
        return carried
    per_line = np.bincount(np.searchsorted(np.flatnonzero(b == 10), opens))
    return max(int(per_line.max()), int(per_line[0]) + carried)


def check_lines_depth(path: Path, limit: int = MAX_DEPTH, chunk_size: int = _CHUNK) -> None:
    """Refuse a JSON-lines file with a line nested deeper than ``limit`` (:class:`LinesDepthScanner`).

    A line nests no deeper than its count of ``[`` and ``{``: where no line ending in a chunk
    has more than ``limit`` of them (the usual case), only the chunk's last, unfinished line is
    scanned (half the time of scanning every byte, which costs about what pyarrow's parse of
    the file costs)."""
    scanner = LinesDepthScanner()
    with path.open("rb") as fh:
        while chunk := fh.read(chunk_size):
            cut = chunk.rfind(b"\n") + 1
            if cut and _most_openings(chunk, cut, scanner.depth) <= limit:
                scanner.depth, scanner.in_string, scanner.trailing_backslashes = 0, False, 0
                chunk = chunk[cut:]
            if scanner.feed(chunk) > limit:
                raise InputError(f"JSON nested more than {limit} levels deep; refusing to parse it", str(path))


_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def not_regular(path: Path) -> str | None:
    """Why ``path`` (links followed) is no regular file to read -- ``"a FIFO (named pipe)"``, ``"a
    character device"``, ... -- or ``None`` for a regular file, a folder, or a path that is not
    there (those are told apart where the inputs are resolved)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def check_regular(path: Path) -> None:
    """Refuse, in one line, an input that is a FIFO, a device or a socket: reading ``/dev/zero``
    or a pipe nobody writes to never ends (checked by ``stat`` before anything opens it)."""
    what = not_regular(path)
    if what is not None:
        raise InputError(f"is {what}, not a regular file; refusing to read it", str(path))


def strip_bom(data: bytes) -> bytes:
    return data[len(BOM):] if data.startswith(BOM) else data


class UnsupportedMember(Exception):
    """A zip member compressed with a method this module does not read (fall back)."""


def _too_big(path: str, name: str, why: str) -> InputError:
    return InputError(f"zip member {name!r} {why}; refusing to decompress it (a decompression bomb?)", path)


def _check_growth(path: str, name: str, out: int, compressed: int, max_bytes: int, max_ratio: float) -> None:
    if out > max_bytes:
        raise _too_big(path, name, f"decompresses to more than {max_bytes / 2**20:.0f} MiB")
    if out > RATIO_FLOOR and out > max_ratio * max(compressed, 1):
        raise _too_big(path, name, f"decompresses more than {max_ratio:.0f}x its compressed size")


def _raw_stream(fh: BinaryIO, info: zipfile.ZipInfo) -> bytes:
    """The compressed bytes of a member (after its local header)."""
    fh.seek(info.header_offset)
    head = fh.read(30)
    if len(head) != 30 or head[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile("bad local file header")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    fh.seek(info.header_offset + 30 + name_len + extra_len)
    return fh.read(info.compress_size)


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: str, max_bytes: int = MAX_MEMBER_BYTES,
                max_ratio: float = MAX_RATIO) -> bytes:
    """A member's bytes, decompressed within the size and ratio bounds (BOM removed)."""
    name = info.filename
    _check_growth(path, name, info.file_size, info.compress_size, max_bytes, max_ratio)  # as declared
    parts: list[bytes] = []
    out = 0
    if info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        # ZipExtFile stops at the declared size and checks the CRC at the end
        with zf.open(info) as fh:
            while chunk := fh.read(_CHUNK):
                out += len(chunk)
                _check_growth(path, name, out, info.compress_size, max_bytes, max_ratio)
                parts.append(chunk)
    elif info.compress_type == ZIP_ZSTANDARD:
        try:
            import zstandard
        except ImportError:
            raise UnsupportedMember(f"{name} is zstd-compressed and the zstandard package is not installed") from None
        fp = zf.fp
        if fp is None:  # pragma: no cover - closed archive
            raise UnsupportedMember(f"{name}: archive closed")
        raw = _raw_stream(fp, info)  # type: ignore[arg-type]
        # Inspect writes multi-frame zstd members; stream_reader reads across frames
        with zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True) as reader:
            while chunk := reader.read(_CHUNK):
                out += len(chunk)
                _check_growth(path, name, out, info.compress_size, max_bytes, max_ratio)
                parts.append(chunk)
        data = b"".join(parts)
        if zipfile.crc32(data) != info.CRC:
            raise zipfile.BadZipFile(f"bad CRC-32 for {name}")
        return strip_bom(data)
    else:
        raise UnsupportedMember(f"{name} uses zip compression method {info.compress_type}")
    return strip_bom(b"".join(parts))
