"""DeepEval test runs -> canonical rows.

Files: ``.deepeval/.latest_test_run.json`` = ``{"testRunData": TestRun}`` (refused when it is
only ``{"testRunLink": url}``: the results were uploaded to Confident AI) and the unwrapped
``.deepeval/.temp_test_run_data.json`` (a TestRun).  Both are dot-files in a dot-folder.

- item = the test case's ``name`` (``test_case_0``); ``item_hash`` = a hash of its ``input``
  text, so two runs are checked to have asked the same thing;
- metrics: each ``metricsData`` entry as ``<name>/score`` and ``<name>/success``; a metric that
  errored (``error`` set, no score) is an error row for both, not a failure;
- test cases repeated under one name are merged by name, their ``metricsData`` united; a
  metric logged again for the same name is kept as another epoch (a repeat), with a note;
- ``conversationalTestCases`` the same way (item = name, prefixed ``conv:``);
- the compared system: runs carry no model field; when ``hyperparameters`` are logged, the
  model label is built from them (``k=v, ...``), else from the folder the run came from;
- ``metricsScores`` (the run's own per-metric scores, passes, fails, errors) are checked
  against the rows and any disagreement is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.adapters.common.jsondoc import load_json, stable_hash, type_name
from evaladdon.adapters.common.scores import coerce_scores, raw_strings
from evaladdon.errors import InputError
from evaladdon.table import finalize

FILE_NAMES = (".latest_test_run.json", ".temp_test_run_data.json")
METRIC_ERROR = "metric error"
_TEST_RUN_KEYS = ("testCases", "conversationalTestCases", "metricsScores", "hyperparameters", "testFile",
                  "testPassed", "testFailed", "runDuration", "evaluationCost", "prompts", "official")


def looks_like_deepeval(path: Path, head: bytes) -> bool:
    """A DeepEval test run by its first key (``testRunData``, ``testRunLink`` or a TestRun field)."""
    text = head.decode("utf-8", errors="replace").lstrip()
    if re.match(r'^\{\s*"(testRunData|testRunLink)"\s*:', text):
        return True
    if path.name in FILE_NAMES and text.startswith("{"):
        return True
    return re.match(r'^\{\s*"(' + "|".join(_TEST_RUN_KEYS) + r')"\s*:', text) is not None and \
        ('"metricsData"' in text or '"metricsScores"' in text or '"testCases"' in text)


def _first_line(text: Any, limit: int = 160) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _test_run(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InputError(f"not a DeepEval test run: expected a JSON object, found {type_name(data)}", where)
    if "testRunData" in data:
        data = data["testRunData"]
        if not isinstance(data, dict):
            raise InputError(f"DeepEval 'testRunData' is {type_name(data)}, expected an object", where)
    elif "testRunLink" in data:
        raise InputError("results were uploaded to Confident AI; no local test cases "
                         f"({_first_line(data.get('testRunLink'), 80)})", where)
    if not any(k in data for k in ("testCases", "conversationalTestCases")):
        raise InputError("not a DeepEval test run (no testCases)", where)
    for key in ("testCases", "conversationalTestCases", "metricsScores"):
        if data.get(key) is not None and not isinstance(data[key], list):
            raise InputError(f"DeepEval '{key}' is {type_name(data[key])}, expected an array", where)
    return data


def system_label(run: dict[str, Any], path: Path) -> tuple[str, bool]:
    """The compared system: built from ``hyperparameters`` when logged, else the run's folder
    (the folder above ``.deepeval``).  The flag says whether hyperparameters named it."""
    hp = run.get("hyperparameters")
    if isinstance(hp, dict) and hp:
        parts = [f"{k}={v if not isinstance(v, (dict, list)) else stable_hash(v)[:8]}" for k, v in sorted(hp.items())]
        return ", ".join(parts), True
    return _folder(path), False


def _folder(path: Path) -> str:
    """The project folder a run file belongs to (the one above ``.deepeval``)."""
    folder = path.parent.parent if path.parent.name == ".deepeval" else path.parent
    return folder.name or path.stem


def read_deepeval(path: str | Path, cluster: str | None = None, judged: bool = False) -> pd.DataFrame:
    """Read one DeepEval test-run file into canonical rows (see module docstring); ``judged``:
    the rows of LLM-judged metrics (an ``evaluationModel`` logged) also get the test case's
    ``actualOutput`` as ``prediction`` and that model as ``judge`` (for ``judge bias``)."""
    p = Path(path)
    where = str(p)
    run = _test_run(load_json(p), where)
    system, from_hp = system_label(run, p)
    folder = _folder(p)
    run_id = f"{system} ({folder})" if from_hp else folder
    notes: list[str] = []
    if not from_hp:
        notes.append(f"{where}: DeepEval run logs no hyperparameters; the system is named after its folder "
                     f"({system})")
    cols = _collect(run, cluster, where)
    if not cols.items:
        raise InputError("DeepEval test run has no metric results (no metricsData in any test case)", where)
    notes.extend(_case_notes(cols, where))
    base = _base(cols, cluster, where, notes)
    out = _long(base, cols)
    if judged and any(j is not None for j in cols.judges):  # two rows per result: /score, then /success
        judge = np.array(cols.judges, dtype=object)
        said = np.array(cols.outputs, dtype=object)
        said[pd.isna(judge)] = None  # the answer only where a model judged it
        out["prediction"] = np.tile(said, 2)
        out["judge"] = np.tile(judge, 2)
    n_err = int(base["row_error"].notna().sum())
    if n_err:
        notes.append(f"{where}: {n_err} DeepEval metric result(s) errored (no score); counted as errors, not failures")
    _check_metrics_scores(run.get("metricsScores") or [], base, cols.scores, cols.successes, where, notes)
    out["run"] = run_id
    out["source"] = where
    out["harness"] = "deepeval"
    out["task"] = str(run.get("testFile") or "deepeval")
    out["model"] = system
    if "cluster" not in out:
        out["cluster"] = None
    out = finalize(out)
    out.attrs["notes"] = notes
    return out


@dataclass
class _Columns:
    """The metric results of a run, one entry per (test case, metricsData entry), in file order."""

    items: list[str] = field(default_factory=list)
    hashes: list[str | None] = field(default_factory=list)
    clusters: list[Any] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    scores: list[Any] = field(default_factory=list)
    successes: list[Any] = field(default_factory=list)
    errs: list[str | None] = field(default_factory=list)
    names_seen: dict[str, int] = field(default_factory=dict)
    unscored: list[str] = field(default_factory=list)  # test cases with no metric results: no rows, counted in a note
    judges: list[str | None] = field(default_factory=list)  # the metric's evaluationModel (LLM-judged metrics)
    outputs: list[str | None] = field(default_factory=list)  # the test case's actualOutput


def _item_name(tc: dict[str, Any], key: str, i: int, prefix: str) -> str:
    """A test case's item: its ``name``, else ``order<n>``, else ``<key><i>``; ``conv:`` for conversations."""
    name = tc.get("name")
    if name is None or isinstance(name, (dict, list)) or str(name) == "":
        name = f"order{tc['order']}" if isinstance(tc.get("order"), int) else f"{key}{i}"
    return prefix + str(name)


