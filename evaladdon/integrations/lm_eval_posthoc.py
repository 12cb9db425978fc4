"""Corrected standard errors for an lm-eval results file, written next to it.

For every task with logged samples: the harness's value and ``_stderr`` beside evaladdon's
item-level SE and, with ``cluster``, the CR1 clustered SE (and CR2), design effect and
cluster count.  For every group: lm-eval reports a group SE that pools subtask SEs as if
subtasks were independent; here the group's documents are pooled and clustered -- by the
named doc field, else by ``doc_hash`` -- so a document that appears in several subtasks
(overlapping subtasks) counts once as a unit, not as independent evidence.

The original results file is never altered; the output is ``<results stem>.evaladdon.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from evaladdon.adapters.lm_eval import read_results, read_samples
from evaladdon.errors import InputError
from evaladdon.stats import estimate_mean
from evaladdon.stats._base.result import json_safe
from evaladdon.table.usable import usable_rows


def samples_for(results_path: Path) -> list[Path]:
    ts = results_path.stem[len("results_"):] if results_path.stem.startswith("results_") else None
    if ts is None:
        return []
    return sorted(results_path.parent.glob(f"samples_*_{ts}.jsonl"))


def _estimate(rows: pd.DataFrame, clustered: bool, level: float) -> dict[str, Any]:
    e = estimate_mean(rows["value"].to_numpy(), rows["item"].to_numpy(),
                      rows["cluster"].to_numpy() if clustered else None, level=level)
    return {"mean": e.mean, "n_items": e.n_items, "se_item": e.se_item, "se_cluster": e.se_cluster,
            "se_cluster_cr2": e.se_cluster_cr2, "n_clusters": e.n_clusters, "deff": e.deff, "ci_low": e.ci_low,
            "ci_high": e.ci_high, "method": e.method, "notes": list(e.notes)}


def _subtasks(group: str, tree: dict[str, list[str]], seen: set[str] | None = None) -> list[str]:
    seen = seen or set()
    out: list[str] = []
    for t in tree.get(group, []):
        if t in seen:
            continue
        seen.add(t)
        out.extend(_subtasks(t, tree, seen) if t in tree else [t])
    return out


def posthoc(results_path: str | Path, cluster: str | None = None, level: float = 0.95) -> dict[str, Any]:
    """The corrected-SE report for one results file (see module docstring)."""
    rp = Path(results_path)
    results = read_results(rp)
    files = samples_for(rp)
    if not files:
        raise InputError("no samples_<task>_<timestamp>.jsonl next to this results file (run with --log_samples)",
                         str(rp))
    frames = [read_samples(f, cluster) for f in files]
    df = pd.concat(frames, ignore_index=True)
    good, dropped = usable_rows(df)
    report: dict[str, Any] = {"source": str(rp), "cluster": cluster, "level": level, "tasks": {}, "groups": {},
                              "dropped": dropped}
    reported = results["results"]
    for (task, metric), rows in good.groupby(["task", "metric"], sort=True):
        entry = _estimate(rows, cluster is not None, level)
        name, _, filt = str(metric).partition(",")
        entry["harness_value"] = reported.get(task, {}).get(metric)
        entry["harness_stderr"] = reported.get(task, {}).get(f"{name}_stderr,{filt}")
        report["tasks"].setdefault(task, {})[metric] = entry
    tree = {g: list(v) for g, v in (results.get("group_subtasks") or {}).items() if v}
    for group in tree:
        members = _subtasks(group, tree)
        rows = good[good["task"].isin(members)].copy()
        if rows.empty:
            continue
        rows["item"] = rows["task"] + ":" + rows["item"]
        if cluster is None:
            rows["cluster"] = rows["item_hash"].where(rows["item_hash"].notna(), rows["item"])
        for metric, mrows in rows.groupby("metric", sort=True):
            entry = _estimate(mrows, True, level)
            name, _, filt = str(metric).partition(",")
            entry["subtasks"] = sorted(mrows["task"].unique())
            entry["clustered_by"] = cluster or "doc_hash (a document shared by subtasks forms one cluster)"
            entry["harness_value"] = reported.get(group, {}).get(metric)
            entry["harness_stderr"] = reported.get(group, {}).get(f"{name}_stderr,{filt}")
            report["groups"].setdefault(group, {})[metric] = entry
    return report


def write_posthoc(results_path: str | Path, cluster: str | None = None, level: float = 0.95,
                  output: str | Path | None = None) -> Path:
    """Write the report beside the results file (or to ``output``) atomically; the results
    file and its samples files are inputs and are never overwritten (nor a symlink followed)."""
    from evaladdon._util.safe_write import atomic_write_text

    rp = Path(results_path)
    out = Path(output) if output else rp.with_name(rp.stem + ".evaladdon.json")
    report = posthoc(rp, cluster, level)
    text = json.dumps(json_safe(report), indent=2, allow_nan=False) + "\n"
    return atomic_write_text(out, text, inputs=[rp, *samples_for(rp)])
