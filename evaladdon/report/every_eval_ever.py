"""``export --format every-eval-ever``: the canonical table and its summaries as Every Eval Ever records.

One evaluation run per ``run`` of the table, written where the shared datastore keeps them
(evaleval/every_eval_ever, schema 0.3.0)::

    OUT/data/evaladdon/<developer>/<model>/<uuid>.json            the aggregate record (eval.schema.json)
    OUT/data/evaladdon/<developer>/<model>/<uuid>_samples.jsonl   one instance record per usable row

``<uuid>`` is a version-4 UUID made from the run's name (the same run gives the same file).  Each
(task, metric) is one ``evaluation_results`` entry whose ``score_details`` hold evaladdon's
estimate: ``score`` the mean over items (epochs averaged within an item), ``uncertainty`` its
``standard_error`` (the clustered CR2/CR1 SE when clusters are given, else the item-level SE:
DESIGN.md "Mean and SE"), ``confidence_interval`` (lower, upper, level and method: Wilson for
0/1 scores, t otherwise, CR2 with the Bell-McCaffrey df when clustered) and ``num_samples``
(items).  Rows left out (errors, unscored values) are not instance records (the schema's
``evaluation.score`` must be a number); their count and reasons are in ``score_details.details``
(``n_dropped``, ``dropped``).  ``is_correct`` (required by the instance schema) is ``score == 1``
for 0/1 metrics and ``score >= max`` otherwise (an upper bound of a continuous score: rarely true).
The schema has no field for the input text, which the canonical table does not keep: ``input.raw``
is empty and ``input.reference`` an empty list; ``output.raw`` (the responses) is empty too.
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA_VERSION = "0.3.0"
_LIBRARY = {"inspect": "inspect_ai", "lm_eval": "lm_eval", "helm": "helm", "promptfoo": "promptfoo",
            "deepeval": "deepeval", "lighteval": "lighteval", "table": "unknown", "every_eval_ever": "unknown"}
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def run_uuid(run: str) -> str:
    """A version-4 UUID derived from the run's name (sha256; the version and variant bits set)."""
    return str(uuid.UUID(bytes=hashlib.sha256(run.encode("utf-8")).digest()[:16], version=4))


def _slug(text: str) -> str:
    return _SAFE.sub("_", text).strip("._") or "unknown"


def _model_parts(model: str) -> tuple[str, str]:
    dev, _, name = model.rpartition("/")
    return (dev or "unknown"), (name or model)


def _result(s: Any, level: float) -> dict[str, Any]:
    """One ``evaluation_results`` entry from a summary (:class:`~evaladdon.analysis.summarize.GroupSummary`)."""
    e = s.estimate
    flat = s.flat()
    binary = bool(flat.get("binary"))
    clustered = flat.get("n_clusters") is not None
    unc: dict[str, Any] = {"num_samples": int(flat["n_items"])}
    se = flat.get("se")
    if se is not None and np.isfinite(se):
        unc["standard_error"] = {"value": float(se), "method": ("cluster-robust " + str(flat.get("method")))
                                 if clustered else "analytic (item level, epochs averaged within items)"}
    if e.ci_low is not None and e.ci_high is not None and np.isfinite(e.ci_low) and np.isfinite(e.ci_high):
        unc["confidence_interval"] = {"lower": float(e.ci_low), "upper": float(e.ci_high),
                                      "confidence_level": float(level), "method": str(flat.get("method"))}
    details = {"n_items": str(flat["n_items"]), "n_rows": str(flat.get("n_rows")), "n_epochs": str(flat.get("n_epochs")),
               "n_dropped": str(s.n_dropped), "estimator": "evaladdon"}
    if s.dropped:
        details["dropped"] = "; ".join(f"{k}: {v}" for k, v in sorted(s.dropped.items()))
    if clustered:
        details["n_clusters"] = str(flat["n_clusters"])
    metric_config: dict[str, Any] = {"metric_id": s.metric, "metric_name": s.metric, "lower_is_better": False,
                                     "score_type": "continuous"}
    if binary:
        metric_config.update({"metric_unit": "proportion", "min_score": 0.0, "max_score": 1.0})
    return {"evaluation_result_id": f"{s.task}/{s.metric}", "evaluation_name": s.task,
            "source_data": {"dataset_name": s.task, "source_type": "other"},
            "metric_config": metric_config,
            "score_details": {"score": float(e.mean), "details": details, "uncertainty": unc}}


