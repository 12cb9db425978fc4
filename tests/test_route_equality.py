"""One suite for every route ``routes.plan`` knows: each route, forced with
``RoutePolicy(only=ROUTE)`` and the limits that put it to work, gives the ``table`` route's
exit code, stderr and stdout (text and markdown byte for byte; JSON in key order, floats to
1e-12 where the route sums in another order: the spilled parts), on sample logs, crafted logs
and a store.  A route the planner can offer but no case exercises fails the coverage test.

The per-route suites (test_lean_summarize, test_lean_spill, test_store_fast_compare,
test_store_compare_groups, test_store) hold the same equality on many more inputs."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from evaladdon.analysis.options import (CompareOptions, GateOptions, InputOptions, RouteLimits, RoutePolicy,
                                        SummarizeOptions)
from evaladdon.cli.main import main
from evaladdon.routes.plan import plan_compare, plan_summarize

from closeness import mismatches
from conftest import REPO
from test_lean_summarize import _edge_json
from test_store import synthetic

SAMPLE = REPO / "sample_logs"
SPILLED = RouteLimits(spill_bytes=-1, max_records=2**62, parts=4, batch_records=30)
GROUPS = RouteLimits(store_group_rows=100)  # one or two stored logs a group


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A crafted ``.json`` Inspect log (edge cases, two epochs, a cluster field) and a store of
    the sample logs and five synthetic long tables."""
    from evaladdon.routes.ingest import ingest

    root = tmp_path_factory.mktemp("routes")
    (root / "logs").mkdir()
    for i in range(5):
        synthetic(root / "logs" / f"m{i}.csv", f"model-{i}", i, n_items=20 + i, epochs=2, binary=i % 2 == 0)
    store = root / "store"
    ingest([root / "logs", SAMPLE / "inspect", SAMPLE / "lm_eval", SAMPLE / "table"], store, workers=1)
    return {"edge": _edge_json(root), "store": store}


def _run(argv: list[str], policy: RoutePolicy) -> tuple[Any, str, str, list[Any]]:
    outcomes: list[Any] = []
    policy = RoutePolicy(only=policy.only, exclude=policy.exclude, limits=policy.limits, observe=outcomes.append)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc: Any = main(argv, routes=policy)
        except SystemExit as exc:
            rc = exc.code
    return rc or 0, out.getvalue(), err.getvalue(), outcomes


# (name, argv with {edge}/{store} placeholders, route, its limits, whether floats may differ in the last bits)
CASES: list[tuple[str, list[str], str, RouteLimits, bool]] = [
    ("inspect in memory", ["summarize", "--json", str(SAMPLE / "inspect")], "inspect_columns", RouteLimits(), False),
    ("inspect in memory, text", ["summarize", str(SAMPLE / "inspect"), "--wide"], "inspect_columns", RouteLimits(),
     False),
    ("crafted, clustered", ["summarize", "--json", "{edge}", "--cluster", "grp"], "inspect_columns", RouteLimits(),
     False),
    ("crafted, markdown", ["summarize", "{edge}", "--markdown"], "inspect_columns", RouteLimits(), False),
    ("crafted, spilled", ["summarize", "--json", "{edge}", "--cluster", "grp"], "inspect_columns", SPILLED, True),
    ("crafted, spilled, text", ["summarize", "{edge}"], "inspect_columns", SPILLED, True),
    ("store in groups", ["summarize", "--json", "--store", "{store}"], "store_groups", GROUPS, False),
    ("store in groups, metric", ["summarize", "--store", "{store}", "--metric", "score"], "store_groups", GROUPS,
     False),
    ("store in groups, cluster", ["summarize", "--json", "--store", "{store}", "--cluster", "passage",
                                  "--where", "model LIKE 'model-%'"], "store_groups", GROUPS, False),
    ("compare from arrays", ["compare", "--json", "--store", "{store}", "--where", "model IN ('model-0', 'model-2')"],
     "store_arrays", RouteLimits(), False),
    ("compare from arrays, gate", ["compare", "--store", "{store}", "--where", "model IN ('model-0', 'model-2')",
                                   "--margin", "2pt", "--fail-on-regression"], "store_arrays", RouteLimits(), False),
    ("compare from arrays, points on scores", ["compare", "--store", "{store}", "--where",
                                               "model IN ('model-1', 'model-3')", "--margin", "2pt"],
     "store_arrays", RouteLimits(), False),  # the same one-line error: points need a metric in [0, 1]
    ("compare from arrays, sample logs", ["compare", "--markdown", "--store", "{store}", "--where",
                                          "model LIKE 'dummy%'"], "store_arrays", RouteLimits(), False),
    ("compare in groups", ["compare", "--json", "--store", "{store}", "--baseline", "model-0", "--where",
                           "model LIKE 'model-%'"], "store_groups", GROUPS, False),
    ("compare in groups, text", ["compare", "--store", "{store}", "--baseline", "model-1", "--where",
                                 "model LIKE 'model-%'", "--adjust", "bh"], "store_groups", GROUPS, False),
]


