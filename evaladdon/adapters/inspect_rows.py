"""Inspect sample records -> canonical rows (shared by the native and the inspect-ai readers).

Both readers reduce a log to a header (plain dicts: ``version``, ``status``, ``eval``,
``results``) and one :class:`SampleRecord` per sample; :func:`build_part` turns them into
per-row lists in one pass over samples, and :func:`frame` makes the canonical table with
column operations (one DataFrame and one ``finalize`` for many logs at once:
``read_runs``), so the two readers give the identical table by construction.

Rules:

- Samples are keyed by ``(str(id), epoch)``; a key recorded twice keeps the **last** record
  (Inspect's own rule: a re-run sample is written after the attempt it replaces) and a note
  says how many were dropped.
- Values: Inspect's grade letters (exactly ``C``/``I``/``P``/``N`` -> 1/0/0.5/0) and
  ``yes``/``no`` (any case) are Inspect vocabulary mapped here; everything else goes through
  the one value converter :func:`evaladdon.adapters.scores.coerce_scores`.  Dict-valued
  scores become one metric per key (``scorer/key``); list values are non-numeric.
- Texts are taken in the form Inspect keeps in ``summaries.json`` whichever container was
  read, so an ``.eval`` and a ``.json`` of the same run give the same table: top-level
  metadata strings and score answers whitespace-collapsed and cut at 1,024 characters
  (Inspect's ``thin_text``), other metadata values over 1 KB of JSON replaced by Inspect's
  "Key removed from summary (> 1k)", targets cut at 5,120 characters.  Records are reduced
  to these fields as they are read (:func:`make_record`), so memory does not grow with
  inputs or transcripts.
- ``prediction`` = the score's ``answer``; ``label`` = the sample ``target`` (a list of one
  target as that string, longer lists as a JSON array); ``confidence`` only from an explicit
  ``confidence`` or ``probability`` number in [0, 1] in the score's metadata.
- ``item_hash`` = SHA-256 of ``{"input": ..., "target": ...}`` normalised so that the
  thinned copy Inspect keeps in ``summaries.json`` and the full sample of a JSON log hash the
  same: every text cut to its first 5,120 characters (Inspect's summary limit, its
  "(content truncated)" marker removed), chat messages reduced to ``[role, text parts]`` with
  non-text parts as ``"(Image)"`` etc. (Inspect's placeholders) and message ids dropped (they
  differ per run).  ``None`` when a record has no input (never a hash of the target alone).
- A log with samples but no score anywhere (no sample score, no ``results.scores``) is
  refused: "no scores in this log".
- What the log declares (``results.total_samples``, else ``eval.dataset.samples`` x epochs
  within ``limit``/``sample_id``) is compared with what was read; a shortfall is a note and
  ``df.attrs["incomplete"]`` (declared, read, missing); ids that were never written cannot
  become rows.
"""

from __future__ import annotations

import hashlib
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import orjson
import pandas as pd

from evaladdon.adapters.scores import coerce_scores, raw_strings
from evaladdon.errors import InputError
from evaladdon.table import finalize

SUMMARY_TEXT_LIMIT = 5120
TRUNCATED = "...\n(content truncated)"
_GRADES: dict[str, float] = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS: dict[str, float] = {"yes": 1.0, "no": 0.0}
_NOT_SCALAR = "<list value>"  # a non-numeric string for coerce_scores: lists are not scores


class Score(NamedTuple):
    value: Any
    answer: str | None
    confidence: float | None


class SampleRecord(NamedTuple):
    id: Any
    epoch: Any
    scores: dict[str, Score] | None
    metadata: dict[str, Any]
    error: bool
    limit: str | None
    item_hash: str | None
    label: str | None


_REMOVED = "Key removed from summary (> 1k)"


def thin_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """Inspect's summary form of sample metadata (``inspect_ai.log._util.thin_metadata``):
    strings thinned, other values over 1 KB of JSON replaced by Inspect's marker, so a
    record holds kilobytes whatever the sample held."""
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        if isinstance(value, str):
            out[key] = thin_text(value)
        elif value is None or isinstance(value, (int, float, bool)):
            out[key] = value
        else:
            try:
                small = len(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)) <= 1024
            except (TypeError, orjson.JSONEncodeError):
                small = False
            out[key] = value if small else _REMOVED
    return out


