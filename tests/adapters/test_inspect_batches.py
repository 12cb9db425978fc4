"""Inspect records become column batches as a log is read (inspect_rows.Collector): the table,
its notes and its errors do not depend on the batch size, duplicates across batches keep the
last record at the place of the first, and a streamed log keeps no record per sample."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evaladdon.adapters import ReadTuning, read_runs
from evaladdon.adapters.inspect import parts as inspect_parts
from evaladdon.adapters.inspect import rows as inspect_rows
from evaladdon.adapters.inspect.log import read_inspect_log
from evaladdon.adapters.inspect.stream import read_json_stream
from evaladdon.errors import InputError

from conftest import REPO
from built_logs import inspect_base, inspect_edge_samples, write_inspect_json

SAMPLE = REPO / "sample_logs" / "inspect" / "baseline.eval"









@pytest.fixture
def batch_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The batch size of every Collector made (so a test sees the size it asked for was used)."""
    sizes: list[int] = []
    real = inspect_rows.Collector.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        real(self, *args, **kwargs)
        sizes.append(self.batch_size)

    monkeypatch.setattr(inspect_rows.Collector, "__init__", init)
    return sizes


def _read(path: Path, cluster: str | None, batch: int, monkeypatch: pytest.MonkeyPatch) -> Any:
    try:
        df = read_inspect_log(path, cluster, "native", tuning=ReadTuning(batch_size=batch))
    except (InputError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return df, df.attrs["notes"]


def _same(a: Any, b: Any) -> None:
    assert type(a) is type(b), (a if isinstance(a, str) else "table", b if isinstance(b, str) else "table")
    if isinstance(a, str):
        assert a == b
        return
    pd.testing.assert_frame_equal(a[0], b[0], check_exact=True)
    assert list(a[0].dtypes) == list(b[0].dtypes)
    assert a[1] == b[1]


@pytest.mark.parametrize("batch", [1, 16])
def test_any_batch_size_gives_the_table_of_one_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     batch: int, batch_sizes: list[int]) -> None:
    path = write_inspect_json(tmp_path / "edge.json", *inspect_edge_samples())
    for cluster in (None, "grp", "nest.a.b"):
        batch_sizes.clear()
        _same(_read(path, cluster, batch, monkeypatch), _read(path, cluster, 10**6, monkeypatch))
        assert batch_sizes == [batch, 10**6]
    one = _read(path, None, 10**6, monkeypatch)
    assert not isinstance(one, str) and any("duplicate (id, epoch)" in n for n in one[1])
    assert {"prediction", "label", "confidence", "meta.k", "meta.mix"} <= set(one[0].columns)
    assert "meta.zz" not in one[0].columns and "only_dropped" not in set(one[0]["metric"])  # dropped records' own
    # many logs in one frame (read_runs) with small batches: the same table
    other = write_inspect_json(tmp_path / "plain.json", *inspect_base())
    batch_sizes.clear()
    small = read_runs([path, other], tuning=ReadTuning(batch_size=batch)).table
    assert batch_sizes == [batch, batch]
    pd.testing.assert_frame_equal(small, read_runs([path, other], tuning=ReadTuning(batch_size=10**6)).table,
                                  check_exact=True)