@pytest.mark.parametrize("name,argv,route,limits,close", CASES, ids=[c[0] for c in CASES])
def test_every_route_gives_the_table_routes_output(inputs: dict[str, Path], name: str, argv: list[str], route: str,
                                                   limits: RouteLimits, close: bool) -> None:
    argv = [a.format(edge=inputs["edge"], store=inputs["store"]) for a in argv]
    got = _run(argv, RoutePolicy(only=route, limits=limits))
    want = _run(argv, RoutePolicy(only="table"))
    assert got[3] and got[3][0].route == route, (name, got[3])
    assert (got[3][0].error is None) == (want[3][0].error is None) == (got[0] != 2), (name, got[3], want[3])
    if limits is SPILLED:
        assert got[3][0].detail == "spilled", name
    assert want[3][0].route == "table"
    assert (got[0], got[2]) == (want[0], want[2]), name
    if close and "--json" in argv:
        assert not (m := mismatches(json.loads(got[1]), json.loads(want[1]), name, rel=1e-12, ordered_keys=True)), m
    elif close:  # text rounds: the same digits unless a value sits on a rounding edge (none here)
        assert got[1] == want[1], name
    else:
        assert got[1] == want[1], name


def test_every_route_the_planner_offers_has_a_case() -> None:
    """The planner's routes over a battery of options, each in a case above (or the reference)."""
    offered: set[str] = set()
    for inputs in (InputOptions(paths=("a.eval",), command="summarize"),
                   InputOptions(store="s", command="summarize"), InputOptions(store="s", engine="dask", command="summarize")):
        offered |= {r.name for r in plan_summarize(SummarizeOptions(inputs))}
    for inputs in (InputOptions(store="s", command="compare"), InputOptions(store="s", cluster="c", command="compare"),
                   InputOptions(paths=("a", "b"), command="compare"),
                   InputOptions(paths=("a", "b"), metric="f1_macro", command="compare")):
        for baseline in (None, "run"):
            offered |= {r.name for r in plan_compare(CompareOptions(inputs, baseline=baseline, gate=GateOptions()))}
    covered = {c[2] for c in CASES} | {"table", "metric_family"}  # the references themselves
    assert offered == covered, offered ^ covered


def test_a_forced_route_that_cannot_serve_is_an_error_not_a_silent_fallback(inputs: dict[str, Path]) -> None:
    rc, _, err, _ = _run(["summarize", "--store", str(inputs["store"])], RoutePolicy(only="inspect_columns"))
    assert rc == 2 and "route 'inspect_columns' cannot serve these options" in err
    # a store selection read at once: the grouped route declines, and forced it says so
    rc, _, err, _ = _run(["summarize", "--store", str(inputs["store"])], RoutePolicy(only="store_groups"))
    assert rc == 2 and "route 'store_groups' declined" in err
