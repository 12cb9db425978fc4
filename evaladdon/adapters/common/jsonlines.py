"""Fast, strict-enough parsing of JSON lines (and JSON arrays) with precise error places.

orjson parses several times faster than the standard library and takes bytes (no decode
pass); it rejects the ``NaN``/``Infinity`` literals that Python's ``json`` writes, so a line
it refuses is parsed again with ``json`` (which accepts them and yields float NaN/inf --
values, never code).  A line neither accepts is reported with its number.

Nesting: Python's ``json`` recurses once per level and dies with a ``RecursionError`` near
1,000 levels (orjson stops itself at 1,024).  Before any text reaches ``json`` its depth is
measured by :func:`json_depth` (a vectorised scan, no recursion) and a document nested deeper
than :data:`MAX_DEPTH` is refused in one line.  Text orjson accepted is at most 1,024 deep
and the readers never recurse into values, so the fast path needs no scan.
"""

from __future__ import annotations

import io
import json
import os
from itertools import chain, count
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

from evaladdon.errors import InputError

try:  # orjson is a dependency; the fallback keeps a broken install working, only slower
    import orjson

    _fast_loads: Callable[[Any], Any] = orjson.loads
    _FastError: type[Exception] = orjson.JSONDecodeError
except ImportError:  # pragma: no cover
    _fast_loads = json.loads  # type: ignore[assignment]
    _FastError = json.JSONDecodeError

from evaladdon.adapters.common.guard import MAX_DEPTH, DepthScanner  # the one depth scan of all readers


def json_depth(data: bytes) -> int:
    """The deepest nesting of ``[``/``{`` in JSON text, ignoring brackets inside strings
    (:class:`evaladdon.adapters.common.guard.DepthScanner`, a vectorised scan that never recurses)."""
    return DepthScanner().feed(data)


def check_depth(data: bytes, where: str, place: str = "") -> None:
    """Refuse ``data`` when it nests deeper than :data:`MAX_DEPTH` (before any recursive parser)."""
    depth = json_depth(data)
    if depth > MAX_DEPTH:
        raise InputError(f"{place}JSON nested {depth} levels deep (more than {MAX_DEPTH}); refusing to parse it", where)


def slow_loads(data: bytes, where: str, place: str = "") -> Any:
    """``json.loads`` (NaN/Infinity literals allowed) after the depth check; errors are one line."""
    check_depth(data, where, place)
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        if isinstance(err, json.JSONDecodeError):
            if place:
                raise InputError(f"{place}not valid JSON ({err.msg}); the file may be truncated", where) from None
            raise InputError(f"not valid JSON at line {err.lineno}, column {err.colno} ({err.msg}); "
                             "the file may be truncated", where) from None
        raise InputError(f"{place}not UTF-8 text", where) from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise InputError(f"{place}JSON nested too deeply", where) from None


def loads(data: bytes, where: str, place: str = "") -> Any:
    """orjson, else the checked slow path (see the module docstring)."""
    try:
        return _fast_loads(data)
    except _FastError:
        return slow_loads(data, where, place)


def _loads_line(line: bytes, lineno: int, where: str) -> Any:
    return loads(line, where, f"line {lineno}: ")