def _cluster_value(tc: dict[str, Any], cluster: str, key: str, i: int, item: str, where: str) -> Any:
    """The test case's ``cluster`` field (the test case's own, else its ``additionalMetadata``'s)."""
    meta = tc.get("additionalMetadata") if isinstance(tc.get("additionalMetadata"), dict) else {}
    val = tc.get(cluster, meta.get(cluster))
    if val is None:
        raise InputError(f"{key}[{i}] ({item}): no field {cluster!r} (test case or additionalMetadata) "
                         "to cluster on", where)
    return val


def _collect(run: dict[str, Any], cluster: str | None, where: str) -> _Columns:
    """Every test case's metric results (``testCases``, then ``conversationalTestCases``)."""
    cols = _Columns()
    for key, prefix in (("testCases", ""), ("conversationalTestCases", "conv:")):
        for i, tc in enumerate(run.get(key) or []):
            if not isinstance(tc, dict):
                raise InputError(f"{key}[{i}]: expected an object, found {type_name(tc)}", where)
            item = _item_name(tc, key, i, prefix)
            cols.names_seen[item] = cols.names_seen.get(item, 0) + 1
            md = tc.get("metricsData")
            if md is None:
                md = []
            if not isinstance(md, list):
                raise InputError(f"{key}[{i}] ({item}): metricsData is {type_name(md)}, expected an array", where)
            if not md:
                cols.unscored.append(item)
            inp = tc.get("input")
            h = stable_hash(inp) if inp is not None else None
            val = _cluster_value(tc, cluster, key, i, item, where) if cluster is not None else None
            _add_metrics(cols, md, item, h, cluster is not None, val, f"{key}[{i}] ({item})", where)
            said = tc.get("actualOutput", tc.get("actual_output"))
            cols.outputs.extend([said if isinstance(said, str) else None] * len(md))
            cols.judges.extend(_judge(m) for m in md)
    return cols


def _add_metrics(cols: _Columns, md: list[Any], item: str, h: str | None, clustered: bool, val: Any, at: str,
                 where: str) -> None:
    """One test case's ``metricsData`` entries, appended to the columns."""
    for j, m in enumerate(md):
        if not isinstance(m, dict) or not isinstance(m.get("name"), str):
            raise InputError(f"{at}, metricsData[{j}]: no metric name", where)
        cols.items.append(item)
        cols.hashes.append(h)
        if clustered:
            cols.clusters.append(val)
        cols.metrics.append(m["name"])
        cols.scores.append(m.get("score"))
        cols.successes.append(m.get("success"))
        cols.errs.append(f"{METRIC_ERROR}: {_first_line(m['error'])}" if m.get("error") else None)