def _read_records(samples: list[dict[str, Any]], header: dict[str, Any], cluster: str | None, batch: int) -> Any:
    """Records as the .eval reader hands them over (Python ints of any size: orjson / json)."""
    from evaladdon.adapters.inspect.stream import record

    log = inspect_rows.LogData(header, inspect_rows.Collector(cluster, batch).extend(record(s) for s in samples),
                               None, 0, "summaries.json")
    try:
        df = inspect_rows.table_of(inspect_rows.build_part(log, Path("x.eval"), cluster))
    except (InputError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return df, df.attrs["notes"]


def test_errors_keep_their_precedence_across_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    header, samples = inspect_base()
    name = next(iter(samples[0]["scores"]))
    big = copy.deepcopy(samples)
    big[3]["scores"][name]["value"] = 10**400  # no float: refused when its sample is kept
    bad = copy.deepcopy(big)
    bad[60]["epoch"] = "x"  # a later batch: the id/epoch check still comes first
    dropped = copy.deepcopy(big) + [copy.deepcopy(samples[3])]  # the big value replaced by a later record
    nocluster = copy.deepcopy(samples)
    nocluster[50]["metadata"] = {}
    nocluster[70]["epoch"] = None
    results = {}
    for case, samples_ in (("big", big), ("bad", bad), ("dropped", dropped), ("nocluster", nocluster)):
        for cluster in (None, "passage.id"):
            got = [_read_records(samples_, header, cluster, b) for b in (1, 4, 10**6)]
            for r in got[:-1]:
                _same(r, got[-1])
            results[case, cluster] = got[-1]
    assert "has no id or integer epoch" in results["bad", None]
    assert results["big", None].startswith("OverflowError")
    assert not isinstance(results["dropped", None], str)
    assert "has no id or integer epoch" in results["nocluster", "passage.id"]  # before the cluster field
    del nocluster[70]
    path = write_inspect_json(tmp_path / "nocluster.json", header, nocluster)
    for b in (1, 4):
        _same(_read(path, "passage.id", b, monkeypatch), _read(path, "passage.id", 10**6, monkeypatch))
    assert "has no scalar metadata field 'passage.id'" in _read(path, "passage.id", 4, monkeypatch)


def test_duplicates_across_batches_keep_the_last_record_at_the_place_of_the_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Oracle: a dict over (id, epoch) in record order (first key position, last record's value)."""
    header, samples = inspect_base()
    rng = np.random.default_rng(7)
    records = copy.deepcopy(samples)
    for i in rng.integers(0, len(samples), size=40):  # re-runs of random samples, some several times
        again = copy.deepcopy(samples[int(i)])
        again["scores"]["match"]["value"] = str(rng.choice(["C", "I", "P"]))
        records.insert(int(rng.integers(int(i) + 1, len(records) + 1)), again)
    expected: dict[tuple[str, int], str] = {}
    for r in records:
        expected[(str(r["id"]), r["epoch"])] = r["scores"]["match"]["value"]
    path = write_inspect_json(tmp_path / "dups.json", header, records)
    for batch in (1, 5, 64, 10**6):
        df = read_inspect_log(path, reader="native", tuning=ReadTuning(batch_size=batch))
        assert list(zip(df["item"], df["epoch"], strict=True)) == list(expected)
        assert list(df["raw"]) == list(expected.values())
        n_dup = len(records) - len(expected)
        assert any(f"{n_dup} duplicate (id, epoch) sample record(s)" in n for n in df.attrs["notes"])


def test_metadata_columns_are_inferred_as_from_records() -> None:
    """frame() infers each meta.* column from its values as pandas' from_records does."""
    nan = np.nan
    cases: list[list[Any]] = [[1, 2, 3], [1, None, 3], ["a", None, "b"], [True, False, None], [True, None],
                              [1.5, 2, None], ["x", 3, None], [1, True], [2**63, 1], [1, 2.5],
                              ["a", "b"], [float("nan"), 1.0, None], [True, 1.5]]
    for values in cases:  # None: the record lacks the key
        records = [{"k": v} if v is not None else {"o": 0} for v in values]
        expected = pd.DataFrame.from_records(records)["k"].to_numpy()
        arr = np.empty(len(values), dtype=object)
        arr[:] = [nan if v is None else v for v in values]
        got = inspect_parts._records_column(arr)
        assert got.dtype == expected.dtype, values
        assert [repr(x) for x in got] == [repr(x) for x in expected], values


def test_a_streamed_log_keeps_columns_not_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    header, samples = inspect_base()
    path = write_inspect_json(tmp_path / "plain.json", header, samples)
    log = read_json_stream(path, tuning=ReadTuning(batch_size=16))
    collector = log.records
    assert isinstance(collector, inspect_rows.Collector)
    assert collector.n == 16 * (len(samples) // 16) and len(collector._pending) == len(samples) % 16
    assert len(collector.batches) == len(samples) // 16
    if inspect_parts._str_column() is not None:  # pandas keeps str columns in arrow: so do the batches
        import pyarrow as pa

        for b in collector.batches:
            assert all(isinstance(c, pa.Array) for c in (b.items, b.hashes, b.labels, b.answers))
    part = inspect_rows.build_part(log, path, None)
    assert part.n_samples == len(samples) and math.isclose(part.n, sum(len(s["scores"]) for s in samples))
    pd.testing.assert_frame_equal(inspect_rows.table_of(part),
                                  read_inspect_log(path, reader="native", tuning=ReadTuning(batch_size=10**6)),
                                  check_exact=True)