def make_record(id: Any, epoch: Any, scores: dict[str, Score] | None, metadata: Any, error: bool,
                limit: str | None, target: Any, input: Any) -> SampleRecord:
    """The fields the table needs, reduced at once (hash, label, thinned metadata) so that
    a streamed log keeps no inputs or transcripts in memory."""
    return SampleRecord(id, epoch, scores, thin_metadata(metadata) if isinstance(metadata, dict) and metadata else {},
                        error, limit, item_hash(input, target), label_of(target))


@dataclass
class LogData:
    header: dict[str, Any]
    records: list[SampleRecord]
    n_members: int | None  # sample members in an .eval zip
    unlisted: int  # members no summary listed (read from the member itself)
    summary_source: str
    samples_logged: bool = True  # False: a JSON log without a ``samples`` key (header only)


def score_fields(value: Any, answer: Any, metadata: Any) -> Score:
    confidence = None
    if isinstance(metadata, dict):
        for key in ("confidence", "probability"):
            c = metadata.get(key)
            if isinstance(c, (int, float)) and not isinstance(c, bool) and 0.0 <= c <= 1.0:
                confidence = float(c)
                break
    return Score(value, thin_text(answer) if isinstance(answer, str) else None, confidence)


def dotted(obj: Any, path: str) -> Any:
    """``a.b.c`` lookup in nested dicts (``None`` when any step is missing)."""
    cur = obj
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def thin_text(text: str) -> str:
    """Inspect's summary form of a short text (``inspect_ai.log._util.thin_text``: whitespace
    collapsed, cut to 1,024 characters at a word); the common short case without textwrap."""
    if len(text) <= 1024 and text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        # already in that form (Inspect thinned it for summaries.json, or it is short and
        # plain): every character str.split() splits on but " " is non-printable, so with no
        # run of spaces and none at either end the split/join below gives the text back
        return text
    cut = text[:8192]
    collapsed = " ".join(cut.split())
    if len(collapsed) <= 1024:
        return collapsed
    return textwrap.shorten(cut, width=1024, placeholder="...")


def truncate_text(text: str) -> str:
    """Inspect's summary form of an input or target text (cut at 5,120 characters)."""
    return text[:SUMMARY_TEXT_LIMIT] + TRUNCATED if len(text) > SUMMARY_TEXT_LIMIT else text


def _text(t: Any) -> str:
    """A text cut to Inspect's summary limit (a summary's "(content truncated)" marker goes
    with the cut: it starts right at the limit)."""
    return str(t)[:SUMMARY_TEXT_LIMIT]


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _norm_input(inp: Any) -> Any:
    if isinstance(inp, str):
        return _text(inp)
    out = []
    for message in inp:
        content = _get(message, "content")
        if isinstance(content, str):
            parts: Any = _text(content)
        else:
            parts = []
            for c in content or []:
                kind = str(_get(c, "type"))
                parts.append(_text(_get(c, "text")) if kind == "text" else f"({kind.capitalize()})")
        out.append([str(_get(message, "role")), parts])
    return out


def _norm_target(target: Any) -> Any:
    if isinstance(target, (list, tuple)):
        return [_text(t) for t in target]
    return _text(target)


def item_hash(inp: Any, target: Any) -> str | None:
    if type(inp) is str and type(target) is str:  # the common case, as _norm_input/_norm_target do it
        doc: dict[str, Any] = {"input": inp[:SUMMARY_TEXT_LIMIT], "target": target[:SUMMARY_TEXT_LIMIT]}
    elif inp is None or not isinstance(inp, (str, list)):
        return None
    else:
        doc = {"input": _norm_input(inp), "target": _norm_target(target if target is not None else "")}
    return hashlib.sha256(orjson.dumps(doc)).hexdigest()


def label_of(target: Any) -> str | None:
    if target is None:
        return None
    if isinstance(target, (list, tuple)):
        if len(target) == 1:
            return truncate_text(str(target[0]))
        return orjson.dumps([truncate_text(str(t)) for t in target]).decode()
    return truncate_text(str(target))