def _judge(m: dict[str, Any]) -> str | None:
    """An LLM-judged metric's ``evaluationModel`` (DeepEval's ``evaluation_model``), else None."""
    model = m.get("evaluationModel", m.get("evaluation_model"))
    return model if isinstance(model, str) and model else None


def _case_notes(cols: _Columns, where: str) -> list[str]:
    """Notes on test cases left out (no metric results) and on names shared by several test cases."""
    notes = []
    if cols.unscored:
        notes.append(f"{where}: {len(cols.unscored)} DeepEval test case(s) have no metric results (first: "
                     f"{_first_line(cols.unscored[0], 60)}); left out")
    repeated = {k: v for k, v in cols.names_seen.items() if v > 1}
    if repeated:
        notes.append(f"{where}: {sum(repeated.values())} DeepEval test cases share {len(repeated)} name(s); merged "
                     "by name (metricsData united)")
    return notes


def _base(cols: _Columns, cluster: str | None, where: str, notes: list[str]) -> pd.DataFrame:
    """One row per metric result: item, metric name, input hash, error, cluster, epoch (repeats numbered)."""
    base = pd.DataFrame({"item": cols.items, "metric_name": cols.metrics,
                         "item_hash": pd.Series(cols.hashes, dtype=object),
                         "row_error": pd.Series(cols.errs, dtype=object)})
    if cluster is not None:
        base["cluster"] = raw_strings(pd.Series(cols.clusters, dtype=object))
    # one input per name: a name that logs two different inputs is two items, not one
    bad_hash = base.dropna(subset=["item_hash"]).groupby("item")["item_hash"].nunique()
    if (bad_hash > 1).any():
        raise InputError(f"DeepEval test case name {bad_hash[bad_hash > 1].index[0]!r} is used for different inputs; "
                         "cannot merge by name", where)
    base["epoch"] = base.groupby(["item", "metric_name"], sort=False).cumcount().to_numpy() + 1
    again = int((base["epoch"] > 1).sum())
    if again:
        notes.append(f"{where}: {again} DeepEval metric result(s) logged again for a test-case name already scored "
                     "by that metric; all kept, as repeated epochs of the item")
    return base


def _long(base: pd.DataFrame, cols: _Columns) -> pd.DataFrame:
    """Two rows per metric result: ``<name>/score`` and ``<name>/success`` (an errored result errs in both)."""
    parts = []
    for suffix, col in (("score", cols.scores), ("success", cols.successes)):
        values = pd.Series(col, dtype=object)
        v, err = coerce_scores(values)
        part = base.copy()
        part["metric"] = base["metric_name"] + "/" + suffix
        has = part["row_error"].notna().to_numpy()
        part["value"] = np.where(has, np.nan, v)
        part["raw"] = raw_strings(values).to_numpy()
        part["error"] = np.where(has, part["row_error"].to_numpy(), err.to_numpy())
        parts.append(part)
    return pd.concat(parts, ignore_index=True).drop(columns=["metric_name", "row_error"])


def _check_metrics_scores(ms: list[Any], base: pd.DataFrame, scores: list[Any], successes: list[Any], where: str,
                          notes: list[str]) -> None:
    """The run's own ``metricsScores`` (scores, passes, fails, errors per metric) against the rows."""
    if not ms:
        return
    err = base["row_error"].notna().to_numpy()
    ok = np.array([s is True for s in successes]) & ~err
    for entry in ms:
        if not isinstance(entry, dict) or not isinstance(entry.get("metric"), str):
            notes.append(f"{where}: a DeepEval metricsScores entry names no metric")
            continue
        sel = (base["metric_name"] == entry["metric"]).to_numpy()
        mine = {"passes": int((ok & sel).sum()), "fails": int((~ok & ~err & sel).sum()), "errors": int((err & sel).sum())}
        theirs = {k: entry.get(k) for k in mine}
        logged_scores = entry.get("scores") if isinstance(entry.get("scores"), list) else []
        logged = sorted(float(s) for s in logged_scores if isinstance(s, (int, float)) and not isinstance(s, bool))
        rows = sorted(float(scores[i]) for i in np.flatnonzero(sel & ~err) if isinstance(scores[i], (int, float)))
        same_scores = len(logged) == len(rows) and bool(np.allclose(logged, rows))
        if theirs != mine or not same_scores:
            notes.append(f"{where}: DeepEval metricsScores for {entry['metric']!r} ({theirs}, {len(logged)} scores) "
                         f"disagree with the test cases ({mine}, {len(rows)} scores)")
