"""Issue 26, item 7: ``NaN``/``Infinity``/``-Infinity`` literals (pydantic writes them for a NaN
score or stderr in an Inspect JSON log) are read by the streaming parse as Python's ``json``
reads them, so such a log stays on the streamed and spilled path (before: the native reader
gave up on the first literal and the log went through the in-memory table path) and gives the
table route's numbers; when the spill cannot keep its bound (no room on disk), the output says so.

No log of the real-log corpus has such literals in its samples (``log_with_nan.txt`` has one in
a version-1 header, read by Inspect's reader), so the log is built to Inspect's format."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
from pathlib import Path
from typing import Any

import ijson
import pytest

from evaladdon.adapters.inspect.stream import read_json_stream
from evaladdon.analysis.options import RouteLimits, RoutePolicy
from evaladdon.cli.main import main

from closeness import mismatches
from built_logs import inspect_base as _base

TRICKY = {"a": [math.nan, math.inf, -math.inf, 1.5], "s": "NaN, Infinity: -Infinity \\\" NaN", "k": {"NaN": math.nan},
          "t": ["x\\\\", math.nan, "\\\"NaN\\\"", -math.inf]}


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 8, 9, 64])
def test_constants_read_as_python_json_reads_them_whatever_the_reads(size: int) -> None:
    from evaladdon.adapters.inspect.stream import _DepthCheckedFile, restore_constants

    data = json.dumps({"samples": [TRICKY, TRICKY]}).encode()
    want = json.loads(data)

    class Slow:
        def __init__(self) -> None:
            self.at = 0

        def read(self, n: int = -1) -> bytes:
            chunk = data[self.at:self.at + min(n, size)]
            self.at += len(chunk)
            return chunk

    checked = _DepthCheckedFile(Slow(), "x")
    got = [restore_constants(s) for s in ijson.get_backend("yajl2_c").items(checked, "samples.item", use_float=True, buf_size=size)]
    assert checked.constants
    assert json.dumps(got) == json.dumps(want["samples"])  # (NaN != NaN: compared as text)


def _nan_log(path: Path) -> Path:
    """The sample log with NaN literals: two scores a NaN, one +Infinity, a NaN stderr in the
    header, a NaN in metadata, and the word NaN in a target."""
    header, samples = _base()
    header = copy.deepcopy(header)
    for s in header["results"]["scores"]:
        for m in s["metrics"].values():
            m["value"] = math.nan
    samples = copy.deepcopy(samples)
    name = next(iter(samples[0]["scores"]))
    samples[0]["scores"][name]["value"] = math.nan
    samples[7]["scores"][name]["value"] = math.nan
    samples[9]["scores"][name]["value"] = math.inf
    samples[3]["metadata"] = {**(samples[3].get("metadata") or {}), "weight": math.nan}
    samples[4]["target"] = "NaN"
    path.write_text(json.dumps({**header, "samples": samples}))  # (json writes the literals)
    assert "NaN" in path.read_text() and "Infinity" in path.read_text()
    return path


def test_the_native_stream_reads_a_log_with_nan_literals(tmp_path: Path) -> None:
    from evaladdon.adapters.inspect.log import read_inspect_log

    f = _nan_log(tmp_path / "nan.json")
    log = read_json_stream(f)  # before the fix: NotNative (the table path then read it in memory)
    assert math.isnan(next(iter(log.header["results"]["scores"][0]["metrics"].values()))["value"])
    df = read_inspect_log(f, reader="native")
    errors = df["error"].astype(object).where(df["error"].notna(), None)
    assert list(errors[:10].map(lambda e: e is not None)) == [True] + [False] * 6 + [True, False, True]
    assert df.loc[4, "label"] == "NaN" and math.isnan(df.loc[3, "meta.weight"])


def test_inspects_reader_gives_the_same_table_run_id_included(tmp_path: Path) -> None:
    """Inspect's reader (``reader="inspect"``) takes the stored ``eval_id`` from the raw header,
    which a NaN stderr in the results made unreadable: the run id was ``run_id:task_id``."""
    import pandas as pd

    pytest.importorskip("inspect_ai", reason="inspect-ai is an optional extra, not installed here")
    from evaladdon.adapters.inspect.log import read_inspect_log

    f = _nan_log(tmp_path / "nan.json")
    pd.testing.assert_frame_equal(read_inspect_log(f, reader="inspect"), read_inspect_log(f, reader="native"))


def _summarize(path: Path, policy: RoutePolicy, *extra: str) -> tuple[int, dict[str, Any], list[Any]]:
    outcomes: list[Any] = []
    policy = RoutePolicy(only=policy.only, limits=policy.limits, observe=outcomes.append)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["summarize", "--json", *extra, str(path)], routes=policy)
    return int(rc or 0), json.loads(out.getvalue()), outcomes


SPILL = RouteLimits(spill_bytes=-1, max_records=2**62, parts=3, batch_records=0)


@pytest.mark.parametrize("extra", [(), ("--cluster", "passage.id")])
def test_a_log_with_nan_literals_is_spilled_and_gives_the_table_routes_numbers(tmp_path: Path,
                                                                               extra: tuple[str, ...]) -> None:
    f = _nan_log(tmp_path / "nan.json")
    rc, got, outcomes = _summarize(f, RoutePolicy(limits=SPILL), *extra)
    assert rc == 0
    assert (outcomes[0].route, outcomes[0].detail) == ("inspect_columns", "spilled"), outcomes[0]
    _, want, _ = _summarize(f, RoutePolicy(only="table"), *extra)
    assert not (m := mismatches(got, want, "spilled", atol=1e-12, ordered_keys=True)), m
    assert got["results"][0]["n_dropped"] == 3  # the two NaN scores and the infinite one


def test_a_spill_that_cannot_write_says_so_and_reads_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evaladdon.routes import _partitions

    f = _nan_log(tmp_path / "nan.json")

    def full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_partitions.Router, "__init__", full)
    rc, got, outcomes = _summarize(f, RoutePolicy(limits=SPILL))
    assert rc == 0 and outcomes[0].route == "inspect_columns" and outcomes[0].detail is None
    assert [n for n in got["notes"] if "No space left on device" in n and "in memory" in n], got["notes"]
    _, want, _ = _summarize(f, RoutePolicy(only="table"))
    assert got["results"] == want["results"]
