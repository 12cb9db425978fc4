"""SWE-bench-style per-instance outcomes -> canonical rows (0/1 per instance, clustered by repository).

Three files name which instances a system resolved:

- the harness's run report ``<model>.<run_id>.json`` (``swebench.harness.reporting.make_run_report``,
  ``schema_version`` 2): ``total_instances`` and the id lists ``resolved_ids``, ``unresolved_ids``,
  ``empty_patch_ids``, ``error_ids``, ``incomplete_ids`` (``completed_ids``, ``submitted_ids``),
  which together name every instance of the dataset;
- the harness's per-instance ``report.json`` (``logs/run_evaluation/<run_id>/<model>/<instance>/``):
  ``{instance_id: {"resolved": bool, "patch_exists": ..., "tests_status": ...}}``;
- a submission's ``results/results.json`` in SWE-bench/experiments
  (``evaluation/<split>/<date_model>/results/``): the ``resolved`` ids and the ids that failed to
  run (``no_generation``, ``no_logs``; older files also ``generated``, ``applied``, ...).  Unresolved
  instances are NOT listed there: every instance named by any submission of the split (the folders
  beside it) that this one does not resolve is read as 0, and when ``resolved_by_repo.json`` gives
  the split's per-repository totals, the instances no submission names (so none resolved them) are
  rows ``<owner>/<repo>#unnamed-<k>`` scored 0 -- the same ids for every submission, so runs still
  pair (those instances are 0 for all of them).

Rows: task = ``swe-bench`` (the split's folder name for experiments files), metric = ``resolved``,
value 1 for a resolved instance and 0 otherwise -- empty patches, errors and instances without a
prediction count as unresolved, as SWE-bench's "% resolved" (resolved / total instances) counts
them; ``meta.status`` says which.  Instances of one repository share code, tests and maintainers
and are not independent: ``cluster`` is the repository (``owner__repo-1234`` -> ``owner/repo``)
by default, so summaries use clustered SEs and ``rank`` over several systems gives rank intervals
and tiers with repositories as the resampling unit.  A note says whether the mean of the rows
reproduces the headline the file implies (resolved / total).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evaladdon.adapters.common.jsondoc import load_json, type_name
from evaladdon.errors import InputError
from evaladdon.table import finalize

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")

__all__ = ["HARNESS", "looks_like_instance_report", "looks_like_results", "looks_like_run_report",
           "read_instance_report", "read_results", "read_run_report", "repository"]

HARNESS = "swe_bench"
METRIC = "resolved"
_RUN_LISTS = ("resolved_ids", "unresolved_ids", "empty_patch_ids", "error_ids", "incomplete_ids")
_RESULT_KEYS = ("resolved", "no_generation", "no_logs", "generated", "with_logs", "install_fail", "reset_failed",
                "no_apply", "applied", "test_errored", "test_timeout")
_ID = re.compile(r"^(?P<owner>.+?)__(?P<repo>.+)-(?P<num>\d+)$")
_SPLIT_CACHE: dict[tuple[str, float], tuple[set[str], int]] = {}


def repository(ids: Any) -> np.ndarray:
    """``owner__repo-1234`` -> ``owner/repo`` (vectorised; an id of another form is its own repository)."""
    s = pd.Series(ids, dtype=object).astype(str)
    m = s.str.extract(_ID.pattern)
    repo = (m["owner"] + "/" + m["repo"]).where(m["owner"].notna(), s)
    placeholder = s.str.contains("#unnamed-", regex=False)
    repo = repo.where(~placeholder, s.str.split("#", n=1).str[0])
    return repo.to_numpy(dtype=object)


# ---------------------------------------------------------------- sniffing


def looks_like_run_report(head: bytes) -> bool:
    """The harness's run report: an object opening with ``total_instances``/``submitted_instances``."""
    return re.match(rb'^\{\s*"(total_instances|submitted_instances)"\s*:', head) is not None


def looks_like_instance_report(path: Path, head: bytes) -> bool:
    """A per-instance ``report.json``: ``{"<id>": {"patch_is_None"|"patch_exists"|"resolved": ...}}``."""
    return path.name == "report.json" and re.match(
        rb'^\{\s*"[^"]+"\s*:\s*\{\s*"(patch_is_None|patch_exists|patch_successfully_applied|resolved)"', head) is not None


