"""Inspect JSON logs streamed without inspect-ai (ijson), and what the ``.eval`` reader shares.

- JSON logs (any file name): the top-level keys before ``samples`` through ijson's event
  stream, then each ``samples[*]`` built by ijson's C backend and cut to the fields used
  (transcripts, messages, output, attachments dropped at once) and, every few thousand
  samples, made columns (:class:`~evaladdon.adapters.inspect.rows.Collector`), so memory
  holds the largest single sample and the table's columns whatever the file size.
- shared with :mod:`evaladdon.adapters.inspect.native` (the ``.eval`` zips): a parsed sample or
  summary -> its record (:func:`record`), the header check (:func:`_header_of`), the parser of
  a member's bytes (:func:`_loads`), the byte streams ijson reads (depth-checked, prefixed).

``NaN``/``Infinity`` literals are read as Python's ``json`` reads them (:class:`_DepthCheckedFile`).
Anything else (log format versions other than 2 and 3) raises :class:`NotNative`, and the caller falls back to Inspect's own reader.  Records
come out in the shape of :mod:`evaladdon.adapters.inspect.rows`.
"""

from __future__ import annotations

import json
import math
import re
import secrets
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import orjson

from evaladdon.adapters.common.guard import (
    BOM,
    MAX_DEPTH,
    DepthScanner,
    check_depth,
)
from evaladdon.adapters.inspect.records import SampleRecord, make_record, score_fields
from evaladdon.adapters.inspect.rows import Collector, LogData
from evaladdon.adapters.tuning import DEFAULT, ReadTuning
from evaladdon.errors import InputError

NATIVE_VERSIONS = (2, 3)
"""Inspect log format versions read natively (1 is the 2024 layout; newer ones fall back)."""

_SAMPLE_FIELDS = ("id", "epoch", "scores", "metadata", "error", "limit", "target", "input")


class NotNative(Exception):
    """The fast path does not recognise this log; use Inspect's reader."""


def _loads(data: bytes, where: str, what: str) -> Any:
    """orjson; the stdlib parser only for what orjson refuses, after the depth scan.

    Text orjson accepts is at most 1,024 deep (it stops itself there) and nothing downstream
    recurses into values (see :func:`evaladdon.adapters.inspect.rows.build_table`), so the
    fast path needs no scan (the policy of :mod:`evaladdon.adapters.common.jsonlines`)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        # deeper than orjson goes, or NaN/Infinity as bare literals (pydantic's "constants"),
        # which orjson refuses and the stdlib parser reads once the depth is bounded
        check_depth(data, where, what)
        try:
            doc = json.loads(data)
        except ValueError as exc:
            raise InputError(f"cannot read as an Inspect log ({what} is not valid JSON: {exc})", where) from None
        if _SURROGATE_ESCAPE.search(data) is not None:
            _refuse_lone_surrogates(doc, where, what)
        return doc


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A ``\\uD800``-``\\uDFFF`` escape: how a lone surrogate gets into JSON text (raw UTF-8 cannot hold one)."""


def _refuse_lone_surrogates(doc: Any, where: str, what: str) -> None:
    """Refuse, in one line naming the file, a document the stdlib parser read with a lone
    surrogate in a string (an escape ``\\ud800`` not part of a pair, which orjson refuses):
    not Unicode text, so no table can hold it (pandas' pyarrow strings, Parquet, the reports)
    -- it would fail later, far from the file.  Pairs (``\\ud83d\\ude00``) are one character
    and pass.  Checked by encoding the document's text, only when it holds such an escape."""
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end].encode("utf-8", "backslashreplace").decode("ascii")
        raise InputError(f"cannot read as an Inspect log ({what} holds a lone surrogate {bad} in a string: "
                         "not Unicode text)", where) from None


def _limit_type(limit: Any) -> str | None:
    if limit is None:
        return None
    if isinstance(limit, dict):
        return str(limit.get("type"))
    return str(limit)


def record(sample: dict[str, Any]) -> SampleRecord:
    """A summary or full sample (as parsed JSON) -> the fields the table needs."""
    raw_scores = sample.get("scores")
    scores = None
    if isinstance(raw_scores, dict):
        scores = {}
        for name, sc in raw_scores.items():
            if not isinstance(sc, dict):
                raise InputError(f"cannot read as an Inspect log (score {str(name)[:40]!r} of sample "
                                 f"{str(sample.get('id'))[:40]!r} is not an object)")
            scores[str(name)] = score_fields(sc.get("value"), sc.get("answer"), sc.get("metadata"))
    elif raw_scores is not None:
        raise InputError(f"cannot read as an Inspect log (scores of sample {str(sample.get('id'))[:40]!r} "
                         "are not an object)")
    return make_record(sample.get("id"), sample.get("epoch"), scores, sample.get("metadata"),
                       bool(sample.get("error")), _limit_type(sample.get("limit")), sample.get("target"),
                       sample.get("input"))