def _instances(rows: Any, run: str, model: str, binary: dict[tuple[str, str], bool]) -> list[dict[str, Any]]:
    """The instance records of a run's usable rows (one dict per row: the file's lines)."""
    good = rows[rows["error"].isna() & rows["value"].notna()]
    if good.empty:
        return []
    vals = good["value"].to_numpy(dtype=float)
    keys = list(zip(good["task"].astype(str), good["metric"].astype(str), strict=True))
    is01 = np.array([binary.get(k, False) for k in keys], dtype=bool)
    correct = np.where(is01, vals == 1.0, vals >= 1.0)
    hashes = good["item_hash"].astype(object).where(good["item_hash"].notna(), None).to_numpy()
    clusters = good["cluster"].astype(object).where(good["cluster"].notna(), None).to_numpy()
    out = []
    for i, (task, metric), item, epoch in zip(range(len(good)), keys, good["item"].astype(str), good["epoch"],
                                             strict=True):  # one record per row: the file holds one line per row
        meta = {"epoch": str(int(epoch))}
        if clusters[i] is not None:
            meta["cluster"] = str(clusters[i])
        out.append({"schema_version": SCHEMA_VERSION, "evaluation_id": run, "model_id": model,
                    "evaluation_name": task, "evaluation_result_id": f"{task}/{metric}", "sample_id": item,
                    "sample_hash": hashes[i], "interaction_type": "single_turn",
                    "input": {"raw": "", "reference": []}, "output": {"raw": []}, "answer_attribution": [],
                    "evaluation": {"score": float(vals[i]), "is_correct": bool(correct[i])}, "metadata": meta})
    return out


def eee_records(table: Any, summaries: list[Any], level: float = 0.95,
                retrieved: str | None = None) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """(relative folder, aggregate record, instance records) per run of ``table``."""
    stamp = retrieved or f"{time.time():.0f}"
    by_run: dict[str, list[Any]] = {}
    for s in summaries:
        by_run.setdefault(s.run, []).append(s)
    out = []
    for run, rows in table.groupby("run", sort=True, observed=True):
        run = str(run)
        model = str(rows["model"].iloc[0])
        dev, name = _model_parts(model)
        folder = f"data/evaladdon/{_slug(dev)}/{_slug(name)}"
        sums = by_run.get(run, [])
        binary = {(str(s.task), str(s.metric)): bool(s.flat().get("binary")) for s in sums}
        harness = str(rows["harness"].iloc[0])
        agg = {"schema_version": SCHEMA_VERSION, "evaluation_id": run, "retrieved_timestamp": stamp,
               "source_metadata": {"source_name": "evaladdon", "source_type": "evaluation_run",
                                   "source_organization_name": "evaladdon", "evaluator_relationship": "other",
                                   "additional_details": {"source_files": ", ".join(sorted(map(str, rows["source"].unique())))}},
               "eval_library": {"name": _LIBRARY.get(harness, harness), "version": "unknown",
                                "additional_details": {"statistics": "evaladdon"}},
               "model_info": {"name": name, "id": model, "developer": dev,
                              "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"}},
               "evaluation_results": [_result(s, level) for s in sums]}
        out.append((folder, agg, _instances(rows, run, model, binary)))
    return out


def write_eee(table: Any, summaries: list[Any], out_dir: Path, level: float = 0.95,
              retrieved: str | None = None) -> list[Path]:
    """Write :func:`eee_records` under ``out_dir``; returns the aggregate files written."""
    import orjson

    from evaladdon._util.safe_write import atomic_path

    written = []
    for folder, agg, instances in eee_records(table, summaries, level, retrieved):
        uid = run_uuid(str(agg["evaluation_id"]))
        target = out_dir / folder
        target.mkdir(parents=True, exist_ok=True)
        lines = b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in instances)
        if instances:
            agg["detailed_evaluation_results"] = {
                "format": "jsonl", "file_path": f"{folder}/{uid}_samples.jsonl", "hash_algorithm": "sha256",
                "checksum": hashlib.sha256(lines).hexdigest(), "total_rows": len(instances)}
            with atomic_path(target / f"{uid}_samples.jsonl", []) as tmp:
                tmp.write_bytes(lines)
        with atomic_path(target / f"{uid}.json", []) as tmp:
            tmp.write_bytes(orjson.dumps(agg, option=orjson.OPT_INDENT_2))
        written.append(target / f"{uid}.json")
    return written
