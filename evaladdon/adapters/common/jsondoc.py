"""Whole JSON documents (HELM, promptfoo, DeepEval outputs) parsed with one-line errors.

orjson parses bytes several times faster than the standard library but rejects the
``NaN``/``Infinity`` literals that Python and JavaScript tools sometimes write; a document it
refuses is parsed again with :mod:`json` (values only, never code).  A document neither
accepts is reported with its line and column.  Shared by the seed-system adapters.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson

from evaladdon.adapters.common.jsonlines import slow_loads
from evaladdon.errors import InputError


def load_json(path: Path) -> Any:
    """The parsed document, or :class:`InputError` naming ``path`` and what is wrong."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or type(exc).__name__}", str(path)) from None
    if not raw.strip():
        raise InputError("the file is empty", str(path))
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    # NaN/Infinity literals, or nesting orjson refuses: the depth-checked stdlib path
    return slow_loads(raw, str(path))


def stable_hash(obj: Any) -> str:
    """A short content hash of a JSON value, independent of key order (sha1 of sorted-key JSON)."""
    data = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)
    return hashlib.sha1(data).hexdigest()[:16]


def type_name(value: Any) -> str:
    """The JSON name of a parsed value's type, for messages."""
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__
    )
