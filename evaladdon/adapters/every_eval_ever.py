"""Every Eval Ever (evaleval/every_eval_ever, schema 0.2-0.3) -> canonical rows.

The shared results schema has two files per evaluation run (``data/<source>/<developer>/<model>/``):

- the aggregate record ``<uuid>.json`` (``eval.schema.json``): ``evaluation_id``, ``model_info``,
  ``eval_library`` and ``evaluation_results[]``, each with ``evaluation_name``, ``metric_config``
  (``metric_id``/``metric_name``) and ``score_details`` (``score``, ``uncertainty``:
  ``standard_error.value``, ``confidence_interval``, ``num_samples``);
- the instance-level records ``<uuid>_samples.jsonl`` (``instance_level_eval.schema.json``), one
  line per sample: ``evaluation_id``, ``model_id``, ``evaluation_name``, ``evaluation_result_id``,
  ``sample_id``, ``sample_hash``, ``evaluation.score``, ``error``, ``metadata``.

Instance records become rows: run = ``evaluation_id``, task = ``evaluation_name``, model =
``model_id``, metric = the ``metric_id`` (else ``metric_name``) of the aggregate result the record's
``evaluation_result_id`` (else its ``evaluation_name``) points to, ``score`` without one; item =
``sample_id``, item_hash = ``sample_hash``; epoch = ``metadata.epoch`` when logged (evaladdon's
exports write it), else the record's order among those of its sample.  A record with no numeric
score keeps its ``error`` (or "missing value") as the row's reason.  With the aggregate beside it,
a note says whether the mean of the rows reproduces each aggregate score, and the rows an
evaladdon export left out (``score_details.details.left_out_records``: a JSON array of
``{sample_id, sample_hash, error, score, metadata}``, :mod:`evaladdon.report.every_eval_ever`)
become rows again with their reasons.

An aggregate record read alone gives harness-reported values (``attrs["reported"]``: the score,
its standard error and ``num_samples``) for the results the instance file beside it (if any)
does not hold; it is never read twice.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from evaladdon.adapters.common.jsondoc import load_json, type_name
from evaladdon.adapters.common.jsonlines import iter_json_lines
from evaladdon.adapters.common.scores import coerce_scores, raw_strings
from evaladdon.errors import InputError
from evaladdon.table import finalize
from evaladdon.table.direction import ATTR, EXPORTED_DIRECTIONS
from evaladdon.table.usable import MISSING_VALUE, NONFINITE

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")

__all__ = ["HARNESS", "looks_like_aggregate", "looks_like_instances", "read_aggregate", "read_instances"]

HARNESS = "every_eval_ever"
SAMPLES_SUFFIX = "_samples.jsonl"


def looks_like_aggregate(head: bytes) -> bool:
    """An aggregate record: an object with ``schema_version``, ``evaluation_id`` and (within the
    first bytes) ``source_metadata``/``model_info``/``evaluation_results``."""
    return head[:1] == b"{" and b'"schema_version"' in head and b'"evaluation_id"' in head and any(
        k in head for k in (b'"evaluation_results"', b'"source_metadata"', b'"model_info"'))


def looks_like_instances(head: bytes) -> bool:
    """Instance-level JSON lines: the first object has ``schema_version``, ``evaluation_id`` and ``sample_id``."""
    first = head.lstrip().split(b"\n", 1)[0]
    return first[:1] == b"{" and all(k in first for k in (b'"schema_version"', b'"evaluation_id"', b'"sample_id"'))


# ---------------------------------------------------------------- aggregate


def _aggregate_doc(path: Path) -> dict[str, Any]:
    doc = load_json(path)
    if not isinstance(doc, dict):
        raise InputError(f"expected an Every Eval Ever aggregate object, found {type_name(doc)}", str(path))
    results = doc.get("evaluation_results")
    if not isinstance(results, list):
        raise InputError(f"'evaluation_results' is {type_name(results)}, expected an array", str(path))
    return doc


def _obj(d: dict[str, Any], key: str) -> dict[str, Any]:
    """``d[key]`` when it is an object, else ``{}``."""
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def _metric_of(result: dict[str, Any]) -> str:
    cfg = _obj(result, "metric_config")
    for key in ("metric_id", "metric_name"):
        if isinstance(cfg.get(key), str) and cfg[key]:
            return str(cfg[key])
    return "score"


def declared_directions(doc: dict[str, Any] | None) -> dict[str, dict[str, bool]]:
    """Whether a lower score is better, as the aggregate record declares it
    (``evaluation_results[].metric_config.lower_is_better``), keyed as the rows are:
    ``{evaluation_name: {metric: bool}}`` (:mod:`evaladdon.table.direction`).

    An evaladdon export made before directions were known (``eval_library.additional_details``
    with ``statistics: evaladdon`` and no ``directions``) wrote ``false`` for every per-item
    metric whatever its direction: there only its ``true`` declarations count (the rest fall
    back on the built-in names)."""
    details = _obj(_obj(doc or {}, "eval_library"), "additional_details")
    unknowing = details.get("statistics") == "evaladdon" and EXPORTED_DIRECTIONS not in details
    out: dict[str, dict[str, bool]] = {}
    for res in (doc or {}).get("evaluation_results") or []:
        if isinstance(res, dict) and isinstance(_obj(res, "metric_config").get("lower_is_better"), bool):
            lower = _obj(res, "metric_config")["lower_is_better"]
            if unknowing and not lower:
                continue
            out.setdefault(str(res.get("evaluation_name") or "?"), {})[_metric_of(res)] = lower
    return out



def _result_key(result: dict[str, Any]) -> str:
    return str(result.get("evaluation_result_id") or result.get("evaluation_name"))


def _model_of(doc: dict[str, Any]) -> str:
    info = _obj(doc, "model_info")
    return str(info.get("id") or info.get("name") or "unknown")


def _number(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def _uncertainty(result: dict[str, Any]) -> tuple[float | None, int | None]:
    details = _obj(result, "score_details")
    unc = _obj(details, "uncertainty")
    se = _obj(unc, "standard_error")
    n = unc.get("num_samples")
    # a count below 1 is no sample size (shown as unknown, never as n = -5)
    return _number(se.get("value")), n if isinstance(n, int) and not isinstance(n, bool) and n >= 1 else None


def samples_path_of(aggregate: Path, doc: dict[str, Any]) -> Path | None:
    """The instance file beside an aggregate record (``detailed_evaluation_results.file_path``'s
    name, else ``<stem>_samples.jsonl``), if present."""
    detail = _obj(doc, "detailed_evaluation_results")
    names = [Path(str(detail["file_path"])).name] if isinstance(detail.get("file_path"), str) else []
    names.append(aggregate.stem + SAMPLES_SUFFIX)
    return next((aggregate.parent / n for n in names if (aggregate.parent / n).is_file()), None)


def _instance_keys(path: Path) -> set[str]:
    return {str(r.get("evaluation_result_id") or r.get("evaluation_name"))
            for _, r in iter_json_lines(path) if isinstance(r, dict)}


def read_aggregate(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """An aggregate record: no rows; its scores as harness-reported values (module docstring)."""
    from evaladdon.table import empty_table

    p = Path(path)
    doc = _aggregate_doc(p)
    run, model = str(doc.get("evaluation_id") or p.stem), _model_of(doc)
    samples = samples_path_of(p, doc)
    covered = _instance_keys(samples) if samples is not None else set()
    reported: list[dict[str, Any]] = []
    skipped = 0
    for res in doc["evaluation_results"]:
        if not isinstance(res, dict):
            skipped += 1
            continue
        details = _obj(res, "score_details")
        value = _number(details.get("score"))
        if _result_key(res) in covered:
            continue
        if value is None:
            skipped += 1
            continue
        se, n = _uncertainty(res)
        reported.append({"run": run, "source": str(p), "task": str(res.get("evaluation_name") or "?"), "model": model,
                         "metric": _metric_of(res), "value": value, "stderr": se, "n": n})
    notes = [f"{p}: Every Eval Ever aggregate: {len(reported)} reported score(s), unclustered and unpaired"
             + (f"; {len(covered)} result(s) read from the instance-level records {samples.name}" if samples else "")]
    if skipped:
        notes.append(f"{p}: {skipped} Every Eval Ever result(s) with no numeric score left out")
    table = empty_table()
    table.attrs["notes"] = notes
    table.attrs["reported"] = reported
    declared = declared_directions(doc)
    if declared:
        table.attrs[ATTR] = declared
    return table


# ---------------------------------------------------------------- instances


def _aggregate_beside(path: Path) -> tuple[Path | None, dict[str, Any] | None]:
    stem = path.name[: -len(SAMPLES_SUFFIX)] if path.name.endswith(SAMPLES_SUFFIX) else path.stem
    agg = path.parent / f"{stem}.json"
    if not agg.is_file():
        return None, None
    try:
        return agg, _aggregate_doc(agg)
    except InputError:
        return agg, None


LEFT_OUT = "left_out_records"
"""The ``score_details.details`` key where evaladdon's export keeps the rows it left out."""


