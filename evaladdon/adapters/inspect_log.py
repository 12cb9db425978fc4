"""Inspect AI logs (``.eval`` zips and ``.json``, also JSON logs with other names) -> rows.

Reads through ``inspect_ai.log``: the header (``header_only=True``) and the sample
*summaries* (``read_eval_log_sample_summaries``), which carry ids, epochs, scores,
metadata, errors and limits without the transcripts.  Unfinished runs whose zip holds only
``_journal/`` files and samples are rebuilt by Inspect from the journal.  Inspect's
JSON reader also converts log format versions 1 and 2 (the old
``results.scorer``/``results.metrics`` layout, bare ``NaN`` literals) and 2024 logs with
``transcript`` instead of ``events``.

Values go through Inspect's ``value_to_float`` (C/I/P/N, yes/no/true/false, bools,
numeric strings), but only values it can really convert: for anything else it logs a
warning and returns 0, which would silently score the sample wrong, so such values are
kept with the reason ``non-numeric value`` instead.  Dict-valued scores become one metric
per key (``scorer/key``); samples with an error or without a score are kept as rows
with the reason in ``error``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evaladdon.adapters.scores import MISSING, NON_FINITE, NON_NUMERIC, raw_strings
from evaladdon.errors import InputError
from evaladdon.table import finalize

_INSPECT_HINT = "pip install 'evaladdon[inspect]'"
_VERSION_RE = re.compile(r"version (\d+) of log format")


def _inspect() -> Any:
    try:
        import inspect_ai.log as inspect_log
    except ImportError:  # pragma: no cover - exercised without the extra
        raise InputError(f"reading Inspect logs needs inspect-ai: {_INSPECT_HINT}") from None
    return inspect_log


def _inspect_version() -> str:
    try:
        import inspect_ai

        return str(getattr(inspect_ai, "__version__", "?"))
    except ImportError:  # pragma: no cover
        return "not installed"


def dotted(obj: Any, path: str) -> Any:
    """``a.b.c`` lookup in nested dicts (``None`` when any step is missing)."""
    cur = obj
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def _convertible(value: Any) -> tuple[bool, str | None]:
    """Whether ``value_to_float`` converts it for real, else the reason it cannot."""
    if value is None:
        return False, MISSING
    if isinstance(value, bool):
        return True, None
    if isinstance(value, (int, float)):
        return (True, None) if math.isfinite(value) else (False, NON_FINITE)
    if isinstance(value, str):
        s = value.strip()
        if s in ("C", "I", "P", "N") or s.lower() in ("yes", "no", "true", "false"):
            return True, None
        try:
            f = float(s)
        except ValueError:
            return False, NON_NUMERIC
        return (True, None) if math.isfinite(f) else (False, NON_FINITE)
    return False, NON_NUMERIC


def _read(path: Path, header_only: bool, inspect_log: Any) -> Any:
    """Header (or summaries) through Inspect; ``.txt`` and other names as a byte stream."""
    try:
        if path.suffix.lower() in (".eval", ".json"):
            if header_only:
                return inspect_log.read_eval_log(str(path), header_only=True)
            return inspect_log.read_eval_log_sample_summaries(str(path))
        with path.open("rb") as fh:  # a JSON log under another name: Inspect sniffs the bytes
            return inspect_log.read_eval_log(fh)
    except InputError:
        raise
    except Exception as exc:  # Inspect raises several types; make each one line
        text = " ".join(str(exc).split())
        m = _VERSION_RE.search(text)
        if m:
            raise InputError(
                f"log format version {m.group(1)} is newer than the installed inspect-ai {_inspect_version()} "
                "can read; upgrade inspect-ai",
                str(path),
            ) from None
        raise InputError(f"cannot read as an Inspect log ({type(exc).__name__}: {text[:200]})", str(path)) from None


def _summaries_of(path: Path, inspect_log: Any, header: Any) -> list[Any]:
    if path.suffix.lower() in (".eval", ".json"):
        return list(_read(path, False, inspect_log) or [])
    # a JSON log under another name was read whole: summarise its samples ourselves
    return list(header.samples or [])


def read_inspect_log(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """Canonical rows of one Inspect log (see module docstring)."""
    p = Path(path)
    inspect_log = _inspect()
    header = _read(p, True, inspect_log)
    spec = header.eval
    run = spec.eval_id or f"{spec.run_id}:{spec.task_id}"
    summaries = _summaries_of(p, inspect_log, header)
    result_names = [s.name for s in (header.results.scores if header.results else [])]
    known_names = list(dict.fromkeys(result_names))
    for s in summaries:
        for name in (s.scores or {}):
            if name not in known_names:
                known_names.append(name)

    items: list[str] = []
    epochs: list[int] = []
    metrics: list[str] = []
    raws: list[Any] = []
    errors: list[str | None] = []
    clusters: list[str | None] = []
    metas: list[dict[str, Any]] = []
    for s in summaries:  # one pass over samples (not rows of the table)
        item = str(s.id)
        cluster_value = None
        if cluster is not None:
            cluster_value = dotted(s.metadata or {}, cluster)
            if cluster_value is None or isinstance(cluster_value, (dict, list)):
                raise InputError(
                    f"sample {item!r} (epoch {s.epoch}) has no scalar metadata field {cluster!r} to cluster on",
                    str(p),
                )
            cluster_value = str(cluster_value)
        meta = {f"meta.{k}": v for k, v in (s.metadata or {}).items() if isinstance(v, (str, int, float, bool))}
        sample_error: str | None = None
        if s.error:
            sample_error = "sample error"
        elif s.limit is not None and not s.scores:
            sample_error = f"limit reached ({getattr(s.limit, 'type', s.limit)})"
        entries: list[tuple[str, Any, str | None]] = []
        scores = s.scores or {}
        for name, score in scores.items():
            value = score.value
            if isinstance(value, dict):
                for key, v in value.items():
                    entries.append((f"{name}/{key}", v, None))
            else:
                entries.append((name, value, None))
        if not scores:
            reason = sample_error or "unscored sample"
            entries = [(name, None, reason) for name in (known_names or ["score"])]
        for metric, value, why in entries:
            items.append(item)
            epochs.append(int(s.epoch))
            metrics.append(metric)
            raws.append(value)
            errors.append(why)
            clusters.append(cluster_value)
            metas.append(meta)

    n = len(items)
    out = pd.DataFrame({"item": items, "epoch": epochs, "metric": metrics}) if n else pd.DataFrame(
        {"item": [], "epoch": [], "metric": []})
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    # convert each distinct raw value once (scores repeat: "C", "I", 0.5, ...); repr keys
    # make dict/list values hashable for factorize
    key_codes, uniques = pd.factorize(pd.Series([repr(v) for v in raws], dtype=object))
    _, first = np.unique(key_codes, return_index=True)  # first row of each distinct value
    unique_values = np.full(len(uniques), np.nan)
    unique_errors = np.full(len(uniques), None, dtype=object)
    for code, i in enumerate(first):  # a loop over distinct values, not rows
        ok, why = _convertible(raws[i])
        if ok:
            unique_values[code] = float(to_float(raws[i]))
        else:
            unique_errors[code] = why
    sample_reason = np.array(errors, dtype=object)
    has_reason = pd.Series(errors, dtype=object).notna().to_numpy()
    out["value"] = np.where(has_reason, np.nan, unique_values[key_codes]) if n else []
    out["raw"] = raw_strings(pd.Series(raws, dtype=object)).to_numpy() if n else []
    out["error"] = np.where(has_reason, sample_reason, unique_errors[key_codes]) if n else []
    out["cluster"] = clusters if n else []
    out["run"] = run
    out["task"] = spec.task
    out["model"] = spec.model
    out["source"] = str(p)
    out["harness"] = "inspect"
    out["item_hash"] = None
    if n and any(metas):
        meta_df = pd.DataFrame.from_records(metas)
        for col in meta_df.columns:
            if col not in out:
                out[col] = meta_df[col].to_numpy()
    df = finalize(out)
    df.attrs["notes"] = _notes(p, header, n, len(summaries))
    return df


def _notes(p: Path, header: Any, n_rows: int, n_samples: int) -> list[str]:
    notes = []
    status = header.status
    if status != "success":
        notes.append(f"{p}: log status is {status!r}" + (f" ({n_samples} sample(s) recorded)" if n_samples else ""))
    if n_samples == 0:
        notes.append(f"{p}: the log holds no samples, so it adds no rows")
    return notes


_LOG_START = re.compile(r'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


def is_inspect_json(first: bytes) -> bool:
    """Whether a JSON file starts like an Inspect log: ``{"version": N, "status": ...``."""
    return bool(_LOG_START.match(first.decode("utf-8", errors="replace")))
