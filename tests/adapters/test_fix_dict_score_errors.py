"""Issue 25, item 6: an Inspect scorer with dict values (metrics ``scorer/key``) whose errored
samples have no scores.  Each errored sample is a dropped row of every real metric the log's
scorers make (``get_scorer/winrate``, learnt from ``results.scores``, where Inspect writes
``name=key, scorer=scorer``, and from the scored samples), with its reason; before the fix they
were filed under phantom metrics ``winrate`` and ``get_scorer`` (skipped: "no scored rows") and
the real metric said ``n_dropped: 0``.  The same on every route (table, in memory, spilled).

No log of the real-log corpus has dict scores (its manifest's ``score_value_types``), so the log
is built to Inspect's format from the sample log: 180 records, every second one errored."""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

from evaladdon.analysis.options import RouteLimits, RoutePolicy
from evaladdon.cli.main import main

from closeness import mismatches
from built_logs import inspect_base as _base


def _dict_log(path: Path, keys: tuple[str, ...] = ("winrate",)) -> Path:
    header, samples = _base()
    out = []
    for i, s in enumerate(samples):
        s = copy.deepcopy(s)
        v = s["scores"][next(iter(s["scores"]))]["value"]
        if i % 2:
            s["scores"] = None
            s["error"] = {"message": "boom", "traceback": "", "traceback_ansi": ""}
        else:
            s["scores"] = {"get_scorer": {"value": {k: (1.0 if v == "C" else 0.0) if j == 0 else 0.5 * (i % 3)
                                                    for j, k in enumerate(keys)}}}
        out.append(s)
    header = copy.deepcopy(header)
    header["results"]["scores"] = [{"name": k, "scorer": "get_scorer", "params": {},
                                    "metrics": {"mean": {"name": "mean", "value": 0.5, "params": {}}}} for k in keys]
    path.write_text(json.dumps({**header, "samples": out}))
    return path


def _summarize(path: Path, policy: RoutePolicy) -> tuple[int, dict[str, Any], list[Any]]:
    outcomes: list[Any] = []
    policy = RoutePolicy(only=policy.only, limits=policy.limits, observe=outcomes.append)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["summarize", "--json", str(path)], routes=policy)
    return int(rc or 0), json.loads(out.getvalue()), outcomes


SPILLED = RoutePolicy(limits=RouteLimits(spill_bytes=-1, max_records=2**62, parts=3, batch_records=0))
ROUTES = {"table": RoutePolicy(only="table"), "in memory": RoutePolicy(only="inspect_columns"), "spilled": SPILLED}


@pytest.mark.parametrize("keys", [("winrate",), ("winrate", "tie")])
@pytest.mark.parametrize("route", list(ROUTES))
def test_errored_samples_are_dropped_rows_of_the_real_metrics(tmp_path: Path, route: str, keys: tuple[str, ...]) -> None:
    f = _dict_log(tmp_path / "dict.json", keys)
    rc, got, outcomes = _summarize(f, ROUTES[route])
    assert rc == 0
    if route == "spilled":
        assert outcomes[0].route == "inspect_columns" and outcomes[0].detail == "spilled"
    results = {r["metric"]: r for r in got["results"]}
    assert list(results) == [f"get_scorer/{k}" for k in keys]
    for r in results.values():
        assert r["n_dropped"] == 90 and r["dropped"] == {"sample error": 90} and r["n_rows"] == 90
    assert not [n for n in got["notes"] if "no scored rows" in n]  # no phantom metric
    _, want, _ = _summarize(f, ROUTES["table"])
    assert not (m := mismatches(got, want, route, atol=1e-12, ordered_keys=True)), m  # (spilled: parts summed)