def _declared(header: dict[str, Any]) -> tuple[int | None, str]:
    results = header.get("results")
    if isinstance(results, dict) and isinstance(results.get("total_samples"), int):
        return int(results["total_samples"]), "results.total_samples"
    spec = header.get("eval") or {}
    dataset = spec.get("dataset") or {}
    config = spec.get("config") or {}
    n = dataset.get("samples")
    if not isinstance(n, int):
        return None, ""
    ids = config.get("sample_id")
    if isinstance(ids, list):
        n = min(n, len(ids))
    elif ids is not None:
        n = min(n, 1)
    limit = config.get("limit")
    if isinstance(limit, int):
        n = min(n, limit)
    elif isinstance(limit, list) and len(limit) == 2 and all(isinstance(x, int) for x in limit):
        n = max(0, min(n, limit[1]) - limit[0])
    epochs = config.get("epochs")
    if isinstance(epochs, dict):
        epochs = epochs.get("epochs")
    k = epochs if isinstance(epochs, int) and epochs > 0 else 1
    return n * k, "eval.dataset.samples x epochs"


def _run_of(spec: dict[str, Any]) -> str:
    return str(spec.get("eval_id") or f"{spec.get('run_id')}:{spec.get('task_id')}")


_BIG_INT = 2**1023  # past ~1.8e308 an int has no float (coerce_scores raises OverflowError)


@dataclass
class Part:
    """One log's rows before the column operations, so that many logs make one DataFrame
    (:func:`frame`): per-row and per-sample lists, and the constant columns as scalars.

    Everything that can fail on a bad log (ids, epochs, cluster fields, no scores, values
    with no float or too deep to show) fails in :func:`build_part`, per file; what
    :func:`frame` does to the combined lists cannot fail."""

    source: str
    run: str
    task: str
    model: str
    n: int  # rows
    metrics: list[str]
    items: list[str]
    epochs: list[int]
    raws: list[Any]
    convert: list[Any]
    reasons: list[str | None]
    answers: list[str | None]
    confidences: list[float | None]
    row_sample: list[int]
    clusters: list[str] | None
    hashes: list[str | None]
    labels: list[str | None]
    metas: list[dict[str, Any]]
    columns: list[str]  # this log's table's columns, in order
    notes: list[str]
    incomplete: dict[str, Any] | None


