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
    where = str(path)
    fast, fast_error = _fast_loads, _FastError
    with fh if fh is not None else path.open("rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            try:
                yield lineno, fast(line)
            except fast_error:
                if line.isspace():
                    continue
                yield lineno, slow_loads(line, where, f"line {lineno}: ")


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