def _left_out_records(agg: dict[str, Any] | None, agg_path: Path | None,
                      orphans: Sequence[tuple[dict[str, Any], str, Any]] = ()) -> list[dict[str, Any]]:
    """The rows an evaladdon export left out, as instance records (``evaluation.score`` null or
    the non-finite value, ``error`` as logged), read from the aggregate's results and from the
    ``orphans`` (:func:`orphan_left_out`: the (task, metric) pairs left out entirely)."""
    out: list[dict[str, Any]] = []
    if agg is None:
        return out
    head = {"schema_version": agg.get("schema_version"), "evaluation_id": agg.get("evaluation_id"),
            "model_id": _model_of(agg)}
    groups: list[tuple[str, dict[str, Any], Any]] = []
    for k, res in enumerate(agg.get("evaluation_results", [])):
        text = _obj(_obj(res, "score_details"), "details").get(LEFT_OUT) if isinstance(res, dict) else None
        if isinstance(text, str):
            where = {"evaluation_name": res.get("evaluation_name"), "evaluation_result_id": _result_key(res)}
            groups.append((f"evaluation_results[{k}]: details.{LEFT_OUT}", where, _json_array(text, k, agg_path)))
    for where, _, rows in orphans:
        groups.append((f"eval_library.additional_details.{LEFT_OUT}", where, rows))
    for said, where, rows in groups:
        if not isinstance(rows, list) or not all(isinstance(r, dict) and "sample_id" in r for r in rows):
            raise InputError(f"{said} is not an array of records with a sample_id", str(agg_path))
        # the reason the table gave the row: its error, else a non-finite value (kept as text: JSON
        # has no inf), else a missing value (table.usable.unusable_reasons)
        out.extend({**head, **where, "sample_id": r["sample_id"], "sample_hash": r.get("sample_hash"),
                    "error": r.get("error") or (f"{NONFINITE} (inf)" if r.get("score") in ("inf", "-inf")
                                                else MISSING_VALUE),
                    "evaluation": {"score": None}, "metadata": r.get("metadata")} for r in rows)
    return out


