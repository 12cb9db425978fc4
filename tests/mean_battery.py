"""A seeded battery of inputs for :func:`evaladdon.stats.estimate_mean` (shared by the frozen-reference
test ``tests/stats/test_mean_frozen.py`` and the parts test ``tests/stats/test_mean_parts.py``).

Each case is a dict ``values, items, clusters, level, method, cluster_method``: 0/1 and
continuous scores, one epoch / equal / unequal epochs, no clusters / few / many / singleton /
one cluster, one item, zero variance (in and out of [0, 1], dyadic and not), huge (1e308)
and negative values, every interval method, CR1 and CR2, three levels.  Integer labels only
(not contiguous, rows shuffled), so the cases can also be split into parts.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from evaladdon.stats import estimate_mean
from evaladdon.stats.mean import MEAN_METHODS

N_CASES = 300
N_RESAMPLES = 200  # bootstrap cases: small, to stay fast


KINDS = ["binary", "binary", "binary", "unit", "unit", "normal", "normal", "negative", "huge", "zero-dyadic",
         "zero-unbounded", "zero-odd", "binary-ones", "tiny"]


def _case(rng: np.random.Generator, k: int) -> dict[str, Any]:
    method = MEAN_METHODS[(k // 2) % len(MEAN_METHODS)] if k % 2 else "auto"
    proportion = method not in ("auto", "t", "bootstrap") and rng.uniform() < 0.6  # mostly valid input for them
    n_items = int(rng.choice([1, 2, 3, 5, 12, 40, 120]))
    epochs_kind = "one" if proportion else ["one", "equal", "unequal"][k % 3]
    if epochs_kind == "one":
        reps = np.ones(n_items, dtype=np.int64)
    elif epochs_kind == "equal":
        reps = np.full(n_items, int(rng.integers(2, 5)), dtype=np.int64)
    else:
        reps = rng.integers(1, 5, size=n_items)
    cluster_kind = "none" if proportion else ["none", "few", "many", "singleton", "one", "none"][(k // 3) % 6]
    if cluster_kind == "none":
        item_cluster = None
    elif cluster_kind == "few":
        item_cluster = rng.integers(0, int(rng.integers(2, 6)), size=n_items)
    elif cluster_kind == "many":
        item_cluster = rng.integers(0, max(1, n_items // 3), size=n_items)
    elif cluster_kind == "singleton":
        item_cluster = np.arange(n_items)
    else:
        item_cluster = np.zeros(n_items, dtype=np.int64)
    item_of_row = np.repeat(np.arange(n_items), reps)
    n_rows = item_of_row.size
    kind = "binary" if proportion and rng.uniform() < 0.8 else KINDS[int(rng.integers(0, len(KINDS)))]
    if kind == "binary":
        p = rng.uniform(0, 1, size=n_items)[item_of_row]
        values = (rng.uniform(size=n_rows) < p).astype(float)
    elif kind == "unit":
        values = rng.uniform(0, 1, size=n_rows)
    elif kind == "normal":
        values = rng.normal(rng.normal(0, 1, size=n_items)[item_of_row], 1.0)
    elif kind == "negative":
        values = -np.abs(rng.normal(5, 2, size=n_rows))
    elif kind == "huge":
        values = rng.uniform(0.5, 1.0, size=n_rows) * 1.7e308 * rng.choice([-1.0, 1.0], size=n_rows)
    elif kind == "zero-dyadic":
        values = np.full(n_rows, 0.5)
    elif kind == "zero-unbounded":
        values = np.full(n_rows, -3.0)
    elif kind == "zero-odd":
        values = np.full(n_rows, 0.7)
    elif kind == "binary-ones":
        values = np.full(n_rows, float(rng.integers(0, 2)))
    else:
        values = rng.normal(0, 1e-200, size=n_rows)
    order = rng.permutation(n_rows)
    item_labels = rng.permutation(10 * n_items + 7)[:n_items] + 3  # distinct, not 0..n-1
    return {
        "values": values[order],
        "items": item_labels[item_of_row][order],
        "clusters": None if item_cluster is None else (item_cluster * 5 + 1)[item_of_row][order],
        "level": float(rng.choice([0.9, 0.95, 0.99])),
        "method": method,
        "cluster_method": "cr1" if k % 4 == 1 else "cr2",
        "kind": f"{kind}/{epochs_kind}/{cluster_kind}",
    }


def cases(seed: int = 20261201) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    return [_case(rng, k) for k in range(N_CASES)]


def run(case: dict[str, Any], values: Any = None, items: Any = None, clusters: Any = None) -> Any:
    """``estimate_mean`` on a case (or on other arrays with the case's options); a ValueError's text."""
    try:
        return estimate_mean(case["values"] if values is None else values,
                             case["items"] if items is None else items,
                             case["clusters"] if clusters is None else clusters,
                             level=case["level"], method=case["method"], cluster_method=case["cluster_method"],
                             n_resamples=N_RESAMPLES, seed=3)
    except ValueError as e:
        return f"ValueError: {e}"


def encode(value: Any) -> Any:
    """A result as plain JSON with every float as ``float.hex`` (bit-exact, NaN/inf included)."""
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    if isinstance(value, float):
        return value.hex() if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


def input_digest(case: dict[str, Any]) -> str:
    """sha256 of a case's inputs: the fixture notices if the generator drifts."""
    h = hashlib.sha256()
    for key in ("values", "items", "clusters"):
        arr = case[key]
        h.update(b"-" if arr is None else np.ascontiguousarray(arr).tobytes())
    h.update(f"{case['level']}|{case['method']}|{case['cluster_method']}".encode())
    return h.hexdigest()[:16]
