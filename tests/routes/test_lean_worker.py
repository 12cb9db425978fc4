"""A Dask worker of ``summarize --store`` and ``compare --store`` imports neither pandas nor
DuckDB (issue 31 item 1: a worker process is ~60 MB bare; pandas alone adds ~45 MB, more than a
worker's share of the data).

Each route's worker function -- :func:`evaladdon.routes.dask_store.summarize_files` (streamed,
:mod:`evaladdon.routes.store_stream`) and :func:`evaladdon.routes.dask_compare.reduce_group`
(read straight from Parquet, :mod:`evaladdon.routes.store_columns`) -- is called in a fresh
``python -c`` child, as a worker process runs it, on the route-suite stores (several runs, tasks
and metrics a log, epochs, clusters, errored rows) and on copies whose files have row groups of
7 rows (dictionaries unified across row groups); the child lists the heavy modules loaded.
The numbers these functions give are held equal to the table path's elsewhere
(``test_store_stream.py``, ``test_dask_store.py``, ``test_dask_compare.py``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from route_cases import arrays_store, errored_store, routes_store

HEAVY = ("pandas", "duckdb")

CHILD = """
import json, sys
from evaladdon.routes.dask_compare import reduce_group
from evaladdon.routes.dask_store import GroupOptions, summarize_files
from evaladdon.store.query import select
root = sys.argv[1]
files = [str(f) for f in select(root, None).files]
n = 0
for metric in (None, "score"):
    opts = GroupOptions(root, None, metric, 0.95, "auto", "cr2")
    n += len(summarize_files(opts, files).summaries)
    n += sum(len(summarize_files(opts, [f]).summaries) for f in files)
    sides = reduce_group(root, None, metric, files)
    assert sides.ok
    n += len(sides.sides)
print(json.dumps([n, sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[2:]))]))
"""


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    import pyarrow.parquet as pq

    from evaladdon.store.query import select

    out = []
    for build in (routes_store, arrays_store, errored_store):
        store = build(tmp_path_factory.mktemp(build.__name__))
        small = store.parent / "small_row_groups"
        shutil.copytree(store, small)
        for f in select(str(small), None).files:
            pq.write_table(pq.read_table(f), f, row_group_size=7)
        out += [store, small]
    return out


def test_the_workers_import_neither_pandas_nor_duckdb(stores: list[Path]) -> None:
    for store in stores:
        got = subprocess.run([sys.executable, "-c", CHILD, str(store), *HEAVY], capture_output=True, text=True,
                             cwd=REPO, env={"PYTHONPATH": str(REPO)})
        assert got.returncode == 0, got.stderr
        n, heavy = json.loads(got.stdout.strip().splitlines()[-1])
        assert n > 0 and heavy == [], (store, heavy)
