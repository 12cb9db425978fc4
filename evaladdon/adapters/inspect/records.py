"""Inspect sample records: the fields of a sample the table needs, reduced as they are read.

Both readers (:mod:`evaladdon.adapters.inspect.native`, :mod:`evaladdon.adapters.inspect.stream`
and Inspect's own, :mod:`evaladdon.adapters.inspect.log`) make one :class:`SampleRecord` per
sample (:func:`make_record`): texts in the form Inspect keeps in ``summaries.json``
(:func:`thin_text`, :func:`thin_metadata`, :func:`truncate_text`), the input hash
(:func:`item_hash`), the label (:func:`label_of`); and the one value rule of the row builders
(:func:`score_code`).  The rules are written out in :mod:`evaladdon.adapters.inspect.rows`.
"""

from __future__ import annotations

import hashlib
import textwrap
from typing import Any, NamedTuple

import orjson


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


NESTED_DEPTH = 3
"""How deep nested metadata is flattened into ``meta.a.b`` columns (``--cluster a.b`` reaches any depth)."""


def nested_scalars(key: str, value: dict[str, Any], depth: int = NESTED_DEPTH) -> list[tuple[str, Any]]:
    """The scalar leaves of a nested metadata dict as ``(key.sub, value)`` pairs, at most
    ``depth`` levels down, so that a table (and a store) keeps them as ``meta.key.sub`` columns: a
    field ``--cluster key.sub`` can name at query time, and an error can list."""
    out: list[tuple[str, Any]] = []
    for k, v in value.items():
        if isinstance(v, (str, int, float, bool)):
            out.append((f"{key}.{k}", v))
        elif isinstance(v, dict) and depth > 1:
            out += nested_scalars(f"{key}.{k}", v, depth - 1)
    return out


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



def score_fields(value: Any, answer: Any, metadata: Any) -> Score:
    confidence = None
    if isinstance(metadata, dict):
        for key in ("confidence", "probability"):
            c = metadata.get(key)
            if isinstance(c, (int, float)) and not isinstance(c, bool) and 0.0 <= c <= 1.0:
                confidence = float(c)
                break
    return Score(value, thin_text(answer) if isinstance(answer, str) else None, confidence)


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
    """The item's content hash: SHA-256 (hex) of orjson's text of ``{"input", "target"}``, each
    in Inspect's summary form (cut at :data:`SUMMARY_TEXT_LIMIT`); ``None`` without an input."""
    digest = item_digest(inp, target)
    return None if digest is None else digest.hex()


def item_digest(inp: Any, target: Any) -> bytes | None:
    """:func:`item_hash` as the 32 bytes of the digest (``hexdigest()`` is ``digest().hex()``)."""
    if type(inp) is str and type(target) is str:  # the common case, as _norm_input/_norm_target do it
        doc: dict[str, Any] = {"input": inp[:SUMMARY_TEXT_LIMIT], "target": target[:SUMMARY_TEXT_LIMIT]}
    elif inp is None or not isinstance(inp, (str, list)):
        return None
    else:
        doc = {"input": _norm_input(inp), "target": _norm_target(target if target is not None else "")}
    return hashlib.sha256(orjson.dumps(doc)).digest()


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


def score_code(v: Any) -> Any:
    """The value of one score (or of one key of a dict-valued score) as the converter
    (:func:`~evaladdon.adapters.common.scores.coerce_scores`) takes it: Inspect's grade letters
    (exactly ``C``/``I``/``P``/``N``) and ``yes``/``no`` (any case) as numbers, any other string
    as it is, a list/tuple/dict as a non-numeric string (lists are not scores), anything else
    as it is.  Raises what making the row would raise later: ``str()`` of a container too deep
    to show (``RecursionError``) and ``float()`` of an int past float range
    (``OverflowError``); each caller decides what that means (the collectors record it for
    the sample, the quick reader leaves the log to them).  The one rule of the three row
    builders (``Collector.flush``, ``columns.flush_lean``, ``quick.quick_rows``);
    oracle: ``tests/adapters/test_inspect_quick.py`` (value by value against the mapping written out)."""
    if isinstance(v, str):
        c = _GRADES.get(v)
        return _WORDS.get(v.lower(), v) if c is None else c
    if isinstance(v, (list, tuple, dict)):
        str(v)  # its raw text is made later: fail now, for this sample
        return _NOT_SCALAR
    if type(v) is int and not -_BIG_INT < v < _BIG_INT:
        float(v)  # OverflowError, as coerce_scores would raise it
    return v