def iter_json_lines(path: Path, fh: BinaryIO | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) of each non-blank line, streamed: memory holds one line.
    ``fh``: ``path`` already open (binary, at its start); closed when the lines end.

    (Batches of lines parsed by one ``map`` were tried: no faster on 2 KB lines, and slower
    from ~128 KB a batch or when other processes share the CPU cache.)"""
    return iter(JsonLines(path, fh))


TYPED_MISSES = 64
"""Lines a typed decoder may refuse before a :class:`JsonLines` stops asking it (a file whose
lines do not fit the type: each refusal costs a second parse)."""


WHOLE_BYTES = 4 << 20
"""The most text after its first lines a :class:`JsonLines` types in one call (a larger file is
streamed, one line in memory at a time)."""


def _object_lines(text: bytes) -> int | None:
    """The number of lines of ``text`` (as iterating a file splits it: on ``\\n``) when every one
    starts with ``{`` (so none is blank: ``decode_lines`` skips blank lines), else None; one
    vectorised pass over the bytes."""
    import numpy as np

    b = np.frombuffer(text, dtype=np.uint8)
    if not b.size or b[0] != 123:
        return None
    after = np.flatnonzero(b[:-1] == 10) + 1  # the first byte of every line but the first
    return after.size + 1 if (b[after] == 123).all() else None


class JsonLines:
    """(line number, parsed object) of each non-blank line of a JSON-lines file, streamed (memory
    holds one line), as :func:`iter_json_lines` gives them; ``fh``: ``path`` already open (binary,
    at its start), closed when the lines end.

    :meth:`typed` hands the lines still to come first to a typed decoder (a ``msgspec`` decoder
    of a ``Struct`` naming only the fields a reader needs: the others are skipped in C, no object
    is built for them): a line it accepts comes as that ``Struct``, any other line -- one the
    type does not fit, malformed JSON, ``NaN`` literals, nesting past msgspec's limit -- is
    parsed as before (orjson, else the checked ``json`` path and its one-line errors), so the
    typed objects are an addition, never a different reading.  A line that is not ASCII is
    checked to be UTF-8 before the decoder sees it (msgspec does not check the strings it
    skips; orjson refuses the whole line).  :meth:`parsed` parses the last typed line as any
    other, for a reader that needs the whole record after all.  With ``decode_lines`` given too,
    the rest of a file of at most :data:`WHOLE_BYTES` is typed in one call when that reads it
    exactly as line by line (:meth:`_whole`); then memory holds that text, not one line."""

    __slots__ = ("_batch", "_decode", "_decode_lines", "_errors", "_fh", "_line", "_lineno", "_objs", "path")

    def __init__(self, path: Path, fh: BinaryIO | None = None) -> None:
        self.path, self._fh = path, fh
        self._decode: Callable[[bytes], Any] | None = None
        self._decode_lines: Callable[[bytes], list[Any]] | None = None
        self._errors: tuple[type[BaseException], ...] = ()
        self._line, self._lineno = b"", 0
        self._batch: tuple[int, bytes, list[bytes] | None] | None = None  # (first line number, text, its lines)
        self._objs: list[Any] | None = None  # the typed objects of _batch's text

    def typed(self, decode: Callable[[bytes], Any], errors: tuple[type[BaseException], ...],
              decode_lines: Callable[[bytes], list[Any]] | None = None) -> None:
        """Give the lines still to come to ``decode`` first (``errors``: what it raises on a line it
        refuses); ``decode_lines``: the same decoder over many lines at once (see :meth:`_whole`)."""
        self._decode, self._errors = decode, (*errors, ValueError, RecursionError)
        self._decode_lines = decode_lines

    def parsed(self, lineno: int | None = None) -> Any:
        """The last line given as a typed object (``lineno``: the typed object of that line),
        parsed as the lines :meth:`typed` refuses are."""
        if lineno is not None and self._batch is not None and lineno >= self._batch[0]:
            first, text, lines = self._batch
            if lines is None:  # split once, on the first record that needs its whole line (rare)
                lines = io.BytesIO(text).readlines()  # as iterating the file splits it: on b"\n", ends kept
                self._batch = (first, text, lines)
            return loads(lines[lineno - first], str(self.path), f"line {lineno}: ")
        return loads(self._line, str(self.path), f"line {self._lineno}: ")

    def whole_rest(self) -> list[Any] | None:
        """The typed objects of the rest of the file when :meth:`_whole` read it in one call (one a
        line, from the first typed line on: the one this iterator gave last, once it gave one),
        else None; for a reader that takes them as a list rather than one at a time."""
        return self._objs

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        with self._fh if self._fh is not None else self.path.open("rb") as fh:
            lines: Iterator[tuple[int, bytes]] | None = enumerate(fh, start=1)
            yield from self._parsed(lines, until_typed=True)  # type: ignore[arg-type]
            if self._decode is not None:
                if self._decode_lines is not None:
                    lines = self._whole(lines, fh)  # type: ignore[arg-type]
                    if self._batch is not None:  # here, not in a generator of its own: one frame a record
                        yield from zip(count(self._batch[0]), lines)  # type: ignore[arg-type]
                        return
                if lines is not None:
                    yield from self._typed(lines)

    def _whole(self, lines: Iterator[tuple[int, bytes]], fh: BinaryIO) -> Any:
        """The rest of a small file (at most :data:`WHOLE_BYTES`) typed in ONE call of
        ``decode_lines`` -- no Python work a line -- when that gives exactly what :meth:`_typed`
        would: the text is ASCII (no UTF-8 check due), every line starts with ``{`` (so no blank
        line is skipped and the line numbers hold), the decoder accepts every line and gives one
        object a line (so no line holds two values).  Then the objects (``_batch`` set: their
        first line number and the text, for :meth:`parsed`); otherwise the lines for
        :meth:`_typed` (as iterating the file gives them), or None when the file has ended."""
        head = next(lines, None)
        if head is None:
            return None
        lineno, line = head
        try:
            at = fh.tell() - len(line)  # where this line starts
            left = os.fstat(fh.fileno()).st_size - at
        except (OSError, ValueError, AttributeError):  # not a plain file: line by line
            left = WHOLE_BYTES + 1
        if left > WHOLE_BYTES:  # a large file stays streamed (memory holds one line)
            return chain(((lineno, line),), lines)
        fh.seek(at)  # read again with the rest, by one read of a known size (no bytes joined:
        text = fh.read(left)  # ~8x faster on a 200 KB file than the line + read())
        more = fh.read()  # (a file grown since the size was taken)
        if more:
            text += more
        n_lines = _object_lines(text) if text.isascii() else None
        if n_lines is not None:
            try:
                objs = self._decode_lines(text)  # type: ignore[misc]
            except self._errors:
                objs = None
            if objs is not None and len(objs) == n_lines:
                self._batch, self._objs = (lineno, text, None), objs
                return objs
        return enumerate(io.BytesIO(text), start=lineno)  # as iterating the file gives them

    def _parsed(self, lines: Iterator[tuple[int, bytes]], until_typed: bool = False) -> Iterator[tuple[int, Any]]:
        """orjson, else the checked ``json`` path; ``until_typed``: stop once a typed decoder is given."""
        where = str(self.path)
        fast, fast_error = _fast_loads, _FastError
        for lineno, line in lines:
            try:
                yield lineno, fast(line)
            except fast_error:
                if not line.isspace():
                    yield lineno, slow_loads(line, where, f"line {lineno}: ")
            if until_typed and self._decode is not None:  # given between two lines
                return

    def _typed(self, lines: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, Any]]:
        """Typed first, else as :meth:`_parsed` (all of it after :data:`TYPED_MISSES` refusals)."""
        decode, errors, misses = self._decode, self._errors, 0
        assert decode is not None
        for lineno, line in lines:
            if line.isascii() or _utf8(line):
                try:
                    obj = decode(line)
                except errors:
                    misses += 1
                    if misses >= TYPED_MISSES:
                        yield from self._parsed(chain(((lineno, line),), lines))
                        return
                else:
                    self._line, self._lineno = line, lineno
                    yield lineno, obj
                    continue
            yield from self._parsed(iter(((lineno, line),)))


def _utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def starts_with_array(path: Path) -> bool:
    with path.open("rb") as fh:
        head = fh.read(4096)
    return head.lstrip()[:1] == b"[" or head.startswith(b"\xef\xbb\xbf") and head[3:].lstrip()[:1] == b"["


def read_json_array(path: Path) -> list[Any]:
    """A file holding one JSON array (read whole: the legacy formats that do this are small)."""
    where = str(path)
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    data = loads(raw.lstrip(), where)
    if not isinstance(data, list):
        raise InputError("expected a JSON array", where)
    return data


def read_json_records(path: Path) -> list[Any]:
    """The records of a JSON-lines file, or of a JSON array written into one file."""
    if starts_with_array(path):
        return read_json_array(path)
    return [obj for _, obj in iter_json_lines(path)]
