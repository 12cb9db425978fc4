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

import json
from itertools import chain
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
    other, for a reader that needs the whole record after all."""

    __slots__ = ("_decode", "_errors", "_fh", "_line", "_lineno", "path")

    def __init__(self, path: Path, fh: BinaryIO | None = None) -> None:
        self.path, self._fh = path, fh
        self._decode: Callable[[bytes], Any] | None = None
        self._errors: tuple[type[BaseException], ...] = ()
        self._line, self._lineno = b"", 0

    def typed(self, decode: Callable[[bytes], Any], errors: tuple[type[BaseException], ...]) -> None:
        """Give the lines still to come to ``decode`` first (``errors``: what it raises on a line it refuses)."""
        self._decode, self._errors = decode, (*errors, ValueError, RecursionError)

    def parsed(self) -> Any:
        """The last line given as a typed object, parsed as the lines :meth:`typed` refuses are."""
        return loads(self._line, str(self.path), f"line {self._lineno}: ")

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        with self._fh if self._fh is not None else self.path.open("rb") as fh:
            lines = enumerate(fh, start=1)
            yield from self._parsed(lines, until_typed=True)
            if self._decode is not None:
                yield from self._typed(lines)

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