def build_part(log: LogData, path: Path, cluster: str | None) -> Part:
    """One Inspect log's rows (see module docstring); :func:`frame` makes the table."""
    where = str(path)
    header = log.header
    spec = header.get("eval") or {}
    results = header.get("results") if isinstance(header.get("results"), dict) else {}
    result_names = [str(s.get("name")) for s in (results or {}).get("scores") or [] if isinstance(s, dict)]

    # (id, epoch) keys; the last record of a key wins
    last: dict[tuple[str, int], int] = {}
    for i, r in enumerate(log.records):
        if isinstance(r.epoch, bool) or not isinstance(r.epoch, int) or r.id is None:
            raise InputError(f"cannot read as an Inspect log (sample {str(r.id)[:40]!r} has no id or integer epoch)",
                             where)
        last[(str(r.id), r.epoch)] = i
    n_dup = len(log.records) - len(last)
    # at the place of its first record (dict order), as Inspect's own de-duplication
    records = [log.records[i] for i in last.values()] if n_dup else log.records

    known = list(dict.fromkeys(result_names))
    for r in records:
        for name in r.scores or {}:
            if name not in known:
                known.append(name)
    if records and not known:
        n_err = sum(1 for r in records if r.error)
        raise InputError(f"no scores in this log ({len(records)} sample(s), none scored"
                         + (f", {n_err} with errors" if n_err else "") + ")", where)

    items: list[str] = []
    epochs: list[int] = []
    metrics: list[str] = []
    raws: list[Any] = []
    convert: list[Any] = []
    reasons: list[str | None] = []
    clusters: list[str] = []
    answers: list[str | None] = []
    confidences: list[float | None] = []
    row_sample: list[int] = []
    hashes: list[str | None] = []
    labels: list[str | None] = []
    metas: list[dict[str, Any]] = []
    for j, r in enumerate(records):  # one pass over samples (not rows)
        item = str(r.id)
        if cluster is not None:
            cv = dotted(r.metadata, cluster)
            if cv is None or isinstance(cv, (dict, list)):
                raise InputError(f"sample {item!r} (epoch {r.epoch}) has no scalar metadata field {cluster!r} to cluster on",
                                 where)
            clusters.append(str(cv))
        hashes.append(r.item_hash)
        labels.append(r.label)
        metas.append({f"meta.{k}": v for k, v in r.metadata.items() if isinstance(v, (str, int, float, bool))}
                     if r.metadata else {})
        sample_reason = "sample error" if r.error else (
            f"limit reached ({r.limit})" if r.limit is not None and not r.scores else None)
        if r.scores:
            for name, sc in r.scores.items():
                value = sc.value
                pairs = value.items() if isinstance(value, dict) else ((None, value),)
                for key, v in pairs:
                    items.append(item)
                    epochs.append(r.epoch)
                    metrics.append(name if key is None else f"{name}/{key}")
                    raws.append(v)
                    if isinstance(v, str):
                        c = _GRADES.get(v)
                        if c is None:
                            c = _WORDS.get(v.lower(), v)
                    elif isinstance(v, (list, tuple, dict)):
                        c = _NOT_SCALAR
                        str(v)  # its raw text is made later, for many logs at once: fail here, for this log
                    else:
                        c = v
                        if type(v) is int and not -_BIG_INT < v < _BIG_INT:
                            float(v)  # OverflowError, as coerce_scores would raise it, for this log
                    convert.append(c)
                    reasons.append(sample_reason)
                    answers.append(sc.answer)
                    confidences.append(sc.confidence)
                    row_sample.append(j)
        else:
            reason = sample_reason or "unscored sample"
            for name in known:
                items.append(item)
                epochs.append(r.epoch)
                metrics.append(name)
                raws.append(None)
                convert.append(None)
                reasons.append(reason)
                answers.append(None)
                confidences.append(None)
                row_sample.append(j)

    columns = list(_CANONICAL)
    if any(a is not None for a in answers):
        columns.append("prediction")
    if any(lb is not None for lb in labels):
        columns.append("label")
    if any(c is not None for c in confidences):
        columns.append("confidence")
    if any(metas):
        columns.extend(k for k in dict.fromkeys(k for m in metas for k in m) if k not in columns)
    declared, basis = _declared(header) if _samples_logged(log) else (None, "")
    incomplete = None
    if declared is not None and declared > len(records):
        incomplete = {"declared": declared, "read": len(records), "missing": declared - len(records), "basis": basis}
    return Part(where, _run_of(spec), str(spec.get("task")), str(spec.get("model")), len(items), metrics, items,
                epochs, raws, convert, reasons, answers, confidences, row_sample,
                clusters if cluster is not None else None, hashes, labels, metas, columns,
                _notes(path, log, header, len(records), n_dup), incomplete)


_CANONICAL = ("run", "source", "harness", "task", "model", "metric", "item", "epoch", "value", "raw", "cluster",
              "item_hash", "error")