def looks_like_results(path: Path, head: bytes) -> bool:
    """An experiments ``results.json``: an object whose first key is one of SWE-bench's outcome lists."""
    keys = "|".join(_RESULT_KEYS)
    return path.name == "results.json" and re.match(rf'^\{{\s*"({keys})"\s*:\s*\['.encode(), head) is not None


# ---------------------------------------------------------------- rows


def _rows(ids: np.ndarray, resolved: np.ndarray, status: np.ndarray, *, run: str, model: str, task: str,
          source: str, cluster: str | None) -> pd.DataFrame:
    if cluster not in (None, "repo"):
        raise InputError(f"SWE-bench outcomes have no field {cluster!r} to cluster on (available: repo)", source)
    if len(ids) == 0:
        raise InputError("no SWE-bench instance ids in this file", source)
    out = finalize(pd.DataFrame({
        "run": run, "source": source, "harness": HARNESS, "task": task, "model": model, "metric": METRIC,
        "item": ids, "epoch": 1, "value": resolved.astype(float), "raw": np.where(resolved, "true", "false"),
        "cluster": repository(ids), "item_hash": None, "error": None, "meta.status": status,
    }))
    return out


def _check(out: pd.DataFrame, resolved: int, total: int | None, where: str, what: str) -> list[str]:
    """Whether the mean of the rows is the file's headline ``resolved / total``."""
    if not total:
        return [f"{where}: {what}: {resolved} of {len(out)} instance(s) resolved; no total to check against"]
    mean = float(out["value"].mean())
    headline = resolved / total
    if math.isclose(mean, headline, rel_tol=1e-12, abs_tol=1e-12):
        return [f"{where}: {what}: the rows reproduce its % resolved ({resolved}/{total} = {100 * headline:.2f}%)"]
    return [f"{where}: {what}: {resolved}/{total} = {100 * headline:.2f}% resolved, but the rows name "
            f"{len(out)} instance(s) (mean {100 * mean:.2f}%): DOES NOT reproduce it"]


def _id_list(doc: dict[str, Any], key: str, where: str) -> list[str]:
    v = doc.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise InputError(f"{key!r} is {type_name(v)}, expected an array of instance ids", where)
    return v