def _json_array(text: str, k: int | str, agg_path: Path | None) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        said = f"evaluation_results[{k}]: details" if isinstance(k, int) else k
        raise InputError(f"{said}.{LEFT_OUT} is not a JSON array ({exc})", str(agg_path)) from None


def orphan_left_out(agg: dict[str, Any] | None, agg_path: Path | None) -> list[tuple[dict[str, Any], str, Any]]:
    """The rows of each (task, metric) an evaladdon export left out entirely (no score, so no
    result entry): ``eval_library.additional_details.left_out_records``, as (where, metric,
    records), ``where`` with ``evaluation_result_id`` ``task/metric``."""
    text = _obj(_obj(agg or {}, "eval_library"), "additional_details").get(LEFT_OUT)
    if not isinstance(text, str):
        return []
    groups = _json_array(text, "eval_library.additional_details", agg_path)
    if not isinstance(groups, list) or not all(isinstance(g, dict) and isinstance(g.get("evaluation_name"), str)
                                               and isinstance(g.get("metric_id"), str) for g in groups):
        raise InputError(f"eval_library.additional_details.{LEFT_OUT} is not an array of "
                         "{evaluation_name, metric_id, records}", str(agg_path))
    return [({"evaluation_name": g["evaluation_name"], "evaluation_result_id": f"{g['evaluation_name']}/{g['metric_id']}"},
             g["metric_id"], g.get("records")) for g in groups]


def _records(path: Path, left_out: Sequence[dict[str, Any]] = ()) -> pd.DataFrame:
    """The instance records as columns (one parse per line; nested fields flattened by pandas),
    then the rows an export left out (:func:`_left_out_records`)."""
    rows = []
    for lineno, rec in iter_json_lines(path):
        if not isinstance(rec, dict):
            raise InputError(f"line {lineno}: expected an object, found {type_name(rec)}", str(path))
        rows.append(rec)
    if not rows:
        raise InputError("no instance records", str(path))
    rows.extend(left_out)
    frame = pd.json_normalize(rows, max_level=1)
    for need in ("evaluation_id", "sample_id", "evaluation_name"):
        if need not in frame or frame[need].isna().any():
            k = int(np.flatnonzero(frame[need].isna().to_numpy())[0]) + 1 if need in frame else 1
            raise InputError(f"record {k}: no {need!r}", str(path))
    return frame


