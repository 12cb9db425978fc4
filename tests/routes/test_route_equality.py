"""One suite for every route ``routes.plan`` knows: each route, forced with
``RoutePolicy(only=ROUTE)`` and the limits that put it to work, gives the ``table`` route's
exit code, stderr and stdout (text and markdown byte for byte; JSON in key order, floats to
1e-12 where the route sums in another order: the spilled parts), on sample logs, crafted logs,
the real-log corpus and stores.  A case whose fast route declines runs the planner's choice and
checks which route answered.  A route the planner can offer but no case exercises fails the
coverage test.  Which route answers which input (the planner and the routes' declines) has its
own tests at the end; the inputs are built once, in ``route_cases.py``."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import pytest

from evaladdon.adapters import sniff
from evaladdon.analysis.options import (CompareOptions, GateOptions, InputOptions, RouteLimits, RoutePolicy,
                                        SummarizeOptions)
from evaladdon.cli.main import main
from evaladdon.routes import inspect_spill as spill
from evaladdon.routes.plan import plan_compare, plan_summarize

from closeness import mismatches
from conftest import NO_REAL_LOGS, REAL_LOGS, REPO
from route_cases import INSPECT, Inputs, edge_log
from built_logs import synthetic

SAMPLE = REPO / "sample_logs"
SPILLED = RouteLimits(spill_bytes=-1, max_records=2**62, parts=4, batch_records=30)
GROUPS = RouteLimits(store_group_rows=100)  # one or two stored logs a group
WHOLE = 2**62  # a batch budget no log reaches: the whole log is one batch (the in-memory bytes)
CONFIGS = ((2, 0), (4, 30), (16, 30), (16, WHOLE))
"""(K partitions, batch budget in records): a partition a batch, a few partitions a batch, one batch."""
FAST = frozenset({"inspect_columns", "store_groups", "store_arrays"})


@dataclass(frozen=True)
class Case:
    """``argv`` ({name} is an input of route_cases.BUILDERS) answered by ``route`` under ``limits``.

    ``route`` other than ``ref`` is forced (``only``); ``route == ref`` runs the planner's choice
    and checks that ``declines`` declined first (None: no fast route was offered); ``either``:
    the planner's choice, ``route`` or ``ref`` after ``route`` declined (the real logs).
    ``spilled``: the Inspect route answered spilled (True) or in memory (False); ``batches``:
    (K, budget) of the spilled route, whose batches are checked; ``close``: JSON floats to
    1e-12 (the spilled parts); ``check(rc, stdout, stderr, argv)``: what else the old test asserted."""

    name: str
    argv: tuple[str, ...]
    route: str
    limits: RouteLimits = field(default_factory=RouteLimits)
    ref: str = "table"
    declines: str | None = None
    either: bool = False
    spilled: bool | None = None
    batches: tuple[int, int] | None = None
    several_batches: bool = False
    close: bool = False
    check: Callable[[int, str, str, list[str]], None] | None = None
    log: Path | None = None  # a real log: {first_field} / {last_metric} read from it
    local_ref: bool = False  # the reference is the local engine's answer (argv without --engine dask)


def _c(name: str, argv: list[str] | tuple[str, ...], route: str, **kw: Any) -> Case:
    return Case(name, tuple(argv), route, **kw)


def _spill(**extra: Any) -> Callable[[int, int], RouteLimits]:
    return lambda k, budget: RouteLimits(spill_bytes=-1, max_records=2**62, parts=k, batch_records=budget, **extra)


def _spilled_cases(name: str, argv: list[str], route: str = "inspect_columns", **kw: Any) -> list[Case]:
    """``argv`` spilled to K partitions in batches of each of :data:`CONFIGS` (test_lean_spill's
    four runs against the in-memory output, here against the table route's)."""
    limits = kw.pop("limits", _spill())
    spilled = kw.pop("spilled", route == "inspect_columns")
    out = []
    for k, budget in CONFIGS:
        label = "whole" if budget == WHOLE else budget
        out.append(_c(f"{name} K={k} batch={label}", argv, route, limits=limits(k, budget), spilled=spilled,
                      batches=(k, budget), close=budget != WHOLE, **kw))
    return out


# -- checks the old tests made beyond equality --------------------------------------------------

def _results(out: str) -> list[dict[str, Any]]:
    return json.loads(out)["results"]


def _five_clusters(rc: int, out: str, err: str, argv: list[str]) -> None:
    assert _results(out)[0]["n_clusters"] == 5


def _incomplete(rc: int, out: str, err: str, argv: list[str]) -> None:
    assert "[incomplete]" in out


def _many_codes(rc: int, out: str, err: str, argv: list[str]) -> None:
    results = _results(out)
    assert len(results) > 280 and max(r["n_clusters"] or 0 for r in results) > 255
    assert any(r["dropped"].get("unscored sample") for r in results)


def _two_clusters(rc: int, out: str, err: str, argv: list[str]) -> None:
    assert rc == 2 and "an item lies in two clusters" in err


def _some_results(rc: int, out: str, err: str, argv: list[str]) -> None:
    if rc in (0, 1) and "--json" in argv:
        assert _results(out)


def _one_record_a_run(rc: int, out: str, err: str, argv: list[str]) -> None:
    if rc == 0 and "--json" in argv:
        records = _results(out)
        assert len(records) >= 4 and len({r["run_b"] for r in records}) == len(records)


def _no_metric_scor(rc: int, out: str, err: str, argv: list[str]) -> None:
    assert rc == 2 and "no rows with metric 'scor'" in err


# -- the Inspect route in memory (test_lean_summarize) ------------------------------------------

EVALS = [str(f) for f in sorted(INSPECT.glob("*.eval"))]
FIRST, SECOND = EVALS[0], EVALS[1]
LEAN = "inspect_columns"

INSPECT_CASES = [
    # several files, NAME=PATH, directories
    _c("lean: sample logs", ["summarize", "--json", *EVALS], LEAN, spilled=False),
    _c("lean: two logs, cluster", ["summarize", FIRST, SECOND, "--cluster", "length"], LEAN, spilled=False),
    _c("lean: a directory", ["summarize", "--json", str(INSPECT)], LEAN, spilled=False),
    _c("lean: names", ["summarize", "--json", f"a={FIRST}", f"b={SECOND}"], LEAN, spilled=False),
    _c("lean: a name and a directory", ["summarize", f"a={FIRST}", "{copy}"], LEAN, spilled=False),
    _c("lean: a log and a directory", ["summarize", "--json", FIRST, "{copy}"], LEAN, spilled=False),
    _c("lean: a named directory", ["summarize", "--json", "both={copy}", SECOND], LEAN, spilled=False),
    _c("lean: markdown, metric", ["summarize", "--markdown", *EVALS, "--metric", "match"], LEAN, spilled=False),
    _c("lean: level, t", ["summarize", "--json", *EVALS, "--level", "0.9", "--method", "t"], LEAN, spilled=False),
    # wrong options: the table route's error
    _c("lean: did you mean", ["summarize", *EVALS, "--metric", "matc"], "table", declines=LEAN),
    _c("lean: a metric family", ["summarize", *EVALS, "--metric", "f1_macro"], "table", declines=LEAN),
    _c("lean: a wrong cluster", ["summarize", *EVALS, "--cluster", "categry"], "table", declines=LEAN),
    _c("lean: a name twice", ["summarize", f"a={FIRST}", f"a={SECOND}"], "table", declines=LEAN),
    _c("lean: an absent file", ["summarize", "{missing}"], "table", declines=LEAN),
    # crafted
    _c("lean: crafted", ["summarize", "--json", "{edge}"], LEAN, spilled=False),
    _c("lean: crafted, text", ["summarize", "{edge}"], LEAN, spilled=False),
    _c("lean: crafted, cluster", ["summarize", "--json", "{edge}", "--cluster", "grp"], LEAN, spilled=False,
       check=_five_clusters),
    _c("lean: crafted, cluster missing for some", ["summarize", "--json", "{edge}", "--cluster", "nest.a.b"], "table",
       declines=LEAN),
    _c("lean: crafted, metric", ["summarize", "--json", "{edge}", "--metric", "other"], LEAN, spilled=False),
    _c("lean: non-ASCII score string", ["summarize", "--json", "{odd}"], "table", declines=LEAN),
    # journal, incomplete
    _c("lean: journal", ["summarize", "--json", "{journal}"], LEAN, spilled=False),
    _c("lean: journal, text", ["summarize", "{journal}"], LEAN, spilled=False),
    _c("lean: incomplete", ["summarize", "--json", "{short}"], LEAN, spilled=False),
    _c("lean: incomplete, text", ["summarize", "{short}"], LEAN, spilled=False, check=_incomplete),
    _c("lean: baseline.eval", ["summarize", "--json", str(INSPECT / "baseline.eval")], LEAN, spilled=False),
    # codes past int8
    _c("lean: codes", ["summarize", "--json", "{coded}"], LEAN, spilled=False),
    _c("lean: codes, cluster", ["summarize", "--json", "{coded}", "--cluster", "grp"], LEAN, spilled=False,
       check=_many_codes),
    _c("lean: codes, markdown", ["summarize", "--markdown", "{coded}", "--metric", "acc", "--cluster", "grp"], LEAN,
       spilled=False),
    _c("lean: codes, dict score", ["summarize", "--json", "{coded}", "--metric", "m139/k"], LEAN, spilled=False),
    _c("lean: codes over two logs, cluster", ["summarize", "--json", "run={coded_both}", "--cluster", "grp"], LEAN,
       spilled=False),
    _c("lean: codes over two logs", ["summarize", "--json", "run={coded_both}"], LEAN, spilled=False),
]


def _inspect_logs(root: Path | None) -> list[Path]:
    files = sorted(INSPECT.glob("*.eval"))
    if root is not None:
        files += sorted(f for f in root.glob("inspect_*/**/*") if f.is_file())
    return [f for f in files if sniff(f)[1] == "inspect log"]


REAL_INSPECT = _inspect_logs(REAL_LOGS if REAL_LOGS.is_dir() else None)


def _label(f: Path) -> str:
    return str(f.relative_to(REAL_LOGS)) if REAL_LOGS in f.parents else f.name


REAL_CASES = []
for _i, _f in enumerate(REAL_INSPECT):
    _kw: dict[str, Any] = {"either": True, "log": _f}
    REAL_CASES += [_c(f"log {_label(_f)}", ["summarize", "--json", str(_f)], LEAN, **_kw),
                   _c(f"log {_label(_f)}, text", ["summarize", str(_f)], LEAN, **_kw)]
    if _i % 3 == 0 or _f.parent == INSPECT:  # options on a third of the logs (time)
        REAL_CASES += [_c(f"log {_label(_f)}, cluster", ["summarize", "--json", str(_f), "--cluster", "{first_field}"],
                          LEAN, **_kw),
                       _c(f"log {_label(_f)}, metric", ["summarize", str(_f), "--metric", "{last_metric}", "--markdown"],
                          LEAN, **_kw)]


# -- the Inspect route spilled (test_lean_spill) ------------------------------------------------

def _real_json_logs() -> list[Path]:
    if not (REAL_LOGS / "manifest.json").is_file():
        return []
    entries = json.loads((REAL_LOGS / "manifest.json").read_text())
    return [REAL_LOGS / e["local"] for e in entries
            if (e.get("info") or {}).get("harness") == "inspect" and e["local"].endswith(".json")
            and (REAL_LOGS / e["local"]).is_file()]


REAL_JSON = _real_json_logs()
N_EDGE = len(edge_log()[1])

SPILL_CASES: list[Case] = []
for _f in REAL_JSON:
    SPILL_CASES += _spilled_cases(f"spilled log {_label(_f)}", ["summarize", "--json", str(_f)], either=True, spilled=None)
    SPILL_CASES += _spilled_cases(f"spilled log {_label(_f)}, text", ["summarize", str(_f)], either=True, spilled=None)
for _name, _argv in (
        ("crafted", ["summarize", "--json", "{edge}"]),
        ("crafted, cluster", ["summarize", "--json", "{edge}", "--cluster", "grp"]),
        ("crafted, metric", ["summarize", "--json", "{edge}", "--metric", "other"]),
        ("crafted, t, cr1", ["summarize", "--json", "{edge}", "--level", "0.9", "--method", "t", "--cluster-method", "cr1",
                             "--cluster", "grp"]),
        ("crafted, text", ["summarize", "{edge}"]),
        ("crafted, name, cluster, metric", ["summarize", "--json", "mine={edge}", "--cluster", "grp", "--metric", "match"]),
        ("crafted, name, markdown", ["summarize", "mine={edge}", "--markdown"])):
    SPILL_CASES += _spilled_cases(f"spilled {_name}", _argv)
SPILL_CASES += _spilled_cases("spilled crafted, cluster missing for some",
                              ["summarize", "--json", "{edge}", "--cluster", "nest.a.b"], "table", declines=LEAN)
SPILL_CASES += _spilled_cases("spilled crafted, no such metric", ["summarize", "--json", "{edge}", "--metric", "nope"],
                              "table", declines=LEAN)
SPILL_CASES += _spilled_cases("spilled crafted, bootstrap (in memory)",
                              ["summarize", "--json", "{edge}", "--method", "bootstrap"], spilled=False)
_MANY = _spill(few_clusters=1)  # many clusters (more than few_clusters = 1): re-routed by cluster
SPILL_CASES += _spilled_cases("spilled crafted, re-routed", ["summarize", "--json", "{edge}", "--cluster", "grp"],
                              limits=_MANY)
SPILL_CASES += _spilled_cases("spilled crafted, re-routed, t, cr1",
                              ["summarize", "--json", "{edge}", "--level", "0.9", "--method", "t", "--cluster-method",
                               "cr1", "--cluster", "grp"], limits=_MANY)
SPILL_CASES += _spilled_cases("spilled crafted, re-routed, cluster missing for some",
                              ["summarize", "--json", "{edge}", "--cluster", "nest.a.b"], "table", declines=LEAN,
                              limits=_MANY)
# an item in two clusters, replaced records, an incomplete log
SPILL_CASES += _spilled_cases("spilled item in two clusters", ["summarize", "--json", "{two7}", "--cluster", "c"],
                              "table", declines=LEAN, check=_two_clusters)
SPILL_CASES += _spilled_cases("spilled two epochs", ["summarize", "--json", "{two7}"])
SPILL_CASES += _spilled_cases("spilled replaced records in another cluster",  # (no longer handed to the table)
                              ["summarize", "--json", "{dup}", "--cluster", "c"])
SPILL_CASES += _spilled_cases("spilled a cluster per item", ["summarize", "--json", "{clean}", "--cluster", "c"])
SPILL_CASES += _spilled_cases("spilled incomplete", ["summarize", "--json", "{inc}"])
SPILL_CASES += _spilled_cases("spilled incomplete, markdown", ["summarize", "{inc}", "--markdown"])
# a small log of many records: read again spilled above max_records (one partition a batch)
for _name, _argv in (("", ["summarize", "--json", "{edge}"]), (", cluster", ["summarize", "--json", "{edge}", "--cluster", "grp"]),
                     (", name, markdown", ["summarize", "mine={edge}", "--markdown"])):
    for _cap, _spilled in ((N_EDGE - 1, True), (N_EDGE, False), (0, True)):
        SPILL_CASES.append(_c(f"many records{_name} cap={_cap}", _argv, LEAN, spilled=_spilled, close=True,
                              limits=RouteLimits(spill_bytes=2**62, max_records=_cap, parts=None, batch_records=0)))
# lopsided clusters: read in memory under a low bound, spilled (re-routed by cluster) above it
for _bound, _spilled in ((2**62, True), (50, False)):
    SPILL_CASES.append(_c(f"lopsided, bound {_bound}", ["summarize", "--json", "{lopsided}", "--cluster", "passage"], LEAN,
                          spilled=_spilled, close=_spilled,
                          limits=RouteLimits(spill_bytes=-1, max_records=2**62, parts=4, batch_records=30, few_clusters=1,
                                             lopsided_records=_bound)))
# few large clusters: spilled by id in several batches however lopsided; below few_clusters re-routed
for _log, _n_labels in (("few", 3), ("few_two", 2)):
    for _name, _argv in (("", ["summarize", "--json", f"{{{_log}}}", "--cluster", "passage"]),
                         (", cr1", ["summarize", "--json", f"{{{_log}}}", "--cluster", "passage", "--cluster-method", "cr1"]),
                         (", markdown", ["summarize", f"{{{_log}}}", "--cluster", "passage", "--markdown"])):
        for _few, _k, _budget in ((RouteLimits.few_clusters, 4, 30), (RouteLimits.few_clusters, 16, 0),
                                  (_n_labels, 2, 30), (_n_labels - 1, 16, 30)):
            SPILL_CASES.append(_c(
                f"few clusters {_log}{_name} few={_few} K={_k} batch={_budget}", _argv, LEAN, spilled=True,
                close=True, batches=(_k, _budget), several_batches=True,
                limits=RouteLimits(spill_bytes=-1, max_records=2**62, parts=_k, batch_records=_budget, few_clusters=_few,
                                   lopsided_records=50 if _few >= _n_labels else 2**62)))
# an item in two clusters, by id and re-routed: the table route's error, no spilled run
for _few in (50_000, 1):
    for _k, _budget in ((4, 30), (2, WHOLE)):
        SPILL_CASES.append(_c(f"item in two clusters few={_few} K={_k} batch={_budget}",
                              ["summarize", "--json", "{two3}", "--cluster", "c"], "table", declines=LEAN,
                              check=_two_clusters, batches=(_k, _budget),
                              limits=RouteLimits(spill_bytes=-1, max_records=2**62, parts=_k, batch_records=_budget,
                                                 few_clusters=_few)))


# -- compare --store from DuckDB's arrays (test_store_fast_compare) -----------------------------

ARRAYS_ARGS: list[tuple[tuple[str, ...], str, str | None]] = [
    (("--where", "model IN ('model-0', 'model-1')"), "store_arrays", None),
    (("--where", "model IN ('model-0', 'model-1')", "--json"), "store_arrays", None),
    (("--where", "model IN ('model-0', 'model-1')", "--markdown"), "store_arrays", None),
    (("--where", "model IN ('model-0', 'model-1', 'model-2', 'model-3')", "--baseline", "model-2", "--json"),
     "store_arrays", None),
    (("--where", "model SIMILAR TO 'model-[0-3]'", "--all-pairs", "--adjust", "bonferroni"), "store_arrays", None),
    (("--where", "model IN ('model-0', 'model-r')", "--margin", "0.05", "--fail-on-regression", "--json"), "store_arrays",
     None),
    (("--where", "model IN ('model-1', 'model-3')", "--margin", "2pt", "--fail-on-regression"), "store_arrays", None),
    (("--where", "model IN ('model-0', 'model-x')", "--json"), "store_arrays", None),  # share no (task, metric)
    (("--where", "model IN ('model-0', 'model-1')", "--strict", "--metric", "score"), "store_arrays", None),
    (("--where", "model IN ('model-0', 'model-1') AND value >= 0"), "store_arrays", None),  # a per-row term
    (("--where", "model IN ('model-0', 'model-1')", "--test", "t", "--interval", "wald"), "store_arrays", None),
    (("--where", "model LIKE 'dummy%'", "--json"), "store_arrays", None),  # lm-eval sample logs
    (("--where", "model LIKE 'dummy%'", "--metric", "acc,none"), "store_arrays", None),
    (("--where", "model LIKE 'dummy%'", "--metric", "acc,nne"), "store_arrays", None),  # a wrong --metric: the same error
    (("--where", "model SIMILAR TO 'model-[0-3]'"), "store_arrays", None),  # four runs, no --baseline: the same error
    (("--where", "model SIMILAR TO 'model-[0-3]'", "--baseline", "modle-0"), "store_arrays", None),  # suggestion
    (("--where", "model IN ('model-0', 'model-e')"), "store_arrays", None),  # epochs on one side
    (("--where", "model IN ('model-e', 'model-f')", "--json"), "store_arrays", None),  # epochs, non-binary
    (("--where", "model LIKE 'ckpt%'", "--json"), "store_arrays", None),  # sample long table with epochs
    (("--where", "model LIKE 'ckpt%'", "--markdown", "--strict"), "store_arrays", None),
    (("--where", "run LIKE 'dpBG%' OR run LIKE 'chok%'", "--json"), "store_arrays", None),  # Inspect sample logs
    (("--where", "model IN ('model-c0', 'model-c1')", "--json"), "store_arrays", None),  # clustered (CR2)
    (("--where", "model IN ('model-c0', 'model-c1')", "--cluster-method", "cr1", "--markdown"), "store_arrays", None),
    (("--where", "model IN ('model-0', 'model-1')", "--cluster", "passage"), "table", None),  # not offered
    (("--where", "model IN ('model-0', 'model-1')", "--metric", "f1_macro"), "metric_family", None),  # not offered
    (("--where", "nosuchcolumn = 1"), "table", "store_arrays"),  # DuckDB refuses: the table route's error
]
ARRAYS_CASES = [_c(f"arrays: {' '.join(args)}", ["compare", "--store", "{arrays}", *args], route,
                   ref="metric_family" if route == "metric_family" else "table", declines=declines, check=_some_results)
                for args, route, declines in ARRAYS_ARGS]

# -- compare --store --baseline a group at a time (test_store_compare_groups) -------------------

GROUPS_ARGS = [
    ("--baseline", "model-0"),
    ("--baseline", "model-0", "--json"),
    ("--baseline", "model-2", "--markdown", "--adjust", "none"),
    ("--baseline", "model-0", "--metric", "score", "--json"),
    ("--baseline", "model-1", "--cluster", "passage", "--json"),
    ("--baseline", "model-0", "--margin", "2pt", "--fail-on-regression", "--json"),
    ("--baseline", "model-0", "--margin", "2pt", "--fail-on-regression", "--allow-skipped"),
    ("--baseline", "model-3", "--where", "model IN ('model-1', 'model-3', 'model-4', 'model-5', 'model-x')"),
    ("--baseline", "model-", "--json"),  # ambiguous prefix: the same one-line error
    ("--baseline", "modle-0"),  # no such run: the same error, with its suggestion
    ("--baseline", "model-0", "--metric", "scor"),  # no such metric: refused by the grouped route while deciding
]
GROUPS_CASES = [_c(f"compare groups: {' '.join(args)}", ["compare", "--store", "{groups}", *args], "store_groups",
                   limits=RouteLimits(store_group_rows=170), check=_one_record_a_run)  # ~85 rows a log
                for args in GROUPS_ARGS]

# -- summarize --store a group at a time (test_store) --------------------------------------------

SUMMARY_ARGS: list[tuple[tuple[str, ...], Callable[[int, str, str, list[str]], None] | None]] = [
    ((), None), (("--json",), None), (("--where", "model IN ('model-1', 'model-3', 'model-4')", "--json"), None),
    (("--cluster", "passage", "--json"), None), (("--metric", "score", "--json"), None), (("--metric", "f1_macro"), None),
    (("--metric", "scor"), _no_metric_scor),  # the same one-line error
]
SUMMARY_CASES = [_c(f"summarize groups: {' '.join(args) or 'text'}", ["summarize", "--store", "{summaries}", *args],
                    "store_groups", limits=RouteLimits(store_group_rows=70), check=check)  # one or two logs a group
                 for args, check in SUMMARY_ARGS]

# -- summarize --store --engine dask: a group of stored logs a task on the workers (issue 31) ----

DASK_ARGS: list[tuple[tuple[str, ...], Callable[[int, str, str, list[str]], None] | None]] = [
    (("--json",), None), (("--where", "model IN ('model-1', 'model-3', 'model-4')"), None),
    (("--metric", "score", "--markdown"), None), (("--metric", "scor"), _no_metric_scor),
    (("--where", "model = 'nobody'"), None),
]
DASK_CASES = [_c(f"summarize on dask workers: {' '.join(args)}",
                 ["summarize", "--engine", "dask", "--store", "{summaries}", *args], "dask_store",
                 limits=RouteLimits(store_group_rows=70), check=check, close=True)
              for args, check in DASK_ARGS]
DASK_PATHS = [("--json", str(SAMPLE / "inspect")), (str(SAMPLE / "lm_eval"),), ("--json", str(SAMPLE / "table")),
              ("--json", "{edge}", "--cluster", "grp"), ("{edge}", "--cluster", "nope"), ("{edge}", "--cluster", "grpp"),
              ("--markdown", "{edge}")]
DASK_CASES += [_c(f"summarize paths on dask workers: {' '.join(args)}", ["summarize", "--engine", "dask", *args],
                  "dask_store", close=True, local_ref=True) for args in DASK_PATHS]
# compare --store --engine dask: per-item sides reduced on the workers, paired on the driver; the
# reference is the local engine's answer (every case store_arrays serves locally)
DASK_CASES += [_c(f"compare on dask workers: {' '.join(args)}", ["compare", "--store", "{arrays}", "--engine", "dask", *args],
                  "dask_compare", local_ref=True, check=_some_results)
               for args, route, _ in ARRAYS_ARGS if route == "store_arrays"]
# compare, and summarize on the table route, of PATHs under --engine dask: each file read and reduced
# on a worker, the rows rebuilt on the driver; the reference is the local engine's answer (to 1e-12:
# the rows are rebuilt from per-item sums)
DASK_TABLE = [("compare", "--json", str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval")),
              ("compare", str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval"), "--cluster", "passage.id"),
              ("compare", "--markdown", str(SAMPLE / "inspect"), "--all-pairs"),
              ("compare", "--json", str(SAMPLE / "lm_eval"), "--all-pairs"),
              ("compare", str(SAMPLE / "table"), "--all-pairs"), ("compare", "{clean}", "{two7}", "--json"),
              ("summarize", "--json", str(SAMPLE / "inspect")), ("summarize", str(SAMPLE / "lm_eval"), "--markdown")]
DASK_CASES += [_c(f"{args[0]} paths reduced on dask workers: {' '.join(args[1:])}", [args[0], "--engine", "dask", *args[1:]],
                  "table", close=True, local_ref=True) for args in DASK_TABLE]
# compare PATH... --engine dask: each file read on a worker and reduced to per-item sides, paired on
# the driver as for a store; the reference is the local engine's answer, byte for byte
DASK_SIDES = [("--json", str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval")),
              (str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval"), "--cluster", "passage.id"),
              (str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval"), "--margin", "2pt", "--fail-on-regression"),
              ("--markdown", str(SAMPLE / "inspect"), "--all-pairs"), ("--json", str(SAMPLE / "lm_eval"), "--all-pairs"),
              (str(SAMPLE / "table"), "--all-pairs"), ("--json", str(SAMPLE / "table"), "--baseline", "ckpt-1"),
              ("{errlogs}", "--all-pairs", "--json"), ("{errlogs}", "--baseline", "errbase", "--fail-on-regression"),
              ("{copy}", str(INSPECT / "candidate.eval"), "--json"), ("{copy}", str(INSPECT / "candidate.eval")),
              (str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval"), "--metric", "nope"),
              (str(INSPECT / "baseline.eval"), str(INSPECT / "candidate.eval"), "--baseline", "nobody"),
              (str(INSPECT / "baseline.eval"), "--json")]
DASK_CASES += [_c(f"compare paths as sides on dask workers: {' '.join(args)}", ["compare", "--engine", "dask", *args],
                  "dask_compare", local_ref=True) for args in DASK_SIDES]
DASK_CASES = DASK_CASES if importlib.util.find_spec("distributed") else []

# -- the first cases (sample logs, crafted logs, a store) -------------------------------------------

FIRST_CASES = [
    _c("inspect in memory", ["summarize", "--json", str(SAMPLE / "inspect")], LEAN),
    _c("inspect in memory, text", ["summarize", str(SAMPLE / "inspect"), "--wide"], LEAN),
    _c("crafted, clustered", ["summarize", "--json", "{edge}", "--cluster", "grp"], LEAN),
    _c("crafted, markdown", ["summarize", "{edge}", "--markdown"], LEAN),
    _c("crafted, spilled", ["summarize", "--json", "{edge}", "--cluster", "grp"], LEAN, limits=SPILLED, spilled=True,
       close=True),
    _c("crafted, spilled, text", ["summarize", "{edge}"], LEAN, limits=SPILLED, spilled=True, close=True),
    _c("store in groups", ["summarize", "--json", "--store", "{store}"], "store_groups", limits=GROUPS),
    _c("store in groups, metric", ["summarize", "--store", "{store}", "--metric", "score"], "store_groups", limits=GROUPS),
    _c("store in groups, cluster", ["summarize", "--json", "--store", "{store}", "--cluster", "passage",
                                    "--where", "model LIKE 'model-%'"], "store_groups", limits=GROUPS),
    _c("compare from arrays", ["compare", "--json", "--store", "{store}", "--where", "model IN ('model-0', 'model-2')"],
       "store_arrays"),
    _c("compare from arrays, gate", ["compare", "--store", "{store}", "--where", "model IN ('model-0', 'model-2')",
                                     "--margin", "2pt", "--fail-on-regression"], "store_arrays"),
    # the same one-line error: points need a metric in [0, 1]
    _c("compare from arrays, points on scores", ["compare", "--store", "{store}", "--where",
                                                 "model IN ('model-1', 'model-3')", "--margin", "2pt"], "store_arrays"),
    _c("compare from arrays, sample logs", ["compare", "--markdown", "--store", "{store}", "--where",
                                            "model LIKE 'dummy%'"], "store_arrays"),
    _c("compare in groups", ["compare", "--json", "--store", "{store}", "--baseline", "model-0", "--where",
                             "model LIKE 'model-%'"], "store_groups", limits=GROUPS),
    _c("compare in groups, text", ["compare", "--store", "{store}", "--baseline", "model-1", "--where",
                                   "model LIKE 'model-%'", "--adjust", "bh"], "store_groups", limits=GROUPS),
]

# -- errored samples (--errors, issue 27): the default on every route; fail and bounds on the table's

_ERR_BASE = ("{errlogs}/base.json", "{errlogs}/cand.json")
ERROR_CASES = [
    _c("errors: summarize, logs", ["summarize", "--json", "{errlogs}"], LEAN, spilled=False),
    _c("errors: summarize, logs, text", ["summarize", "{errlogs}"], LEAN, spilled=False),
    _c("errors: summarize, spilled", ["summarize", "--json", "{errlogs}/cand.json"], LEAN, limits=SPILLED, spilled=True,
       close=True),
    _c("errors: summarize, store", ["summarize", "--json", "--store", "{errstore}"], "store_groups", limits=GROUPS),
    _c("errors: compare, arrays", ["compare", "--json", "--store", "{errstore}", "--where", "run <> 'errepochs'"],
       "store_arrays"),
    _c("errors: compare, arrays, gate", ["compare", "--store", "{errstore}", "--where", "run <> 'errepochs'",
                                         "--fail-on-regression"], "store_arrays"),
    _c("errors: compare, arrays, epochs", ["compare", "--json", "--store", "{errstore}", "--baseline", "errbase",
                                           "--adjust", "bh"], "store_arrays"),
    _c("errors: compare, groups", ["compare", "--json", "--store", "{errstore}", "--baseline", "errbase"],
       "store_groups", limits=RouteLimits(store_group_rows=70)),
    _c("errors: compare, groups, markdown", ["compare", "--markdown", "--store", "{errstore}", "--baseline", "errbase"],
       "store_groups", limits=RouteLimits(store_group_rows=70)),
    # fail and bounds: the table route alone (the fast routes are not offered)
    *[_c(f"errors {e}: {what}", [*argv, "--errors", e], "table")
      for e in ("fail", "bounds")
      for what, argv in (("summarize, logs", ["summarize", "--json", "{errlogs}"]),
                         ("summarize, store", ["summarize", "--json", "--store", "{errstore}"]),
                         ("compare, logs", ["compare", "--json", *_ERR_BASE]),
                         ("compare, store", ["compare", "--store", "{errstore}", "--baseline", "errbase"]))],
    # flaky items read every repeat: the table route alone
    _c("flaky: summarize, logs", ["summarize", "--json", "{errlogs}", "--flaky"], "table"),
    _c("flaky: summarize, store", ["summarize", "--store", "{errstore}", "--flaky", "2"], "table"),
    _c("flaky: compare, store, gate", ["compare", "--store", "{errstore}", "--baseline", "errbase", "--max-flaky",
                                       "0.3"], "table"),
]

# -- metric direction (evaladdon.table.direction): what the logs declare reaches every route ------------
# lmlow: the sample lm-eval runs with every metric declared lower-is-better by their results files;
# lmstore: those runs (and the sample long tables) in a store, the declarations kept in its manifest

_LOW = ("--where", "model LIKE 'dummy%'")


def _lower_shown(rc: int, out: str, err: str, argv: list[str]) -> None:
    """Every comparison made says lower is better (JSON records, or the verdict lines)."""
    assert rc in (0, 1), err
    if "--json" in argv:
        results = _results(out)
        assert results and all(r.get("lower_is_better") is True for r in results)
    else:
        assert "lower is better" in out


def _refused(rc: int, out: str, err: str, argv: list[str]) -> None:
    assert rc == 2 and "contradicts the log" in err and len(err.strip().splitlines()) == 1, err
DIRECTION_CASES = [
    _c("direction: store arrays", ["compare", "--json", "--store", "{lmstore}", *_LOW], "store_arrays",
       check=_lower_shown),
    _c("direction: store arrays, gate", ["compare", "--store", "{lmstore}", *_LOW, "--fail-on-regression"],
       "store_arrays", check=_lower_shown),
    _c("direction: store arrays, markdown", ["compare", "--markdown", "--store", "{lmstore}", *_LOW], "store_arrays"),
    _c("direction: store groups", ["compare", "--json", "--store", "{lmstore}", *_LOW, "--baseline", "dummy-seed1",
                                   "--fail-on-regression"], "store_groups", limits=RouteLimits(store_group_rows=100),
       check=_lower_shown),
    _c("direction: store groups, text", ["compare", "--store", "{lmstore}", *_LOW, "--baseline", "dummy-seed1"],
       "store_groups", limits=RouteLimits(store_group_rows=100)),
    # the user's word where nothing is declared (the long tables), and a contradiction refused on every route
    _c("direction: --better lower", ["compare", "--json", "--store", "{lmstore}", "--where", "task = 'reading'",
                                     "--better", "lower", "--fail-on-regression"], "store_arrays",
       check=_lower_shown),
    _c("direction: --better contradicts", ["compare", "--store", "{lmstore}", *_LOW, "--better", "higher"],
       "store_arrays", check=_refused),
    _c("direction: groups, --better contradicts", ["compare", "--store", "{lmstore}", *_LOW, "--baseline",
                                                   "dummy-seed1", "--better", "higher"], "store_groups",
       limits=RouteLimits(store_group_rows=100), check=_refused),
    *[_c(f"arrays: --better lower {' '.join(args)}", ["compare", "--store", "{arrays}", *args, "--better", "lower"],
         "store_arrays") for args in (("--where", "model IN ('model-0', 'model-1')", "--json", "--fail-on-regression"),
                                      ("--where", "model IN ('model-c0', 'model-c1')", "--markdown"))],
    _c("compare groups: --better lower", ["compare", "--store", "{groups}", "--baseline", "model-0", "--better", "lower",
                                          "--margin", "2pt", "--fail-on-regression", "--json"], "store_groups",
       limits=RouteLimits(store_group_rows=170)),
]
if importlib.util.find_spec("distributed"):
    DIRECTION_CASES += [
        _c("direction: dask store", ["compare", "--json", "--store", "{lmstore}", "--engine", "dask", *_LOW,
                                     "--fail-on-regression"], "dask_compare", local_ref=True, check=_lower_shown),
        _c("direction: dask paths as sides", ["compare", "--engine", "dask", "--json", "{lmlow}"], "dask_compare",
           local_ref=True, check=_lower_shown),
        _c("direction: dask paths as sides, text", ["compare", "--engine", "dask", "{lmlow}", "--fail-on-regression"],
           "dask_compare", local_ref=True),
        _c("direction: dask paths reduced", ["compare", "--engine", "dask", "--json", "{lmlow}"], "table", close=True,
           local_ref=True, check=_lower_shown),
        _c("direction: dask paths, --better contradicts", ["compare", "--engine", "dask", "{lmlow}", "--better",
                                                           "higher"], "dask_compare", local_ref=True,
           check=_refused),
    ]

# -- compare and gate of Inspect logs given as PATHs, without pandas (inspect_arrays, issue 31 item 5) ----

IA = "inspect_arrays"
POLICY = str(REPO / "examples" / "ci" / "evaladdon-policy.yml")
_TWINS = ("{twins}/a.json", "{twins}/b.json", "{twins}/c.json")


def _hash_mismatch(rc: int, out: str, err: str, argv: list[str]) -> None:
    """Items whose content differs are counted (and named) in the comparison of a with b."""
    if "--json" in argv:
        assert any(r["hash_mismatch"] == 17 for r in _results(out))
    else:
        assert "17 shared item(s) have different content hashes (e.g. q003, éq010-ü" in err


def _strict_skipped(rc: int, out: str, err: str, argv: list[str]) -> None:
    """--strict: the pairs with b are not made (a one-line reason each), a with c is."""
    skipped = json.loads(out)["skipped"]
    assert rc == 0 and len(_results(out)) == 1 and len(skipped) == 2
    assert all("different content hashes" in s["reason"] for s in skipped)


IA_ARGS: list[tuple[tuple[str, ...], str, Callable[[int, str, str, list[str]], None] | None]] = [
    # the sample logs: every output mode, options, names, directories, the gate's exits
    ((FIRST, SECOND), IA, None),
    ((FIRST, SECOND, "--json"), IA, None),
    ((FIRST, SECOND, "--markdown"), IA, None),
    ((FIRST, SECOND, "--cluster", "passage.id", "--json"), IA, None),
    ((FIRST, SECOND, "--cluster", "passage.id", "--cluster-method", "cr1", "--markdown"), IA, None),
    ((f"a={FIRST}", f"b={SECOND}", "--json"), IA, None),
    ((f"a={FIRST}", f"b={SECOND}", "--wide"), IA, None),
    ((str(INSPECT), "--all-pairs", "--markdown"), IA, None),
    ((str(INSPECT), "--all-pairs", "--adjust", "bonferroni", "--test", "t"), IA, None),
    ((str(INSPECT), "--baseline", "baseline", "--json"), IA, None),
    (("{copy}", SECOND, "--json"), IA, None),  # a directory with files that are no logs: skipped, noted
    (("{copy}", SECOND), IA, None),
    ((FIRST, "{copy}", "--json"), IA, None),  # one run id in two files: kept apart
    ((f"a={FIRST}", "{copy}", "--all-pairs"), IA, None),
    ((FIRST, SECOND, "--margin", "2pt", "--fail-on-regression"), IA, None),
    ((SECOND, FIRST, "--margin", "0.01", "--fail-on-regression", "--json"), IA, None),
    ((FIRST, SECOND, "--better", "lower", "--fail-on-regression", "--json"), IA, None),
    ((FIRST, SECOND, "--strict", "--equivalence", "2pt", "--quiet"), IA, None),
    ((FIRST, SECOND, "--metric", "match", "--seed", "3", "--test", "permutation"), IA, None),
    # crafted logs: duplicates, unscored, errored and limited samples, dict scores, epochs, clusters
    (("{edge}", "{edge2}", "--json"), IA, None),
    (("{edge}", "{edge2}", "--cluster", "grp"), IA, None),
    (("{edge}", "{edge2}", "--metric", "other", "--markdown"), IA, None),
    (("{edge}", "{edge2}", "--cluster", "grp", "--all-pairs", "--json", "--test", "permutation"), IA, None),
    (("{errlogs}/base.json", "{errlogs}/cand.json", "--test", "mcnemar-midp", "--interval", "newcombe"), IA, None),
    (("{errlogs}/base.json", "{errlogs}/cand.json", "--test", "mcnemar", "--interval", "wald", "--json"), IA, None),
    (("{edge}", "{edge2}", "--interval", "bootstrap", "--json"), IA, None),
    (("{coded}", "run={coded_both}", "--json"), IA, None),  # codes past int8; one run over two logs
    (("{coded}", "run={coded_both}", "--cluster", "grp", "--metric", "acc", "--markdown"), IA, None),
    (("{clean}", "{two7}", "--json"), IA, None),  # two epochs
    (("{dup}", "{clean}", "--cluster", "c", "--json"), IA, None),  # replaced records
    (("{inc}", FIRST, "--json"), IA, None),  # incomplete, cancelled
    (("{short}", SECOND), IA, None),  # an incomplete .eval
    (("{short}", SECOND, "--json"), IA, None),
    (("{journal}", SECOND, "--json"), IA, None),  # an unfinished run's journal
    (("{journal}", "{short}", "--markdown"), IA, None),
    # errored samples: counted, the error-rate test and its gate
    (("{errlogs}/base.json", "{errlogs}/cand.json", "--json"), IA, None),
    (("{errlogs}/base.json", "{errlogs}/cand.json", "--fail-on-regression"), IA, None),
    (("{errlogs}", "--baseline", "errbase", "--markdown"), IA, None),  # epochs
    (("{errlogs}", "--all-pairs", "--json", "--adjust", "bh"), IA, None),
    # content hashes that differ: counted and named (non-ASCII ids), refused with --strict
    ((*_TWINS[:2], "--json"), IA, _hash_mismatch),
    (_TWINS[:2], IA, None),
    ((*_TWINS, "--all-pairs", "--strict", "--json"), IA, _strict_skipped),
    ((*_TWINS, "--all-pairs", "--strict", "--markdown"), IA, None),
    ((*_TWINS, "--baseline", "twinC", "--strict", "--fail-on-regression", "--allow-skipped"), IA, None),
    ((*_TWINS, "--baseline", "twinC", "--strict"), IA, None),
    # declined: the table route answers, or gives its error, in its own words
    ((*_TWINS[:2], "--strict"), "table", None),  # nothing compared
    (("{clean}", "{two7}", "--cluster", "c"), "table", None),  # an item in two clusters in the two runs
    (("{twins}/long.json", "{twins}/long2.json", "--json"), "table", None),  # ids kept as digests
    (("{twins}/nul.json", "{twins}/nul2.json"), "table", None),  # ids ending in NUL
    ((FIRST, SECOND, "--metric", "mtach"), "table", None),  # did you mean
    ((FIRST, SECOND, "--cluster", "passage.di"), "table", None),  # a wrong field
    ((str(INSPECT),), "table", None),  # three runs, no --baseline
    ((FIRST, SECOND, "--baseline", "nobody"), "table", None),
    ((FIRST, "{odd}"), "table", None),  # a non-ASCII score string
    ((FIRST, str(SAMPLE / "lm_eval")), "table", None),  # not an Inspect log
    ((f"a={FIRST}", f"a={SECOND}"), "table", None),  # a name twice
    ((FIRST, "{missing}"), "table", None),
    ((FIRST, SECOND, "--flips", "3"), "table", None),  # the per-item rows: the table route's
    ((FIRST, SECOND, "--by", "length"), "table", None),
    # not offered
    ((FIRST, SECOND, "--errors", "fail", "--json"), "table", None),
    ((FIRST, SECOND, "--metric", "f1_macro"), "metric_family", None),
]
IA_CASES = [_c(f"inspect arrays: {' '.join(args)}", ["compare", *args], route,
               ref="metric_family" if route == "metric_family" else "table",
               declines=IA if route == "table" and not ("--errors" in args or "--metric" in args and "f1_macro" in args)
               else None, check=check)
            for args, route, check in IA_ARGS]
IA_CASES += [_c(f"inspect arrays, gate: {' '.join(args)}", ["gate", POLICY, *args], IA)
             for args in ((FIRST, SECOND), (FIRST, SECOND, "--json"), (FIRST, SECOND, "--markdown"),
                          (SECOND, FIRST, "--cluster", "passage.id"), (f"a={FIRST}", f"b={SECOND}", "--strict"),
                          ("{errlogs}", "--baseline", "errbase", "--json"), ("{copy}", SECOND, "--allow-skipped"))]
IA_CASES += [_c(f"inspect arrays, gate declined: {' '.join(args)}", ["gate", POLICY, *args], "table", declines=IA)
             for args in ((str(INSPECT),), (*_TWINS[:2], "--strict"), (FIRST, SECOND, "--baseline", "nobody"))]

# real runs compared (the real-log corpus, when present): the route or, after it declined, the table's
_REAL_PAIRS = [("inspect_ai_logsets/set", "--all-pairs"), ("inspect_ai_logsets/set2", "--all-pairs", "--json"),
               ("inspect_ai_logsets/not-set", "--json"), ("inspect_ai_logsets/not-set", "--markdown"),
               ("inspect_ai_fixtures/scorer/logs", "--json"), ("inspect_ai_fixtures/test_eval_set", "--json"),
               ("inspect_ai_fixtures/analysis/test_logs_choices", "--json"),
               ("inspect_ai_fixtures/analysis/test_logs_choices", "--strict"),
               ("inspect_ai_fixtures/log/test_eval_log/log_formats.eval",
                "inspect_ai_fixtures/log/test_eval_log/log_formats.json", "--json"),
               ("inspect_ai_fixtures/log/test_eval_log/log_read_sample.eval",
                "inspect_ai_fixtures/log/test_eval_log/log_read_sample.json"),
               ("inspect_ai_logsets/set", "inspect_ai_fixtures/eval-set1", "inspect_ai_logsets/not-set", "--all-pairs",
                "--json")]
REAL_COMPARE_CASES = [
    _c(f"compare real {' '.join(args)}", ["compare", *(str(REAL_LOGS / a) if not a.startswith("--") else a for a in args)],
       IA, either=True) for args in _REAL_PAIRS] if REAL_LOGS.is_dir() else []

CASES = DIRECTION_CASES + ERROR_CASES + FIRST_CASES + INSPECT_CASES + SPILL_CASES + ARRAYS_CASES + GROUPS_CASES + SUMMARY_CASES + DASK_CASES + IA_CASES
LOG_CASES = REAL_CASES + REAL_COMPARE_CASES


# -- running ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return Inputs(tmp_path_factory.mktemp("routes"))


def _run(argv: list[str], policy: RoutePolicy) -> tuple[int, str, str, list[Any]]:
    """Exit code (argparse's exits too), stdout, stderr and the observed outcomes of ``argv``."""
    outcomes: list[Any] = []
    policy = RoutePolicy(only=policy.only, exclude=policy.exclude, limits=policy.limits, observe=outcomes.append)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc: Any = main(argv, routes=policy)
        except SystemExit as exc:
            rc = exc.code
    return int(rc or 0), out.getvalue(), err.getvalue(), outcomes


@lru_cache(maxsize=None)
def _reference(argv: tuple[str, ...], ref: str) -> tuple[int, str, str, tuple[tuple[str, bool], ...]]:
    """The reference route's answer to ``argv`` (the same for every route and limit tried on it;
    kept without the outcomes' values)."""
    rc, out, err, outcomes = _run(list(argv), RoutePolicy(only=ref))
    return rc, out, err, tuple((o.route, o.error is None) for o in outcomes)


@lru_cache(maxsize=None)
def _fields(f: Path) -> tuple[list[str], list[str]]:
    """A real log's metadata fields and metrics (none when the reader refuses the log)."""
    from evaladdon.adapters.inspect.log import read_inspect_log

    try:
        df = read_inspect_log(f)
    except Exception:  # noqa: BLE001 - a log the reader refuses: both routes report it
        return [], []
    return [c[5:] for c in df.columns if c.startswith("meta.")], list(dict.fromkeys(df["metric"]))


def _argv(case: Case, inputs: Inputs) -> list[str]:
    def one(token: str) -> str:
        if token in ("{first_field}", "{last_metric}"):
            assert case.log is not None
            fields, metrics = _fields(case.log)
            if not (fields if token == "{first_field}" else metrics):
                pytest.skip(f"{case.log.name}: no {'metadata field' if token == '{first_field}' else 'metric'}")
            return fields[0] if token == "{first_field}" else metrics[-1]
        return re.sub(r"\{(\w+)\}", lambda m: str(inputs[m.group(1)]), token)

    return [one(t) for t in case.argv]


def _check_case(case: Case, inputs: Inputs, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = _argv(case, inputs)
    made: list[list[list[int]]] = []
    if case.batches is not None:
        real = spill.batches
        monkeypatch.setattr(spill, "batches", lambda *a: made.append(real(*a)) or made[-1])
    forced = (case.route != case.ref or case.local_ref) and not case.either  # local_ref: the route of argv
    policy = RoutePolicy(only=case.route, limits=case.limits) if forced else RoutePolicy(limits=case.limits)
    rc, out, err, outcomes = _run(argv, policy)
    ref_argv = [a for a in argv if a not in ("--engine", "dask")] if case.local_ref else argv
    want = _reference(tuple(ref_argv), case.ref)
    assert (rc, err) == want[:3:2], (case.name, rc, err, want[0], want[2], outcomes)
    # the route that answered (or gave the user's error)
    assert outcomes and want[3], (case.name, outcomes, want[3])
    got = outcomes[0]
    declined = [name for name, _ in got.declined]
    if case.either:
        assert got.route == case.route or (got.route == case.ref and case.route in declined), (case.name, got)
    else:
        assert got.route == case.route, (case.name, got.route, got.declined, got.error)
        if case.declines is not None:
            assert case.declines in declined, (case.name, got.declined)
        elif case.route == case.ref:
            assert not declined, (case.name, got.declined)
    assert want[3][0][0] == case.ref
    assert (got.error is None) == want[3][0][1] == (rc != 2), (case.name, got.error, want[3])
    if case.spilled is not None and got.route == LEAN:
        assert (got.detail == "spilled") is case.spilled, (case.name, got.detail)
    # the spilled route's batches: a partition each, a few, or all partitions with records in one
    if case.batches is not None and made and made[0]:
        k, budget = case.batches
        parts = [i for batch in made[0] for i in batch]
        assert parts == sorted(parts) and len(parts) <= k
        if budget == 0:
            assert all(len(batch) == 1 for batch in made[0])
        elif budget == WHOLE:
            assert len(made[0]) == 1
    if case.several_batches:
        assert len(made[0]) > 1, made  # (several batches: clusters across parts)
    if case.close and rc == 0 and "--json" in argv:
        assert not (m := mismatches(json.loads(out), json.loads(want[1]), case.name, atol=1e-12, ordered_keys=True)), m
    else:
        assert out == want[1], case.name
    if case.check is not None:
        case.check(rc, out, err, argv)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_route_gives_the_table_routes_output(inputs: Inputs, monkeypatch: pytest.MonkeyPatch, case: Case) -> None:
    _check_case(case, inputs, monkeypatch)


@pytest.mark.parametrize("case", LOG_CASES, ids=[c.name for c in LOG_CASES])
def test_every_inspect_log_gives_the_table_routes_output(inputs: Inputs, monkeypatch: pytest.MonkeyPatch,
                                                         case: Case) -> None:
    """The sample logs and (when present) every Inspect log of the real-log corpus."""
    _check_case(case, inputs, monkeypatch)


def test_case_names_are_unique() -> None:
    names = [c.name for c in CASES + LOG_CASES]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_every_route_the_planner_offers_has_a_case() -> None:
    """The planner's routes over a battery of options, each in a case above (or the reference)."""
    offered: set[str] = set()
    for inputs in (InputOptions(paths=("a.eval",), command="summarize"),
                   InputOptions(store="s", command="summarize"), InputOptions(store="s", engine="dask", command="summarize")):
        offered |= {r.name for r in plan_summarize(SummarizeOptions(inputs))}
    for inputs in (InputOptions(store="s", command="compare"), InputOptions(store="s", cluster="c", command="compare"),
                   InputOptions(paths=("a", "b"), command="compare"),
                   InputOptions(paths=("a", "b"), metric="f1_macro", command="compare"),
                   InputOptions(store="s", engine="dask", command="compare")):
        for baseline in (None, "run"):
            offered |= {r.name for r in plan_compare(CompareOptions(inputs, baseline=baseline, gate=GateOptions()))}
    covered = {c.route for c in CASES} | {c.ref for c in CASES}
    assert offered == covered, offered ^ covered


def test_a_forced_route_that_cannot_serve_is_an_error_not_a_silent_fallback(inputs: Inputs) -> None:
    rc, _, err, _ = _run(["summarize", "--store", str(inputs["store"])], RoutePolicy(only="inspect_columns"))
    assert rc == 2 and "route 'inspect_columns' cannot serve these options" in err
    # a store selection read at once: the grouped route declines, and forced it says so
    rc, _, err, _ = _run(["summarize", "--store", str(inputs["store"])], RoutePolicy(only="store_groups"))
    assert rc == 2 and "route 'store_groups' declined" in err
    # excluding every route (the reference too) is an error, not a quiet run of the table route
    rc, _, err, _ = _run(["summarize", "--store", str(inputs["store"])],
                         RoutePolicy(exclude=frozenset({"store_groups", "table"})))
    assert rc == 2 and "every route that can serve these options is excluded" in err


# -- which route answers which input (the planner and the routes' declines) ------------------------

def _route(argv: list[str], limits: RouteLimits) -> tuple[int, str | None, str | None]:
    """Exit code, the route that answered (None: no outcome) and its detail, with ``limits``."""
    rc, _, _, outcomes = _run(argv, RoutePolicy(limits=limits))
    return rc, outcomes[0].route if outcomes else None, outcomes[0].detail if outcomes else None


def test_small_logs_take_the_in_memory_path(inputs: Inputs) -> None:
    edge = inputs["edge"]
    assert _route(["summarize", "--json", str(edge)], RouteLimits(spill_bytes=edge.stat().st_size)) == (0, LEAN, None)


def test_a_small_log_of_many_records_is_spilled_after_all(inputs: Inputs) -> None:
    """Below ``spill_bytes``, a lone .json log with more than ``max_records`` records is read again
    spilled (the cases "many records"); as one of several inputs it is not, nor with the
    bootstrap, which resamples all values at once (in memory, above both bounds)."""
    edge, other = inputs["edge"], inputs["edge2"]
    many = RouteLimits(spill_bytes=2**62, max_records=0, parts=None, batch_records=0)
    assert _route(["summarize", "--json", str(edge)], many) == (0, LEAN, "spilled")
    assert _route(["summarize", "--json", str(edge), str(other)], many) == (0, LEAN, None)
    both = RouteLimits(spill_bytes=-1, max_records=0, parts=None, batch_records=0)
    assert _route(["summarize", "--json", str(edge), "--method", "bootstrap"], both) == (0, LEAN, None)


def test_lopsided_clusters_are_read_in_memory(inputs: Inputs) -> None:
    """With --cluster, a log whose clusters put most records in one partition is read in memory
    after all (the cases "lopsided"); the bound: a partition of more records than it that also
    holds a quarter of the log's."""
    argv = ["summarize", "--json", str(inputs["lopsided"]), "--cluster", "passage"]
    assert _route(argv, RouteLimits(spill_bytes=2**62, max_records=2**62)) == (0, LEAN, None)
    assert spill.lopsided([300, 100], RouteLimits.lopsided_records) is False  # (the default bound: far above)
    assert spill.lopsided([51, 51, 51, 51], 50) is False and spill.lopsided([51, 51, 51, 52], 50) is True
    assert spill.lopsided([50, 1], 50) is False


def test_replaced_records_in_another_cluster_are_read_in_memory_by_default(inputs: Inputs) -> None:
    argv = ["summarize", "--json", str(inputs["dup"]), "--cluster", "c"]
    assert _route(argv, RouteLimits(spill_bytes=2**62, max_records=2**62, parts=None, batch_records=0)) == (0, LEAN, None)


def test_the_spilled_route_makes_several_batches(inputs: Inputs, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 30 records: several batches, one of several partitions, in most crafted runs."""
    real = spill.batches
    made: list[list[list[int]]] = []
    monkeypatch.setattr(spill, "batches", lambda *a: made.append(real(*a)) or made[-1])
    batched = 0
    for case in SPILL_CASES:
        if case.name.startswith("spilled crafted") and case.spilled and case.batches and case.batches[1] == 30:
            made.clear()
            assert _route(_argv(case, inputs), case.limits)[1:] == (LEAN, "spilled"), case.name
            batched += max(map(len, made[0])) > 1 and len(made[0]) > 1
    assert batched >= 5


def test_a_per_row_where_is_read_at_once(inputs: Inputs) -> None:
    """A store selection with a per-row --where term is not grouped (the grouped route is not
    tried); a run-level one is."""
    store, limits = str(inputs["summaries"]), RouteLimits(store_group_rows=70)
    assert _route(["summarize", "--store", store, "--where", "value >= 0.5", "--json"], limits) == (0, "table", None)
    assert _route(["summarize", "--store", store, "--json"], limits) == (0, "store_groups", None)
    assert _route(["summarize", "--store", store, "--json"], RouteLimits()) == (0, "table", None)


def test_most_inspect_logs_take_the_inspect_route() -> None:
    """The real-log cases accept the table route after the Inspect route declined; most do not."""
    n_lean = sum(_route(["summarize", "--json", str(f)], RouteLimits())[1] == LEAN for f in REAL_INSPECT)
    assert n_lean >= (30 if REAL_LOGS.is_dir() else 3)


def test_most_real_json_logs_are_spilled() -> None:
    if not REAL_JSON:
        pytest.skip(NO_REAL_LOGS)
    n_spilled = sum(_route(["summarize", "--json", str(f)], _spill()(4, 30))[1:] == (LEAN, "spilled") for f in REAL_JSON)
    assert n_spilled >= min(len(REAL_JSON), 5)


def test_store_arrays_on_real_logs(tmp_path: Path, real_logs: Path) -> None:
    """Two real runs of each task (lm-eval samples, Inspect logs), compared from DuckDB's arrays
    where the route answers: the table route's JSON.  (The tasks are known once the logs are
    stored, so the pairs are a loop, not parameters.)"""
    from evaladdon.routes.ingest import ingest
    from evaladdon.store.runs import list_runs

    store = tmp_path / "store"
    ingest([str(p) for p in (real_logs / "lmeh_bigrefactor_2023_output", real_logs / "inspect_ai_logsets",
                             real_logs / "inspect_ai_fixtures")], store, workers=2)
    by_task: dict[str, list[str]] = {}
    for r in list_runs(str(store)):
        by_task.setdefault(r["task"], []).append(r["run"])
    n_fast = 0
    for task, runs in by_task.items():
        runs = list(dict.fromkeys(runs))
        if len(runs) < 2:
            continue
        argv = ["compare", "--store", str(store), "--where", f"task = '{task}' AND run IN ('{runs[0]}', '{runs[1]}')",
                "--json"]
        got, want = _run(argv, RoutePolicy()), _run(argv, RoutePolicy(only="table"))
        assert got[:3] == want[:3], task
        assert got[3][0].route == "store_arrays" or "store_arrays" in [n for n, _ in got[3][0].declined], task
        n_fast += got[3][0].route == "store_arrays"
    assert n_fast >= 3


def test_a_manifest_that_disagrees_with_the_rows_reads_at_once(tmp_path: Path) -> None:
    """A manifest whose combinations do not describe the stored rows (here: a source renamed in
    the manifest only) is caught on the first group read, and the selection is read at once."""
    from evaladdon.routes import store_groups
    from route_cases import groups_store

    store = groups_store(tmp_path)
    path = store / "manifest.json"
    manifest = json.loads(path.read_text())
    first = next(iter(manifest["files"].values()))
    first["combos"] = [[c[0], "renamed-model", *c[2:]] for c in first["combos"]]
    path.write_text(json.dumps(manifest))
    argv = ["compare", "--store", str(store), "--baseline", "model-2", "--json"]
    got = _run(argv, RoutePolicy(exclude=frozenset({"store_arrays"}), limits=RouteLimits(store_group_rows=170)))
    want = _run(argv, RoutePolicy(only="table"))
    assert got[:3] == want[:3] and want[0] == 0
    assert got[3][0].route == "table" and "store_groups" in [n for n, _ in got[3][0].declined]
    gs = store_groups.grouped_store(str(store), None, None, None, "model-2", lambda df, m: None, max_rows=170)
    assert gs is not None
    with pytest.raises(store_groups.ManifestMismatch):
        store_groups.compare_store(gs, "model-2", level=0.95, test="auto", interval="auto", cluster_method="cr2",
                                   strict=False, adjust="holm", margin=None, seed=0, skipped=[])


# -- the Dask engine and the store's table against reading the files -------------------------------

def test_dask_engine_from_the_command_line() -> None:
    pytest.importorskip("distributed")
    a, b = INSPECT / "baseline.eval", INSPECT / "candidate.eval"
    argv = ["compare", str(a), str(b), "--cluster", "passage.id", "--json"]
    dask, local = _run([*argv, "--engine", "dask"], RoutePolicy()), _run(argv, RoutePolicy())
    assert dask[0] == local[0] == 0
    assert not mismatches(_results(dask[1]), _results(local[1]), atol=1e-12)


def test_dask_two_workers_equal_the_single_machine_path(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from evaladdon.analysis.compare_table import choose_pairs, compare_table
    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.routes.dask import dask_client, reduce_store, submitter
    from evaladdon.routes.ingest import ingest
    from evaladdon.store.query import load_store

    logs = tmp_path / "logs"
    logs.mkdir()
    synthetic(logs / "a.csv", "A", 1)
    synthetic(logs / "b.csv", "B", 2)
    synthetic(logs / "c.csv", "C", 4, binary=True, epochs=1)
    synthetic(logs / "d.csv", "D", 5, binary=True, epochs=1)
    store = tmp_path / "store"
    with dask_client(None, n_workers=2) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        report = ingest([logs], store, cluster="passage", submit=submitter(client))
        assert report.stored == 4 and not report.errors
        reduced, _ = reduce_store(client, str(store), None)
    local = load_store(store).table
    s_local = [s.flat() for s in summarize_table(local, notes=[])]
    s_dask = [s.flat() for s in summarize_table(reduced, notes=[])]
    assert len(s_local) == 4 and not mismatches(s_local, s_dask, atol=1e-12)
    for pair in (("A", "B"), ("C", "D")):
        c_local = [r.flat() for r in compare_table(local, [pair])]
        c_dask = [r.flat() for r in compare_table(reduced, [pair])]
        assert not mismatches(c_local, c_dask, atol=1e-12)
    assert choose_pairs(local, all_pairs=True) == choose_pairs(reduced, all_pairs=True)


def test_store_rows_equal_reading_the_files(tmp_path: Path) -> None:
    """load_store (the table route on a store) gives the table read_runs gives (on the files):
    same rows, dtypes and run names, also when two logs name the same run (prefixed with their
    file names) and under a per-row filter."""
    import pandas as pd

    from evaladdon.adapters import read_runs
    from evaladdon.routes.ingest import ingest
    from evaladdon.store.query import load_store

    logs = tmp_path / "logs"
    logs.mkdir()
    paths = [synthetic(logs / "x.csv", "m", 1), synthetic(logs / "y.csv", "m", 2), synthetic(logs / "z.csv", "other", 3)]
    store = tmp_path / "store"
    assert ingest([logs], store, workers=1).stored == 3

    def canon(df: pd.DataFrame) -> pd.DataFrame:
        df = df.drop(columns=["source"]).sort_values(["run", "item", "epoch"], kind="stable").reset_index(drop=True)
        return df[sorted(df.columns)].astype(object)  # a store keeps strings pyarrow-backed, a CSV read as object

    direct = read_runs([str(p.resolve()) for p in paths]).table
    stored = load_store(store).table
    assert sorted(stored["run"].unique()) == sorted(direct["run"].unique()) == ["other", "x.csv/m", "y.csv/m"]
    pd.testing.assert_frame_equal(canon(stored), canon(direct), check_exact=True)
    picked = load_store(store, "model = 'm' AND value >= 0.5").table
    want = direct[(direct["model"] == "m") & (direct["value"] >= 0.5)]
    pd.testing.assert_frame_equal(canon(picked), canon(want), check_exact=True)
    one = load_store(store, "source LIKE '%z.csv'").table
    assert list(one["run"].unique()) == ["other"]  # no clash left: not renamed


def test_real_runs_are_compared_from_arrays() -> None:
    """Most of the real pairs that can be compared at all take the inspect_arrays route (the
    others: single-item fixtures, logs without scores, which the table route refuses)."""
    if not REAL_COMPARE_CASES:
        pytest.skip(NO_REAL_LOGS)
    taken = [_route(list(c.argv), RouteLimits()) for c in REAL_COMPARE_CASES]
    assert sum(t[:2] == (0, IA) for t in taken) >= 5
    assert all(t[1] == "table" for t in taken if t[0] == 2)
