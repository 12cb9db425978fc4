"""A Dask worker's streamed summary of stored logs (:mod:`evaladdon.routes.store_stream`, issue 31
item 1): a batch of rows at a time, only the columns a summary needs, as codes.

Oracle: the former reading of the same files (:func:`evaladdon.routes.dask_store.summarize_read`:
``load_selection`` + ``summarize_table``), compared record for record (floats bit for bit), with
the label rows, notes and metrics seen; on files of many row groups read in batches of a few rows
(the codes unified across row groups); and the numpy peak against the table path's."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from built_logs import synthetic
from route_cases import arrays_store, errored_store, routes_store

BUILDERS = {"routes": routes_store, "arrays": arrays_store, "errored": errored_store}


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for name, build in BUILDERS.items():
        root = tmp_path_factory.mktemp(name)
        out[name] = build(root)
    return out


def _files(store: Path) -> list[str]:
    from evaladdon.store.query import select

    return [str(f) for f in select(str(store), None).files]


def _same(got: Any, want: Any) -> None:
    assert got is not None
    def flat(r: Any) -> list[dict[str, Any]]:  # labels are set on the driver over all runs
        return [{k: v for k, v in s.flat().items() if k != "label"} for s in r.summaries]

    assert flat(got) == flat(want)
    assert got.notes == want.notes and (got.had_rows, got.has_metric, got.seen) == (want.had_rows, want.has_metric,
                                                                                   want.seen)
    if want.label_rows is None:
        assert got.label_rows is None
    else:
        from evaladdon.routes.dask_store import _frame  # the driver's table of a group's label rows

        assert _frame(got.label_rows).reset_index(drop=True).equals(_frame(want.label_rows).reset_index(drop=True))


def _opts(store: Path, metric: str | None = None, method: str = "auto", cluster_method: str = "cr2") -> Any:
    from evaladdon.routes.dask_store import GroupOptions

    return GroupOptions(str(store), None, metric, 0.95, method, cluster_method)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_streamed_equals_the_table_read(stores: dict[str, Path], name: str) -> None:
    from evaladdon.routes.dask_store import streamed, summarize_read

    store = stores[name]
    files = _files(store)
    assert len(files) >= 3
    for group in ([f] for f in files):  # each log alone (sample logs: several runs, tasks, metrics a file)
        _same(streamed(_opts(store), group), summarize_read(_opts(store), group))
    for opts in (_opts(store), _opts(store, cluster_method="cr1", method="t"), _opts(store, metric="score"),
                 _opts(store, metric="nope")):
        _same(streamed(opts, files), summarize_read(opts, files))


def test_many_row_groups_in_small_batches(stores: dict[str, Path], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each stored file rewritten with row groups of 7 rows and read 3 rows a batch: the item,
    cluster and error dictionaries restart each row group and are unified at the file's end."""
    import shutil

    import pyarrow.parquet as pq

    from evaladdon.routes import store_stream
    from evaladdon.routes.dask_store import streamed, summarize_read

    for name in ("arrays", "errored"):
        store = tmp_path / name
        shutil.copytree(stores[name], store)
        for f in _files(store):
            pq.write_table(pq.read_table(f), f, row_group_size=7)
        assert pq.ParquetFile(_files(store)[0]).metadata.num_row_groups > 3
        monkeypatch.setattr(store_stream, "BATCH", 3)
        for opts in (_opts(store), _opts(store, metric="score")):
            _same(streamed(opts, _files(store)), summarize_read(opts, _files(store)))


def test_a_file_not_as_the_store_writes_it_is_read_as_a_table(stores: dict[str, Path], tmp_path: Path) -> None:
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    from evaladdon.routes.dask_store import streamed, summarize_files, summarize_read

    store = tmp_path / "store"
    shutil.copytree(stores["routes"], store)
    f = _files(store)[0]
    t = pq.read_table(f)
    i = t.schema.get_field_index("value")
    pq.write_table(t.set_column(i, "value", t.column("value").cast(pa.float32())), f)  # not a canonical store's
    assert streamed(_opts(store), [f]) is None
    _same(summarize_files(_opts(store), [f]), summarize_read(_opts(store), [f]))


PEAK = """
import json, sys, tracemalloc
import pyarrow as pa
from evaladdon.routes import dask_store
opts = dask_store.GroupOptions(sys.argv[1], None, None, 0.95, "auto", "cr2")
fn = getattr(dask_store, sys.argv[3])
fn(opts, [sys.argv[2]])  # Arrow's peak: the first call's (nothing else uses Arrow's pool before)
arrow_peak = pa.default_memory_pool().max_memory()
tracemalloc.start()  # numpy's: the second call's (the first imported modules and filled caches)
got = fn(opts, [sys.argv[2]])
print(json.dumps([tracemalloc.get_traced_memory()[1], arrow_peak, len(got.summaries)]))
"""


def test_a_worker_holds_a_few_bytes_a_row(tmp_path: Path) -> None:
    """The peak of summarizing one stored log of 300k rows of one epoch, in a fresh process a way:
    numpy's (tracemalloc, the second call) plus Arrow's (its pool's peak, the first call).  Streamed: a batch,
    the file's arrays (20 bytes a row: no item codes, every row its own item) and the kernel's
    temporaries; read as a table: every stored column, and the items hashed."""
    import json

    from children import child
    from evaladdon.routes.ingest import ingest

    n = 300_000
    logs = tmp_path / "logs"
    logs.mkdir()
    synthetic(logs / "big.csv", "big", 0, n_items=n, epochs=1)
    store = tmp_path / "store"
    assert ingest([logs], store, workers=1).stored == 1
    f = _files(store)[0]
    peaks = {}
    for name in ("streamed", "summarize_read"):
        proc = child(PEAK, tmp_path, str(store), f, name)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        numpy_peak, arrow_peak, n_summaries = json.loads(out.strip().splitlines()[-1])
        assert n_summaries == 1
        peaks[name] = numpy_peak + arrow_peak
    # measured 42 MB (numpy 22, of which the kernel's temporaries 11; Arrow's batches 20) against 75 MB
    assert peaks["streamed"] < 160 * n, peaks
    assert peaks["streamed"] * 1.5 < peaks["summarize_read"], peaks


def test_codes_restart_each_row_group() -> None:
    """:class:`_Coder` alone: two row groups whose dictionaries list the labels in other orders."""
    import pyarrow as pa

    from evaladdon.routes.store_stream import _Coder

    c = _Coder()
    first = c.codes(pa.DictionaryArray.from_arrays(pa.array([0, 1, None], type=pa.int32()), pa.array(["a", "b"])))
    c.new_row_group()
    second = c.codes(pa.DictionaryArray.from_arrays(pa.array([0, 1, 2], type=pa.int32()), pa.array(["c", "a", "b"])))
    codes = np.concatenate([first, second])
    labels = c.finish(codes).to_pylist()
    assert [labels[k] if k >= 0 else None for k in codes] == ["a", "b", None, "c", "a", "b"]
    assert dataclasses.is_dataclass(c) is False