def _record_at(sample: dict[str, Any], where: str) -> SampleRecord:
    try:
        return record(sample)
    except InputError as exc:
        raise InputError(exc.message, where) from None


def _header_of(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or not isinstance(raw.get("eval"), dict):
        raise NotNative("no eval spec in the header")
    version = raw.get("version")
    if version not in NATIVE_VERSIONS:
        raise NotNative(f"log format version {version!r}")
    return raw


LEAN_BUFFER = 1 << 18
"""Bytes ijson reads at a time for a lean :class:`Collector`: the depth scan of a chunk makes
temporaries several times its size (~10 MB for a megabyte), a quarter of that here."""


# ---------------------------------------------------------------------------- JSON logs

def _header_events(events: Iterator[tuple[str, str, Any]]) -> tuple[dict[str, Any], bool]:
    """Top-level keys before ``samples`` built from the event stream; whether samples follow."""
    header: dict[str, Any] = {}
    first = next(events, None)
    if first is None or first[1] != "start_map":
        raise NotNative("not a JSON object")
    for _prefix, event, key in events:  # at the top of the object: a key, then its value's events
        if event == "end_map":
            return header, False
        if key == "samples":
            return header, True
        value = _value_events(events)
        if key in ("version", "status", "eval", "results", "error"):
            header[str(key)] = value
    raise InputError("cannot read as an Inspect log (the JSON ends early)")


def _value_events(events: Iterator[tuple[str, str, Any]]) -> Any:
    """The next value of the event stream, built whole (its events consumed)."""
    import ijson

    builder = ijson.ObjectBuilder()
    depth = 0
    for _prefix, event, value in events:
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
        if depth == 0:
            return builder.value
    raise InputError("cannot read as an Inspect log (the JSON ends early)")


def _slim(sample: Any) -> dict[str, Any]:
    if not isinstance(sample, dict):
        raise InputError("cannot read as an Inspect log (a sample is not an object)")
    return {k: sample[k] for k in _SAMPLE_FIELDS if k in sample}


_NONCE = secrets.token_hex(8)
_CONSTANTS = {b"NaN": math.nan, b"Infinity": math.inf, b"-Infinity": -math.inf}
_SENTINEL = {lit: json.dumps(f"\x00evaladdon JSON constant {lit.decode()} {_NONCE}").encode() for lit in _CONSTANTS}
_VALUE_OF = {json.loads(text): _CONSTANTS[lit] for lit, text in _SENTINEL.items()}
_LITERAL = re.compile(rb"-?Infinity|NaN")


def _partial_literal(data: bytes) -> int:
    """How many bytes at the end of ``data`` could begin a ``NaN``/``Infinity``/``-Infinity``
    literal that the next read completes (0: none)."""
    for k in range(min(8, len(data)), 0, -1):
        tail = data[-k:]
        # (a literal starts after a delimiter, never after a letter or digit: the N ending NaN begins nothing)
        if any(len(lit) > k and lit.startswith(tail) for lit in _CONSTANTS) and (
                k == len(data) or not data[-k - 1:-k].isalnum()):
            return k
    return 0


def restore_constants(value: Any) -> Any:
    """``value`` with the strings :class:`_DepthCheckedFile` put for ``NaN``/``Infinity``
    literals made the floats they stand for (as Python's ``json`` reads them)."""
    if isinstance(value, str):
        return _VALUE_OF.get(value, value)
    if isinstance(value, dict):
        return {k: restore_constants(v) for k, v in value.items()}
    if isinstance(value, list):
        return [restore_constants(v) for v in value]
    return value


class _DepthCheckedFile:
    """A binary file whose bytes pass the depth scan as ijson reads them (one pass, bounded
    memory): nothing nested deeper than ``MAX_DEPTH`` reaches the table code.

    ``NaN``, ``Infinity`` and ``-Infinity`` outside strings (pydantic's JSON "constants",
    which Inspect writes for a NaN score or stderr; Python's ``json`` reads them, ijson's C
    backend does not) are handed to ijson as strings no log holds (a per-process nonce), which
    :func:`restore_constants` makes floats again (``constants`` says whether any was met), so
    such a log stays on the streaming (and spilled) path (issue 26, item 7).  Where a string
    starts and ends is the depth scan's (its real quotes of the chunk); a literal split across
    two reads is held back until the next."""

    def __init__(self, fh: Any, where: str) -> None:
        self.fh, self.where, self.scanner = fh, where, DepthScanner()
        self.carry = b""
        self.constants = False

    def read(self, n: int = -1) -> bytes:
        if n == 0:
            return b""
        while True:
            data = self.fh.read(n)
            at_end = not data or n < 0
            if self.carry:
                data, self.carry = self.carry + data, b""
            keep = 0 if at_end else _partial_literal(data)
            if keep:
                data, self.carry = data[:-keep], data[-keep:]
            if data or at_end:
                break
        if self.scanner.feed(data) > MAX_DEPTH:
            raise InputError(f"JSON nested more than {MAX_DEPTH} levels deep; refusing to parse it", self.where)
        if b"NaN" in data or b"Infinity" in data:  # (a C substring search: almost always false)
            data = self._constants(data)
        return data

    def _constants(self, data: bytes) -> bytes:
        quotes, inside = self.scanner.quotes, int(self.scanner.chunk_in_string)
        out, at = [], 0
        for m in _LITERAL.finditer(data):
            if (int(np.searchsorted(quotes, m.start())) + inside) % 2:
                continue  # in a string: text
            out += [data[at:m.start()], _SENTINEL[m.group()]]
            at = m.end()
        if not out:
            return data
        self.constants = True
        out.append(data[at:])
        return b"".join(out)


class _Prefixed:
    """``head`` then the rest of ``stream``."""

    def __init__(self, head: bytes, stream: Any) -> None:
        self.head, self.stream = head, stream

    def read(self, n: int = -1) -> bytes:
        if self.head and n != 0:
            head, self.head = self.head, b""
            return head + self.stream.read(max(n - len(head), 1) if n > 0 else -1)
        return self.stream.read(n)


def _add_samples(samples: Iterator[Any], checked: _DepthCheckedFile, records: Collector) -> None:
    for sample in samples:
        slim = _slim(sample)
        if checked.constants:  # (texts hold no constants: the input is left as it is)
            slim = {k: v if k == "input" else restore_constants(v) for k, v in slim.items()}
        records.add(record(slim))


def read_json_stream(path: Path, cluster: str | None = None, records: Collector | None = None, *,
                     tuning: ReadTuning | None = None, fh: Any = None) -> LogData:
    """A JSON log streamed with ijson's C backend (see module docstring); its records go
    into a :class:`~evaladdon.adapters.inspect.rows.Collector` (for ``cluster``, batches of
    ``tuning.batch_size``) as they are read, so memory does not grow by a record per sample.
    ``fh``: ``path`` already open (binary; left open)."""
    try:
        import ijson

        backend = ijson.get_backend("yajl2_c")
    except ImportError:
        raise NotNative("streaming JSON logs needs the ijson package with its C backend") from None
    where = str(path)
    try:
        with path.open("rb") if fh is None else nullcontext(fh) as fh:
            fh.seek(0)
            skip = len(BOM) if fh.read(len(BOM)) == BOM else 0
            fh.seek(skip)
            head_file = _DepthCheckedFile(fh, where)
            header, has_samples = _header_events(iter(backend.parse(head_file, use_float=True)))
            header = _header_of(restore_constants(header) if head_file.constants else header, where)
            if records is None:
                records = Collector(cluster, batch_size=(tuning or DEFAULT).batch_size)
            if has_samples:
                fh.seek(skip)
                checked = _DepthCheckedFile(fh, where)
                buf = LEAN_BUFFER if records.lean else 2**20
                _add_samples(backend.items(checked, "samples.item", use_float=True, buf_size=buf), checked, records)
    except ijson.common.IncompleteJSONError as exc:
        text = " ".join(str(exc).split())
        if "invalid char" in text or "lexical error" in text:
            raise NotNative(f"JSON the streaming parser does not read: {text[:80]}") from None
        raise InputError(f"cannot read as an Inspect log (IncompleteJSONError: {text[:200]})", where) from None
    except ijson.common.JSONError as exc:
        raise InputError(f"cannot read as an Inspect log ({type(exc).__name__}: {str(exc)[:200]})", where) from None
    except InputError as exc:
        if exc.where is None:
            raise InputError(exc.message, where) from None
        raise
    return LogData(header=header, records=records, n_members=None, unlisted=0, summary_source="samples",
                   samples_logged=has_samples)
