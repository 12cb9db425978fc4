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
(items); ``metric_config.lower_is_better`` is the metric's direction by the one rule
(:func:`evaladdon.table.direction.lower_is_better`: what the logs declared, else the built-in
names of lower-is-better metrics).  Rows left out (errors, unscored values) are not instance records (the schema's
``evaluation.score`` must be a number); their count and reasons are in ``score_details.details``
(``n_dropped``, ``dropped``), and the rows themselves in ``details.left_out_records`` (the schema's
details are strings: a JSON array of ``{sample_id, sample_hash, error, score, metadata}`` with
``error`` as logged and ``score`` null or the non-finite value as text), which the reader
(:mod:`evaladdon.adapters.every_eval_ever`) turns back into the same rows, so a read-export-read
round trip keeps every count of rows left out.  A (task, metric) whose every row was left out has
no score and so no ``evaluation_results`` entry (the schema requires a number): its rows are in
``eval_library.additional_details.left_out_records`` (a JSON array of ``{evaluation_name,
metric_id, records}``), read back the same way.  Corpus-level metrics (lm-eval's f1, bleu, ...:
per-item inputs, not scores; :func:`evaladdon.analysis.corpus.corpus_level_estimates`) are
``evaluation_results`` entries of their own, with the bootstrap interval and no instance
records (``details.corpus_level`` = ``"true"``); read back they are reported scores.  ``is_correct`` (required by the instance schema) is ``score == 1``
for 0/1 metrics and ``score >= max`` otherwise (an upper bound of a continuous score: rarely true).
The schema has no field for the input text, which the canonical table does not keep: ``input.raw``
is empty and ``input.reference`` an empty list; ``output.raw`` (the responses) is empty too.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from evaladdon.table.direction import EXPORTED_DIRECTIONS, Declared, declared_in, lower_is_better

SCHEMA_VERSION = "0.3.0"
_LIBRARY = {"inspect": "inspect_ai", "lm_eval": "lm_eval", "helm": "helm", "promptfoo": "promptfoo",
            "deepeval": "deepeval", "lighteval": "lighteval", "table": "unknown", "every_eval_ever": "unknown"}
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
LEFT_OUT = "left_out_records"
"""The ``score_details.details`` key of a result's rows left out (a JSON array as text)."""
CORPUS = "corpus_level"
"""The ``score_details.details`` key marking a corpus-level metric's result."""


def run_uuid(run: str) -> str:
    """A version-4 UUID derived from the run's name (sha256; the version and variant bits set)."""
    return str(uuid.UUID(bytes=hashlib.sha256(run.encode("utf-8")).digest()[:16], version=4))


def _slug(text: str) -> str:
    return _SAFE.sub("_", text).strip("._") or "unknown"


def _model_parts(model: str) -> tuple[str, str]:
    dev, _, name = model.rpartition("/")
    return (dev or "unknown"), (name or model)


def _result(s: Any, level: float, declared: Declared | None = None) -> dict[str, Any]:
    """One ``evaluation_results`` entry from a summary (:class:`~evaladdon.analysis.summarize.GroupSummary`);
    ``metric_config.lower_is_better`` by the one rule (:func:`evaladdon.table.direction.lower_is_better`
    of the directions the logs declare, ``declared``, and the built-in names)."""
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
    lower = lower_is_better(str(s.task), str(s.metric), declared)
    metric_config: dict[str, Any] = {"metric_id": s.metric, "metric_name": s.metric, "lower_is_better": lower,
                                     "score_type": "continuous"}
    if binary:
        metric_config.update({"metric_unit": "proportion", "min_score": 0.0, "max_score": 1.0})
    else:  # the schema requires both for a continuous score; null: not provided
        metric_config.update({"min_score": None, "max_score": None})
    return {"evaluation_result_id": f"{s.task}/{s.metric}", "evaluation_name": s.task,
            "source_data": {"dataset_name": s.task, "source_type": "other"},
            "metric_config": metric_config,
            "score_details": {"score": float(e.mean), "details": details, "uncertainty": unc}}


def _corpus_result(task: str, e: Any, declared: Declared | None = None) -> dict[str, Any]:
    """One ``evaluation_results`` entry of a corpus-level metric (a
    :class:`~evaladdon.stats.families.estimates.MetricEstimate`: the bootstrap interval)."""
    unc: dict[str, Any] = {"num_samples": int(e.n_items)}
    if e.se is not None and np.isfinite(e.se):
        unc["standard_error"] = {"value": float(e.se), "method": str(e.method)}
    if np.isfinite(e.ci_low) and np.isfinite(e.ci_high):
        unc["confidence_interval"] = {"lower": float(e.ci_low), "upper": float(e.ci_high),
                                      "confidence_level": float(e.level), "method": str(e.method)}
    details = {"n_items": str(e.n_items), "estimator": "evaladdon", CORPUS: "true"}
    if e.n_clusters is not None:
        details["n_clusters"] = str(e.n_clusters)
    if e.notes:
        details["notes"] = "; ".join(e.notes)
    lower = lower_is_better(task, e.name, declared)
    return {"evaluation_result_id": f"{task}/{e.name}", "evaluation_name": task,
            "source_data": {"dataset_name": task, "source_type": "other"},
            "metric_config": {"metric_id": e.name, "metric_name": e.name, "lower_is_better": lower,
                              "score_type": "continuous", "min_score": None, "max_score": None},
            "score_details": {"score": float(e.estimate), "details": details, "uncertainty": unc}}