def frame(parts: list[Part]) -> pd.DataFrame:
    """The canonical table of several logs' rows: one DataFrame, one pass of each column
    operation and one :func:`evaladdon.table.finalize`, equal to concatenating the logs'
    own tables (columns in the order of first appearance; a column a log lacks is missing
    in its rows)."""
    if len(parts) > 1:
        parts = [p for p in parts if p.n] or parts[:1]  # an empty log adds no rows and no columns
    n = sum(p.n for p in parts)

    def rows(attr: str) -> list[Any]:
        if len(parts) == 1:
            return getattr(parts[0], attr)
        out: list[Any] = []
        for p in parts:
            out.extend(getattr(p, attr))
        return out

    def constant(attr: str) -> Any:
        if len(parts) == 1:
            return getattr(parts[0], attr)
        return np.repeat(np.array([getattr(p, attr) for p in parts], dtype=object), [p.n for p in parts])

    if len(parts) == 1:
        take = np.asarray(parts[0].row_sample, dtype=np.int64)
    else:
        offsets = np.cumsum([0] + [len(p.hashes) for p in parts[:-1]])
        take = np.concatenate([np.asarray(p.row_sample, dtype=np.int64) + off for p, off in zip(parts, offsets)])

    def per_sample(values_: list[Any]) -> np.ndarray:
        arr = np.empty(len(values_), dtype=object)
        arr[:] = values_
        return arr[take]

    reasons = rows("reasons")
    convert = rows("convert")
    if convert and all(type(c) is float or type(c) is int for c in convert):
        # every value a number (grades already mapped): coerce_scores' numeric path, the same
        # values and reasons (NaN/inf non-finite) without classifying objects one by one
        values, value_error = coerce_scores(pd.Series(np.array(convert, dtype=float)))
    else:
        values, value_error = coerce_scores(pd.Series(convert, dtype=object))
    reason = np.asarray(reasons, dtype=object) if n else np.empty(0, dtype=object)
    has_reason = pd.isna(reason) == False  # noqa: E712 - elementwise
    clustered = parts[0].clusters is not None
    cols: dict[str, Any] = {
        "run": constant("run"), "source": constant("source"), "harness": "inspect", "task": constant("task"),
        "model": constant("model"), "metric": np.asarray(rows("metrics"), dtype=object),
        "item": np.asarray(rows("items"), dtype=object), "epoch": np.asarray(rows("epochs"), dtype=np.int64),
        "value": np.where(has_reason, np.nan, values),
        "raw": raw_strings(pd.Series(rows("raws"), dtype=object)).to_numpy(),
        "cluster": per_sample(rows("clusters")) if clustered else None,
        "item_hash": per_sample(rows("hashes")),
        "error": np.where(has_reason, reason, value_error.to_numpy()),
    }
    order = list(dict.fromkeys(c for p in parts for c in p.columns))
    if "prediction" in order:
        cols["prediction"] = np.asarray(rows("answers"), dtype=object)
    if "label" in order:
        cols["label"] = per_sample(rows("labels"))
    if "confidence" in order:
        cols["confidence"] = np.array([np.nan if c is None else c for c in rows("confidences")], dtype=float)
    metas = rows("metas")
    if any(metas):
        meta_df = pd.DataFrame.from_records(metas)
        for col in meta_df.columns:
            cols.setdefault(col, meta_df[col].to_numpy()[take])
    out = pd.DataFrame(cols, index=pd.RangeIndex(n))
    if list(out.columns) != order:
        out = out[order]
    return finalize(out)


def build_table(log: LogData, path: Path, cluster: str | None) -> pd.DataFrame:
    """Canonical rows of one Inspect log (see module docstring)."""
    return table_of(build_part(log, path, cluster))


def table_of(part: Part) -> pd.DataFrame:
    """One log's table, with its notes (and ``incomplete``) in ``attrs``."""
    df = frame([part])
    df.attrs["notes"] = part.notes
    if part.incomplete is not None:
        df.attrs["incomplete"] = part.incomplete
    return df


def _samples_logged(log: LogData) -> bool:
    config = (log.header.get("eval") or {}).get("config") or {}
    return log.samples_logged and config.get("log_samples") is not False


def _notes(p: Path, log: LogData, header: dict[str, Any], n_samples: int, n_dup: int) -> list[str]:
    notes = []
    status = header.get("status")
    declared, basis = _declared(header) if _samples_logged(log) else (None, "")
    if status != "success":
        notes.append(f"{p}: log status is {status!r}" + (f" ({n_samples} sample(s) recorded)" if n_samples else ""))
    if n_samples == 0:
        why = "" if _samples_logged(log) else " (it was written without them: log_samples off or header only)"
        notes.append(f"{p}: the log holds no samples{why}, so it adds no rows")
    if declared is not None and declared > n_samples:
        notes.append(f"{p}: incomplete: the log declares {declared} sample(s) ({basis}) but holds {n_samples}; "
                     f"{declared - n_samples} missing sample(s) are not in the table")
    if log.unlisted:
        notes.append(f"{p}: {log.unlisted} sample(s) missing from {log.summary_source} were read from their "
                     "sample files")
    if n_dup:
        notes.append(f"{p}: {n_dup} duplicate (id, epoch) sample record(s); kept the last of each, as Inspect does")
    return notes