def read_run_report(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """The harness's run report (``<model>.<run_id>.json``) into one 0/1 row per instance it names."""
    p = Path(path)
    where = str(p)
    doc = load_json(p)
    if not isinstance(doc, dict):
        raise InputError(f"expected a SWE-bench run report object, found {type_name(doc)}", where)
    lists = {k: _id_list(doc, k, where) for k in _RUN_LISTS}
    order = pd.Index([i for k in _RUN_LISTS for i in lists[k]]).drop_duplicates()
    status = pd.Series("", index=order, dtype=object)
    for k in reversed(_RUN_LISTS):  # the first list naming an id wins (resolved before the others)
        status[lists[k]] = k.removesuffix("_ids")
    ids = order.to_numpy(dtype=object)
    out = _rows(ids, (status == "resolved").to_numpy(), status.to_numpy(dtype=object), run=p.stem, model=p.stem,
                task="swe-bench", source=where, cluster=cluster)
    total = doc.get("total_instances")
    notes = _check(out, len(set(lists["resolved_ids"])), total if isinstance(total, int) else None, where,
                   "SWE-bench run report")
    counts = status.value_counts()
    zero = ", ".join(f"{int(counts[k])} {k.replace('_', ' ')}" for k in ("empty_patch", "error", "incomplete")
                     if k in counts)
    if zero:
        notes.append(f"{where}: read as unresolved (0), as SWE-bench's % resolved counts them: {zero}")
    out.attrs["notes"] = notes
    return out


def read_instance_report(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """A per-instance ``report.json`` into one 0/1 row (run = ``<model>@<run_id>`` from its folders)."""
    p = Path(path)
    where = str(p)
    doc = load_json(p)
    if not isinstance(doc, dict) or not doc or not all(isinstance(v, dict) for v in doc.values()):
        raise InputError("expected {instance_id: {\"resolved\": ...}} (a SWE-bench per-instance report)", where)
    bad = [k for k, v in doc.items() if not isinstance(v.get("resolved"), bool)]
    if bad:
        raise InputError(f"instance {bad[0]!r}: 'resolved' is not true or false", where)
    ids = np.array(list(doc), dtype=object)
    resolved = np.array([bool(v["resolved"]) for v in doc.values()], dtype=bool)
    model, run_id = p.parent.parent.name, p.parent.parent.parent.name
    # source = the run's folder: one run's reports are one source (one file per instance), as a HELM run
    out = _rows(ids, resolved, np.where(resolved, "resolved", "unresolved").astype(object),
                run=f"{model}@{run_id}" if run_id else model, model=model, task="swe-bench",
                source=str(p.parent.parent), cluster=cluster)
    out.attrs["notes"] = []
    return out


# ---------------------------------------------------------------- experiments results.json


def _results_doc(path: Path) -> dict[str, list[str]]:
    doc = load_json(path)
    if not isinstance(doc, dict):
        raise InputError(f"expected a SWE-bench results object, found {type_name(doc)}", str(path))
    return {k: _id_list(doc, k, str(path)) for k in doc if k in _RESULT_KEYS}


def _split_universe(split_dir: Path) -> set[str]:
    """Every instance id named by any submission's ``results/results.json`` in ``split_dir``
    (cached per folder and modification time: a leaderboard folder is read once, not once per file)."""
    key = (str(split_dir.resolve()), split_dir.stat().st_mtime)
    if key not in _SPLIT_CACHE:
        ids: set[str] = set()
        files = sorted(split_dir.glob("*/results/results.json"))
        for f in files:
            try:
                for v in _results_doc(f).values():
                    ids.update(v)
            except InputError:
                continue  # a broken neighbour is reported when it is read itself
        _SPLIT_CACHE.clear()
        _SPLIT_CACHE[key] = (ids, len(files))
    return _SPLIT_CACHE[key][0]


def _repo_totals(results_dir: Path, where: str) -> dict[str, int] | None:
    f = results_dir / "resolved_by_repo.json"
    if not f.is_file():
        return None
    doc = load_json(f)
    if not isinstance(doc, dict):
        raise InputError(f"expected an object of repositories, found {type_name(doc)}", str(f))
    out = {}
    for repo, v in doc.items():
        total = v.get("total") if isinstance(v, dict) else None
        if not isinstance(total, int) or isinstance(total, bool) or total < 0:
            raise InputError(f"repository {repo!r}: no whole 'total'", str(f))
        out[str(repo)] = total
    return out


def _unnamed(named: np.ndarray, totals: dict[str, int]) -> list[str]:
    """Placeholder ids for each repository's instances that no submission names."""
    have = pd.Series(repository(named)).value_counts()
    return [f"{repo}#unnamed-{k}" for repo, total in sorted(totals.items())
            for k in range(1, total - int(have.get(repo, 0)) + 1)]


def read_results(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """A SWE-bench/experiments ``results/results.json`` (module docstring)."""
    p = Path(path)
    where = str(p)
    lists = _results_doc(p)
    resolved = set(lists.get("resolved", []))
    system_dir = p.parent.parent
    split_dir = system_dir.parent
    universe = _split_universe(split_dir) if p.parent.name == "results" else set()
    universe |= {i for v in lists.values() for i in v}
    named = np.array(sorted(universe), dtype=object)
    totals = _repo_totals(p.parent, where)
    extra = _unnamed(named, totals) if totals else []
    ids = np.concatenate([named, np.array(extra, dtype=object)])
    fails = {i: k for k in reversed([k for k in lists if k != "resolved"]) for i in lists[k]}
    named_s = pd.Series(named, dtype=object)
    st = named_s.map(fails).astype(object)
    st = st.where(st.notna(), "not resolved").where(~named_s.isin(resolved), "resolved")
    status = np.concatenate([st.to_numpy(dtype=object), np.full(len(extra), "not named by any submission", dtype=object)])
    out = _rows(ids, np.isin(ids, list(resolved)), status, run=system_dir.name, model=system_dir.name,
                task=split_dir.name if p.parent.name == "results" else "swe-bench", source=where, cluster=cluster)
    notes = [f"{where}: SWE-bench results.json lists resolved instances only: the {len(named) - len(resolved)} "
             f"other instance(s) named by the submissions in {split_dir} are read as unresolved (0)"]
    if extra:
        notes.append(f"{where}: {len(extra)} instance(s) of the split named by no submission (resolved_by_repo.json "
                     "totals) are rows '<repo>#unnamed-<k>' scored 0 (every submission shares them)")
    notes += _check(out, len(resolved), sum(totals.values()) if totals else None, where, "SWE-bench results")
    out.attrs["notes"] = notes
    return out
