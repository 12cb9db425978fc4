"""Inspect JSON logs streamed without inspect-ai (ijson), and what the ``.eval`` reader shares.

- JSON logs (any file name): the top-level keys before ``samples`` through ijson's event
  stream, then each ``samples[*]`` built by ijson's C backend and cut to the fields used
  (transcripts, messages, output, attachments dropped at once) and, every few thousand
  samples, made columns (:class:`~evaladdon.adapters.inspect.rows.Collector`), so memory
  holds the largest single sample and the table's columns whatever the file size.
- shared with :mod:`evaladdon.adapters.inspect.native` (the ``.eval`` zips): a parsed sample or
  summary -> its record (:func:`record`), the header check (:func:`_header_of`), the parser of
  a member's bytes (:func:`_loads`), the byte streams ijson reads (depth-checked, prefixed).

Anything else (log format versions other than 2 and 3, ``NaN`` literals in a streamed JSON
log) raises :class:`NotNative`, and the caller falls back to Inspect's own reader.  Records
come out in the shape of :mod:`evaladdon.adapters.inspect.rows`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

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
            return json.loads(data)
        except ValueError as exc:
            raise InputError(f"cannot read as an Inspect log ({what} is not valid JSON: {exc})", where) from None


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


class _DepthCheckedFile:
    """A binary file whose bytes pass the depth scan as ijson reads them (one pass, bounded
    memory): nothing nested deeper than ``MAX_DEPTH`` reaches the table code."""

    def __init__(self, fh: Any, where: str) -> None:
        self.fh, self.where, self.scanner = fh, where, DepthScanner()

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(n)
        if self.scanner.feed(data) > MAX_DEPTH:
            raise InputError(f"JSON nested more than {MAX_DEPTH} levels deep; refusing to parse it", self.where)
        return data


class _Prefixed:
    """``head`` then the rest of ``stream``."""

    def __init__(self, head: bytes, stream: Any) -> None:
        self.head, self.stream = head, stream

    def read(self, n: int = -1) -> bytes:
        if self.head and n != 0:
            head, self.head = self.head, b""
            return head + self.stream.read(max(n - len(head), 1) if n > 0 else -1)
        return self.stream.read(n)


def read_json_stream(path: Path, cluster: str | None = None, records: Collector | None = None, *,
                     tuning: ReadTuning | None = None) -> LogData:
    """A JSON log streamed with ijson's C backend (see module docstring); its records go
    into a :class:`~evaladdon.adapters.inspect.rows.Collector` (for ``cluster``, batches of
    ``tuning.batch_size``) as they are read, so memory does not grow by a record per sample."""
    try:
        import ijson

        backend = ijson.get_backend("yajl2_c")
    except ImportError:
        raise NotNative("streaming JSON logs needs the ijson package with its C backend") from None
    where = str(path)
    try:
        with path.open("rb") as fh:
            skip = len(BOM) if fh.read(len(BOM)) == BOM else 0
            fh.seek(skip)
            header, has_samples = _header_events(iter(backend.parse(_DepthCheckedFile(fh, where), use_float=True)))
            header = _header_of(header, where)
            if records is None:
                records = Collector(cluster, batch_size=(tuning or DEFAULT).batch_size)
            if has_samples:
                fh.seek(skip)
                checked = _DepthCheckedFile(fh, where)
                buf = LEAN_BUFFER if records.lean else 2**20
                for sample in backend.items(checked, "samples.item", use_float=True, buf_size=buf):
                    records.add(record(_slim(sample)))
    except ijson.common.IncompleteJSONError as exc:
        text = " ".join(str(exc).split())
        if "invalid char" in text or "lexical error" in text:
            raise NotNative(f"JSON the streaming parser does not read (NaN/Infinity literal?): {text[:80]}") from None
        raise InputError(f"cannot read as an Inspect log (IncompleteJSONError: {text[:200]})", where) from None
    except ijson.common.JSONError as exc:
        raise InputError(f"cannot read as an Inspect log ({type(exc).__name__}: {str(exc)[:200]})", where) from None
    except InputError as exc:
        if exc.where is None:
            raise InputError(exc.message, where) from None
        raise
    return LogData(header=header, records=records, n_members=None, unlisted=0, summary_source="samples",
                   samples_logged=has_samples)