def _left_out(bad: Any) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The rows left out of a run, per (task, metric), as ``details.left_out_records`` entries:
    the error as logged (None for an unscored or non-finite value), the non-finite value as text."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    if bad.empty:
        return out
    vals = bad["value"].to_numpy(dtype=float)
    shown = np.full(len(vals), None, dtype=object)  # null, or the non-finite value as text
    shown[np.isposinf(vals)], shown[np.isneginf(vals)] = "inf", "-inf"
    errors = bad["error"].astype(object).where(bad["error"].notna(), None).to_numpy()
    hashes = bad["item_hash"].astype(object).where(bad["item_hash"].notna(), None).to_numpy()
    clusters = bad["cluster"].astype(object).where(bad["cluster"].notna(), None).to_numpy()
    for i, task, metric, item, epoch in zip(range(len(bad)), bad["task"].astype(str), bad["metric"].astype(str),
                                            bad["item"].astype(str), bad["epoch"], strict=True):
        meta = {"epoch": str(int(epoch))}
        if clusters[i] is not None:
            meta["cluster"] = str(clusters[i])
        out.setdefault((task, metric), []).append({"sample_id": item, "sample_hash": hashes[i], "error": errors[i],
                                                   "score": shown[i], "metadata": meta})
    return out


def _instances(good: Any, run: str, model: str, binary: dict[tuple[str, str], bool]) -> list[dict[str, Any]]:
    """The instance records of a run's usable rows (one dict per row: the file's lines)."""
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


def eee_records(table: Any, summaries: list[Any], level: float = 0.95, retrieved: str | None = None,
                corpus: Sequence[tuple[str, str, Any]] = ()) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """(relative folder, aggregate record, instance records) per run of ``table``; ``corpus`` the
    corpus-level estimates ``(run, task, estimate)`` of :func:`~evaladdon.analysis.corpus.corpus_level_estimates`."""
    from evaladdon.table.usable import CORPUS_LEVEL_PREFIX, unusable_reasons

    stamp = retrieved or f"{time.time():.0f}"
    declared = declared_in(table)
    by_run: dict[str, list[Any]] = {}
    for s in summaries:
        by_run.setdefault(s.run, []).append(s)
    corpus_by_run: dict[str, list[dict[str, Any]]] = {}
    for run, task, est in corpus:
        corpus_by_run.setdefault(str(run), []).append(_corpus_result(str(task), est, declared))
    out = []
    for run, rows in table.groupby("run", sort=True, observed=True):
        run = str(run)
        model = str(rows["model"].iloc[0])
        dev, name = _model_parts(model)
        folder = f"data/evaladdon/{_slug(dev)}/{_slug(name)}"
        sums = by_run.get(run, [])
        binary = {(str(s.task), str(s.metric)): bool(s.flat().get("binary")) for s in sums}
        bad, reasons = unusable_reasons(rows["value"].to_numpy(dtype=float), rows["error"].to_numpy(dtype=object))
        corpus_rows = np.zeros(len(rows), dtype=bool)
        if reasons is not None:  # a corpus-level metric's per-item inputs: its own result, not rows left out
            corpus_rows[np.flatnonzero(bad)] = [str(r).startswith(CORPUS_LEVEL_PREFIX) for r in reasons]
        left = _left_out(rows[bad & ~corpus_rows])
        results = []
        for s in sums:
            res = _result(s, level, declared)
            if left.get((str(s.task), str(s.metric))):
                res["score_details"]["details"][LEFT_OUT] = json.dumps(left.pop((str(s.task), str(s.metric))))
            results.append(res)
        harness = str(rows["harness"].iloc[0])
        library: dict[str, str] = {"statistics": "evaladdon", EXPORTED_DIRECTIONS: "declared by the logs, else well-known names"}
        if left:  # a (task, metric) whose every row was left out has no score, so no result entry
            library[LEFT_OUT] = json.dumps([{"evaluation_name": t, "metric_id": m, "records": recs}
                                            for (t, m), recs in sorted(left.items())])
        agg = {"schema_version": SCHEMA_VERSION, "evaluation_id": run, "retrieved_timestamp": stamp,
               "source_metadata": {"source_name": "evaladdon", "source_type": "evaluation_run",
                                   "source_organization_name": "evaladdon", "evaluator_relationship": "other",
                                   "additional_details": {"source_files": ", ".join(sorted(map(str, rows["source"].unique())))}},
               "eval_library": {"name": _LIBRARY.get(harness, harness), "version": "unknown",
                                "additional_details": library},
               "model_info": {"name": name, "id": model, "developer": dev,
                              "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"}},
               "evaluation_results": results + corpus_by_run.get(run, [])}
        out.append((folder, agg, _instances(rows[~bad], run, model, binary)))
    return out


def write_eee(table: Any, summaries: list[Any], out_dir: Path, level: float = 0.95,
              retrieved: str | None = None, corpus: Sequence[tuple[str, str, Any]] = ()) -> list[Path]:
    """Write :func:`eee_records` under ``out_dir``; returns the aggregate files written."""
    import orjson

    from evaladdon._util.safe_write import atomic_path

    written = []
    for folder, agg, instances in eee_records(table, summaries, level, retrieved, corpus):
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