def read_instances(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """Instance-level records (``*_samples.jsonl``) into canonical rows (module docstring)."""
    p = Path(path)
    where = str(p)
    agg_path, agg = _aggregate_beside(p)
    orphans = orphan_left_out(agg, agg_path)
    frame = _records(p, _left_out_records(agg, agg_path, orphans))
    metric_by_key = {**{w["evaluation_result_id"]: m for w, m, _ in orphans},
                     **{_result_key(r): _metric_of(r) for r in (agg or {}).get("evaluation_results", [])
                        if isinstance(r, dict)}}
    key = (frame["evaluation_result_id"].where(frame["evaluation_result_id"].notna(), frame["evaluation_name"])
           if "evaluation_result_id" in frame else frame["evaluation_name"]).astype(str)
    metric = key.map(metric_by_key).astype(object)
    metric = metric.where(metric.notna(), "score")
    score = frame["evaluation.score"] if "evaluation.score" in frame else pd.Series(np.nan, index=frame.index)
    values, errors = coerce_scores(score)
    if "error" in frame:
        logged = frame["error"].where(frame["error"].notna(), None)
        errors = errors.where(errors.isna() | logged.isna(), logged.astype(object))
    item = frame["sample_id"].astype(str)
    epoch = _epochs(frame, key, item)
    model = frame["model_id"].astype(str) if "model_id" in frame else pd.Series(_model_of(agg or {}), index=frame.index)
    out = pd.DataFrame({
        "run": frame["evaluation_id"].astype(str), "source": where, "harness": HARNESS,
        "task": frame["evaluation_name"].astype(str), "model": model, "metric": metric.to_numpy(),
        "item": item.to_numpy(), "epoch": epoch, "value": values, "raw": raw_strings(score).to_numpy(),
        "cluster": None, "item_hash": frame["sample_hash"].where(frame["sample_hash"].notna(), None).to_numpy()
        if "sample_hash" in frame else None, "error": errors.to_numpy(),
    })
    if cluster is not None:
        col = f"metadata.{cluster}"
        if col not in frame or frame[col].isna().any():
            raise InputError(f"some Every Eval Ever records have no metadata field {cluster!r} to cluster on", where)
        out["cluster"] = frame[col].astype(str).to_numpy()
    out = finalize(out)
    notes = _check(out, agg, agg_path) if agg is not None and agg_path is not None else [
        f"{where}: no Every Eval Ever aggregate record beside it; metric named 'score', values not checked"]
    out.attrs["notes"] = notes
    declared = declared_directions(agg)
    if declared:
        out.attrs[ATTR] = declared
    return out


def _epochs(frame: pd.DataFrame, key: pd.Series, item: pd.Series) -> np.ndarray:
    """``metadata.epoch`` when every record logs it, else the order among the records of one sample."""
    if "metadata" in frame or "metadata.epoch" in frame:
        logged = pd.to_numeric(frame.get("metadata.epoch"), errors="coerce") if "metadata.epoch" in frame else None
        if logged is not None and logged.notna().all() and bool((logged >= 1).all()):
            return logged.to_numpy(dtype=np.int64)
    both = pd.DataFrame({"k": key.to_numpy(), "i": item.to_numpy()})
    return both.groupby(["k", "i"], sort=False).cumcount().to_numpy(dtype=np.int64) + 1


def _check(out: pd.DataFrame, agg: dict[str, Any], agg_path: Path) -> list[str]:
    """Whether the mean of the usable rows (items averaged over epochs) reproduces each aggregate score."""
    ok, notes = [], []
    usable = out[out["error"].isna()]
    for res in agg.get("evaluation_results", []):
        if not isinstance(res, dict) or (score := _number(_obj(res, "score_details").get("score"))) is None:
            continue
        task, metric = str(res.get("evaluation_name")), _metric_of(res)
        rows = usable[(usable["task"] == task) & (usable["metric"] == metric)]
        if rows.empty:
            continue
        mean = float(rows.groupby("item")["value"].mean().mean())
        if math.isclose(mean, score, rel_tol=1e-6, abs_tol=1e-9):
            ok.append(f"{task}/{metric}")
        else:
            notes.append(f"{agg_path}: the aggregate reports {task}/{metric} = {score!r}; the mean of the "
                         f"{rows['item'].nunique()} instance(s) is {mean!r} (DOES NOT reproduce it)")
    if ok:
        notes.insert(0, f"{agg_path}: the instance-level records reproduce the aggregate score(s) of {', '.join(ok)}")
    return notes

