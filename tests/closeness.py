"""One comparison of nested results (dicts, lists, floats, anything else) for the tests.

Floats agree when equal, both NaN, or (both finite) within ``rel`` of the larger magnitude plus ``atol``;
``rel_at(path)`` may give a path its own ``rel`` (an interval's ends, say); everything else
(counts, texts, flags, notes) must be equal and of the same type. Dict keys must match as sets,
or in order with ``ordered_keys`` (a JSON output's key order is part of what users see).
"""

from __future__ import annotations

import math
from typing import Any, Callable


def mismatches(a: Any, b: Any, path: str = "", *, rel: float = 1e-12, atol: float = 0.0,
               rel_at: Callable[[str], float] | None = None,
               ordered_keys: bool = False) -> list[tuple[str, Any, Any]]:
    """Where ``a`` and ``b`` differ, as ``(path, a, b)``; empty when they agree."""
    def again(x: Any, y: Any, where: str) -> list[tuple[str, Any, Any]]:
        return mismatches(x, y, where, rel=rel, atol=atol, rel_at=rel_at, ordered_keys=ordered_keys)

    if isinstance(a, dict) and isinstance(b, dict):
        if (list(a) != list(b)) if ordered_keys else (a.keys() != b.keys()):
            return [(f"{path} (keys)", list(a), list(b))]
        return [m for key in a for m in again(a[key], b[key], f"{path}.{key}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [(f"{path} (length)", len(a), len(b))]
        return [m for i, (x, y) in enumerate(zip(a, b, strict=True)) for m in again(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        r = rel_at(path) if rel_at is not None else rel
        same = a == b or (math.isnan(a) and math.isnan(b)) or (
            math.isfinite(a) and math.isfinite(b) and abs(a - b) <= r * max(abs(a), abs(b)) + atol)
        return [] if same else [(path, a, b)]
    return [] if type(a) is type(b) and a == b else [(path, a, b)]


def assert_same_reading(got: Any, want: Any) -> None:
    """Two readings of one file agree exactly: the same error text, or the same table (values,
    dtypes, ``attrs``); for reader variants held to the reference reading."""
    if isinstance(got, str) or isinstance(want, str):
        assert got == want
        return
    import pandas as pd

    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert list(got.dtypes.astype(str)) == list(want.dtypes.astype(str))
    assert got.attrs == want.attrs
