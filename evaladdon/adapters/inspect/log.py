"""Inspect AI logs (``.eval`` zips and ``.json``, also JSON logs with other names) -> rows.

Two readers give the identical canonical table (tested on every real log in ../shared):

- ``native`` (:mod:`evaladdon.adapters.inspect.native`): ``header.json`` + ``summaries.json``
  (or the journal of an unfinished run) with orjson, JSON logs streamed with ijson
  (:mod:`evaladdon.adapters.inspect.stream`); needs no
  inspect-ai and reads at the speed of the raw parse (see ``benchmarks/bench_inspect.py``).
- ``inspect``: Inspect's own ``inspect_ai.log`` readers (header, then sample summaries for
  ``.eval``, the full log for JSON logs, whose summaries Inspect would build from a full read
  anyway).  It also reads what the native reader does not recognise: log format version 1
  (the 2024 ``results.scorer`` layout), versions
  newer than 3, other zip compressions.

``read_inspect_log(path, cluster, reader="auto")`` uses the native reader and falls back to
Inspect's for anything it does not recognise; ``reader="native"`` refuses instead,
``reader="inspect"`` uses Inspect's reader only.  Both pass the same guards first (nesting
depth, decompressed size: :mod:`evaladdon.adapters.common.guard`) and end in the same row
builder (:mod:`evaladdon.adapters.inspect.rows`, which documents values, ``item_hash``,
``prediction``/``label``/``confidence``, duplicates and incomplete logs).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon._util.gc import no_cyclic_gc
from evaladdon.adapters.common.guard import BOM, MAX_DEPTH, check_depth, check_file_depth, read_member
from evaladdon.adapters.inspect.stream import NotNative, read_json_stream
from evaladdon.adapters.inspect.native import read_eval_table
from evaladdon.adapters.inspect.parts import Part
from evaladdon.adapters.inspect.records import SampleRecord, make_record, score_fields
from evaladdon.adapters.inspect.rows import LogData, build_part, table_of
from evaladdon.adapters.tuning import ReadTuning
from evaladdon.errors import InputError
from evaladdon.table.names import dotted

__all__ = ["READERS", "dotted", "is_inspect_json", "read_inspect_log", "read_inspect_part"]

READERS = ("auto", "native", "inspect")
_INSPECT_HINT = "pip install 'evaladdon[inspect-native]' (or 'evaladdon[inspect]')"
_VERSION_RE = re.compile(r"version (\d+) of log format")


def read_inspect_log(path: str | Path, cluster: str | None = None, reader: str = "auto", *,
                     tuning: ReadTuning | None = None) -> pd.DataFrame:
    """Canonical rows of one Inspect log (see module docstring)."""
    return table_of(read_inspect_part(path, cluster, reader, tuning=tuning))


def read_inspect_part(path: str | Path, cluster: str | None = None, reader: str = "auto", *,
                      tuning: ReadTuning | None = None) -> Part:
    """One Inspect log's rows before the column operations (:func:`read_inspect_log` makes
    them a table; ``read_runs`` makes one table of many logs with
    :func:`evaladdon.adapters.inspect.rows.frame`).  ``tuning``: the native reader's
    :class:`~evaladdon.adapters.tuning.ReadTuning` (``quick``, ``batch_size``)."""
    p = Path(path)
    if reader not in READERS:
        raise InputError(f"unknown Inspect reader {reader!r}; expected one of {', '.join(READERS)}")
    with no_cyclic_gc():
        return _read_part(p, cluster, reader, tuning)


def _read_part(p: Path, cluster: str | None, reader: str, tuning: ReadTuning | None = None) -> Part:
    if reader == "inspect":
        return build_part(_read_with_inspect(p), p, cluster, tuning=tuning)
    try:
        try:
            log = _read_native(p, cluster, tuning)
        except NotNative as exc:
            if reader == "native":
                raise InputError(f"the native reader does not read this log ({exc}); use the inspect reader",
                                 str(p)) from None
            if not _has_inspect():
                raise InputError(f"this log needs inspect-ai to read ({exc}): {_INSPECT_HINT}", str(p)) from None
            log = _read_with_inspect(p)
        return build_part(log, p, cluster, tuning=tuning)
    except RecursionError:
        # orjson accepts up to 1,024 levels unscanned (stream._loads); a value deep
        # enough to exhaust Python's stack when shown as text (str/repr) is refused here
        raise InputError(f"a value is nested more than {MAX_DEPTH} levels deep; refusing to read it", str(p)) from None


def _read_native(p: Path, cluster: str | None, tuning: ReadTuning | None = None) -> LogData:
    """The native reader of ``.eval`` zips or JSON logs, told apart by the first bytes of the
    file opened once (the reader reads from the same handle)."""
    with p.open("rb") as fh:
        zipped = fh.read(4).startswith(b"PK")
        fh.seek(0)
        if zipped:
            return read_eval_table(p, cluster, tuning=tuning, fh=fh)
        return read_json_stream(p, cluster, tuning=tuning, fh=fh)


# ---------------------------------------------------------------------------- Inspect's reader

def _has_inspect() -> bool:
    try:
        import inspect_ai.log  # noqa: F401
    except ImportError:
        return False
    return True


def _inspect() -> Any:
    try:
        import inspect_ai.log as inspect_log
    except ImportError:  # pragma: no cover - exercised without the extra
        raise InputError(f"reading this Inspect log needs inspect-ai: {_INSPECT_HINT}") from None
    return inspect_log


def _inspect_version() -> str:
    try:
        import inspect_ai

        return str(getattr(inspect_ai, "__version__", "?"))
    except ImportError:  # pragma: no cover
        return "not installed"


def _guard_zip(p: Path) -> list[tuple[str, int]]:
    """Bound and depth-scan the members Inspect will parse; the (id, epoch) of sample members."""
    from evaladdon.adapters.inspect.native import _member_key

    try:
        with zipfile.ZipFile(p) as zf:
            infos = {i.filename: i for i in zf.infolist()}
            for name, info in infos.items():
                if name in ("header.json", "summaries.json", "reductions.json") or name.startswith("_journal/"):
                    try:
                        check_depth(read_member(zf, info, str(p)), str(p), name)
                    except InputError:
                        raise
                    except Exception:  # noqa: BLE001 - unsupported compression etc.: Inspect decides
                        continue
            return [k for n in infos if n.startswith("samples/") and n.endswith(".json")
                    if (k := _member_key(n)) is not None]
    except zipfile.BadZipFile:
        return []


def _call(p: Path, fn: Any) -> Any:
    try:
        return fn()
    except InputError:
        raise
    except Exception as exc:  # Inspect raises several types; make each one line
        text = " ".join(str(exc).split())
        m = _VERSION_RE.search(text)
        if m:
            raise InputError(
                f"log format version {m.group(1)} is newer than the installed inspect-ai {_inspect_version()} "
                "can read; upgrade inspect-ai",
                str(p),
            ) from None
        raise InputError(f"cannot read as an Inspect log ({type(exc).__name__}: {text[:200]})", str(p)) from None


def _raw_eval_id(p: Path, is_zip: bool) -> Any:
    """The ``eval_id`` as stored: Inspect makes up a random one when an old log has none,
    which would give the same log a new run id at every read."""
    import orjson

    from evaladdon.adapters.inspect.stream import _DepthCheckedFile, _header_events

    try:
        if is_zip:
            with zipfile.ZipFile(p) as zf:
                names = set(zf.namelist())
                name = "header.json" if "header.json" in names else "_journal/start.json"
                raw = orjson.loads(read_member(zf, zf.getinfo(name), str(p)))
        else:
            import ijson

            with p.open("rb") as fh:
                if fh.read(len(BOM)) != BOM:
                    fh.seek(0)
                # (through the depth check, which also reads NaN/Infinity literals: a NaN stderr in
                # the results must not cost the log its eval_id, hence its run id)
                raw, _ = _header_events(iter(ijson.get_backend("yajl2_c").parse(_DepthCheckedFile(fh, str(p)),
                                                                                use_float=True)))
        return (raw.get("eval") or {}).get("eval_id")
    except Exception:  # noqa: BLE001 - unreadable raw header: Inspect's reader reports it
        return None


def _header_dict(h: Any, eval_id: Any) -> dict[str, Any]:
    spec = h.eval
    config = spec.config
    limit = config.limit
    results = None
    if h.results is not None:
        results = {"total_samples": h.results.total_samples,
                   "scores": [{"name": s.name} for s in h.results.scores]}
    return {
        "version": h.version,
        "status": h.status,
        "eval": {
            "eval_id": eval_id, "run_id": spec.run_id, "task_id": spec.task_id,
            "task": spec.task, "model": spec.model,
            "scorers": [{"name": sc.name, "options": dict(sc.options or {})} for sc in (getattr(spec, "scorers", None) or [])],
            "model_roles": {k: ([m.model for m in v] if isinstance(v, list) else v.model)
                            for k, v in (getattr(spec, "model_roles", None) or {}).items()},
            "dataset": {"samples": spec.dataset.samples},
            "config": {"limit": list(limit) if isinstance(limit, tuple) else limit,
                       "sample_id": config.sample_id, "epochs": config.epochs, "log_samples": config.log_samples},
        },
        "results": results,
    }


def _record(s: Any) -> SampleRecord:
    """An ``EvalSampleSummary`` or ``EvalSample`` -> record."""
    scores = None
    if s.scores is not None:
        scores = {str(name): score_fields(sc.value, sc.answer, sc.metadata) for name, sc in s.scores.items()}
    limit = s.limit
    return make_record(s.id, s.epoch, scores, s.metadata, bool(s.error),
                       None if limit is None else str(getattr(limit, "type", limit)), s.target, s.input)


def _read_with_inspect(p: Path) -> LogData:
    inspect_log = _inspect()
    with p.open("rb") as fh:
        is_zip = fh.read(4).startswith(b"PK")
    if is_zip:
        members = _guard_zip(p)
        header = _call(p, lambda: inspect_log.read_eval_log(str(p), header_only=True))
        summaries = _call(p, lambda: inspect_log.read_eval_log_sample_summaries(str(p))) or []
        records = [_record(s) for s in summaries]
        seen = {(str(r.id), r.epoch) for r in records}
        unlisted = [k for k in members if k not in seen]
        for sid, epoch in sorted(unlisted):
            records.append(_record(_call(p, lambda sid=sid, epoch=epoch: inspect_log.read_eval_log_sample(str(p), id=sid, epoch=epoch))))
        return LogData(_header_dict(header, _raw_eval_id(p, True)), records, len(members), len(unlisted),
                       "summaries.json" if _has_member(p, "summaries.json") else "the journal summaries")
    check_file_depth(p)
    with p.open("rb") as fh:
        if fh.read(len(BOM)) == BOM:  # Inspect's reader rewinds the stream: hand it the bytes after the BOM
            import io

            log = _call(p, lambda: inspect_log.read_eval_log(io.BytesIO(fh.read())))
        else:
            fh.seek(0)
            log = _call(p, lambda: inspect_log.read_eval_log(fh))
    return LogData(_header_dict(log, _raw_eval_id(p, False)), [_record(s) for s in log.samples or []], None, 0, "samples",
                   samples_logged=log.samples is not None)


def _has_member(p: Path, name: str) -> bool:
    try:
        with zipfile.ZipFile(p) as zf:
            return name in zf.namelist()
    except Exception:  # noqa: BLE001 - Inspect has read it already; only the note's wording depends on it
        return False


_LOG_START = re.compile(r'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


def is_inspect_json(first: bytes) -> bool:
    """Whether a JSON file starts like an Inspect log: ``{"version": N, "status": ...`` (BOM allowed)."""
    if first.startswith(BOM):
        first = first[len(BOM):]
    return bool(_LOG_START.match(first.decode("utf-8", errors="replace")))
