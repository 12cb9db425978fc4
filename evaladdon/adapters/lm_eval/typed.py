"""Typed decoding of regular lm-eval sample lines: only the fields the fast path reads, in C.

A samples line is ~2 KB of JSON of which the reader needs a few fields (doc id, filter, doc
hash, metric names, the metric values; target and ``filtered_resps`` for multiple choice; the
doc's cluster field).  :func:`record_decoder` makes a ``msgspec`` decoder of a ``Struct`` of
exactly those fields for the schema of a file's first regular record
(:func:`~evaladdon.adapters.lm_eval.samples._fast_schema`): every other field (the doc's text,
``arguments``, ``resps``, the prompt and target hashes) is skipped without building an object,
about half the CPU of orjson's parse of the whole line.  ``msgspec.structs.astuple`` of a
decoded record is the fast path's tuple: ``scores_per_repeat`` (``UNSET`` when absent) and then
the fields in the order of the fast path's ``itemgetter``.

The same values as orjson's (held equal in ``tests/adapters/test_lm_eval_typed.py``): every
field is typed as JSON's scalars -- ``int`` within int64 (orjson returns larger integers as
floats, msgspec as ints: a line holding one is left to orjson), ``float``, ``str``, ``bool``,
``None`` -- or lists (two levels) and objects of them; a value of any other shape, like any
line the type refuses, is read by orjson (:class:`~evaladdon.adapters.common.jsonlines.JsonLines`).
Without ``msgspec`` installed there is no decoder and everything is read by orjson.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Annotated, Any, Union

from evaladdon.adapters.common.jsonlines import JsonLines


class Typed:
    """A file's typed decoder: ``decode`` (bytes -> ``struct``), the record type ``struct``, the
    type of its ``doc`` (a ``Struct`` whose one field ``c`` is the cluster value) or None;
    ``astuple`` (msgspec's), ``unset`` (``scores_per_repeat`` absent) and ``errors`` (what
    ``decode`` raises on a line it refuses); ``decode_lines``: the same decoder over many lines
    (bytes -> list, one object a value)."""

    __slots__ = ("astuple", "decode", "decode_lines", "doc", "errors", "struct", "unset")

    def __init__(self, decode: Callable[[bytes], Any], struct: type, doc: type | None,
                 decode_lines: Callable[[bytes], list[Any]] | None = None) -> None:
        import msgspec
        from msgspec.structs import astuple

        self.decode, self.struct, self.doc, self.decode_lines = decode, struct, doc, decode_lines
        self.astuple: Callable[[Any], tuple[Any, ...]] = astuple
        self.unset: Any = msgspec.UNSET
        self.errors: tuple[type[BaseException], ...] = (msgspec.DecodeError,)


@lru_cache(maxsize=64)
def record_decoder(fields: tuple[str, ...], cluster: str | None) -> Typed | None:
    """The typed decoder of records with ``fields`` (the fast path's, in its order: doc_id,
    filter, doc_hash, metrics, [target, filtered_resps,] [doc,] then the metric names), or None
    when there is none: no msgspec, a field named twice (a metric called ``filter``), a dotted
    cluster path (its doc is read whole, by orjson).  msgspec is imported here, on the first
    regular lm-eval file, not with the readers (~10-30 ms of imports, ``typing_extensions``)."""
    if len(set(fields)) < len(fields) or "scores_per_repeat" in fields or cluster is not None and "." in cluster:
        return None
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a dependency; without it the lines are parsed by orjson
        return None
    i64 = Annotated[int, msgspec.Meta(ge=-2**63, le=2**63 - 1)]
    scalar = Union[i64, float, str, bool, None]
    value = Union[scalar, list[Union[scalar, list[scalar]]], dict[str, scalar]]
    types: dict[str, Any] = {"doc_id": scalar, "filter": str, "doc_hash": scalar, "metrics": list[str],
                             "target": value, "filtered_resps": list[Union[scalar, list[scalar]]]}
    doc = None
    if cluster is not None:  # then "doc" is among the fields, once
        doc = msgspec.defstruct("LmEvalDoc", [("c", scalar, None)], rename={"c": cluster}, gc=False)
    spec: list[tuple[str, Any, Any]] = [("spr", Any, msgspec.UNSET)]
    spec += [(f"f{i}", doc if f == "doc" and doc is not None else types.get(f, value), msgspec.NODEFAULT)
             for i, f in enumerate(fields)]
    rename = {"spr": "scores_per_repeat", **{f"f{i}": f for i, f in enumerate(fields)}}
    struct = msgspec.defstruct("LmEvalRecord", spec, rename=rename, gc=False, kw_only=True)
    decoder = msgspec.json.Decoder(struct)
    return Typed(decoder.decode, struct, doc, decoder.decode_lines)


def typed_lines(pairs: Any, fields: tuple[str, ...], cluster: str | None) -> Typed | None:
    """Hand the lines still to come of ``pairs`` (when a :class:`JsonLines`) to the typed decoder
    of ``fields`` (:func:`record_decoder`); that decoder, or None when the lines stay orjson's."""
    typed = record_decoder(fields, cluster) if isinstance(pairs, JsonLines) else None
    if typed is not None:
        pairs.typed(typed.decode, typed.errors, typed.decode_lines)
    return typed
