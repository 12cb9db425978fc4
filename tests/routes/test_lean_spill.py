"""Unit tests of the spilled Inspect route (:mod:`evaladdon.routes.inspect_spill`): its temporary
directory goes also on errors, partitions keep items and clusters whole, batches and bounds; and
its peak RSS on a log of many samples is below the in-memory path's (a subprocess each, slow).
Its output against the table route's: tests/routes/test_route_equality.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evaladdon.analysis.options import RouteLimits, RoutePolicy
from evaladdon.cli.main import main
from evaladdon.routes import inspect_spill as spill

from closeness import mismatches
from conftest import REPO
from route_cases import edge_json, tiny_log

KS = (2, 4, 16)


def _run(argv: list[str], k: int) -> int:
    """``main(argv)`` spilled to ``k`` partitions (one partition a batch), its output swallowed."""
    import contextlib
    import io

    limits = RouteLimits(spill_bytes=-1, max_records=2**62, parts=k, batch_records=0)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return int(main(argv, routes=RoutePolicy(limits=limits)) or 0)
        except SystemExit as exc:
            return int(exc.code or 0)


def _close(a: Any, b: Any, where: str) -> None:
    """Two outputs agree: key order kept, floats to 1e-12 (of the larger magnitude, at least 1)."""
    assert not (m := mismatches(a, b, where, atol=1e-12, ordered_keys=True)), m


def test_the_temporary_directory_goes_also_on_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    made: list[str] = []
    real = tempfile.TemporaryDirectory

    class Watch(real):  # type: ignore[misc, valid-type]
        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, **k)
            made.append(self.name)

    monkeypatch.setattr(tempfile, "TemporaryDirectory", Watch)
    edge = edge_json(tmp_path)
    assert _run(["summarize", "--json", str(edge), "--cluster", "nest.a.b"], 4) == 2
    assert _run(["summarize", "--json", str(edge)], 4) == 0
    assert len(made) == 2 and not any(Path(d).exists() for d in made)
    real_add = spill.Router.add
    seen = []

    def interrupted(self: Any, r: Any) -> None:  # Ctrl-C halfway through the routing
        seen.append(1)
        if len(seen) == 30:
            raise KeyboardInterrupt
        real_add(self, r)

    monkeypatch.setattr(spill.Router, "add", interrupted)
    try:
        rc: Any = _run(["summarize", "--json", str(edge)], 4)
    except KeyboardInterrupt:
        rc = "interrupted"
    assert rc not in (0, None) and len(seen) == 30
    assert len(made) == 3 and not any(Path(d).exists() for d in made)


def test_partitions_keep_items_and_clusters_whole(tmp_path: Path) -> None:
    """Every record of an id lands in one partition; with a cluster field re-routed (many
    clusters: :func:`spill.reroute`), every record of a cluster, each file in sequence order;
    the router counts the distinct labels up to few_clusters; an id in two clusters refused."""
    from evaladdon.adapters.inspect.records import SampleRecord, Score

    recs = [SampleRecord(f"id{i % 37}", i // 37 + 1, {"m": Score(float(i % 2), None, None)},
                         {"a": {"c": f"c{i % 37 % 5}"}}, False, None, None, None) for i in range(37 * 3)]
    for cluster, key in ((None, lambda t: t[1]), ("a.c", lambda t: t[1]), ("a.c", lambda t: t[4])):
        for k in KS:
            root = tmp_path / f"{cluster}{k}{id(key)}"
            root.mkdir()
            router = spill.Router(root, k, cluster)
            for r in recs:
                router.add(r)
            router.flush()
            if cluster is not None:
                assert router.labels == {f"c{j}": j for j in range(5)}  # (first appearance)
            if cluster is not None and key(("s", "i", 1, None, "c")) == "c":
                spill.reroute(router, root)
            where: dict[Any, int] = {}
            back = []
            for i, f in enumerate(router.files):
                seqs = [t[0] for t in spill._records(f)]
                assert seqs == sorted(seqs)
                for t in spill._records(f):
                    assert where.setdefault(key(t), i) == i
                    back.append(t)
            assert sorted(t[0] for t in back) == list(range(len(recs)))  # each record once, with its sequence
            assert sum(router.counts) == len(recs)
            assert len(set(where.values())) > 1  # (spread over more than one partition)
    router = spill.Router(tmp_path, 4, "a.c", few_clusters=4)
    for r in recs:
        router.add(r)
    assert router.labels is None  # (5 labels: more than few_clusters)
    two = [SampleRecord("x", e, None, {"a": {"c": f"c{e}"}}, False, None, None, None) for e in (1, 2)]
    root = tmp_path / "two"
    root.mkdir()
    router = spill.Router(root, 4, "a.c")
    for r in two:
        router.add(r)
    router.flush()
    with pytest.raises(spill.NotLean):
        spill.reroute(router, root)
    # batches: consecutive partitions with records, up to the budget, a larger one alone
    counts = [3, 0, 5, 9, 1, 1, 0, 4, 2, 2]
    for budget in (0, 1, 4, 8, 10, 100):
        got = spill.batches(counts, budget)
        assert [i for b in got for i in b] == [i for i, n in enumerate(counts) if n]
        assert all(len(b) == 1 or sum(counts[i] for i in b) <= budget for b in got)
        # each batch as large as it may be: the next partition would not have fitted
        assert all(sum(counts[i] for i in b) + counts[nxt[0]] > budget for b, nxt in zip(got, got[1:], strict=False))
    assert spill.batches(counts, 8) == [[0, 2], [3], [4, 5, 7, 8], [9]]
    assert spill.batches(counts, 8, 2) == [[0, 2], [3], [4, 5], [7, 8], [9]]
    assert spill.batches(counts, 100, 3) == [[0, 2, 3], [4, 5, 7], [8, 9]]
    import resource

    most = RouteLimits.merge_files
    for soft, want in ((100, 50), (10**6, most), (resource.RLIM_INFINITY, most)):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(resource, "getrlimit", lambda _, soft=soft: (soft, soft))
            assert spill.merge_files() == want  # (half the soft limit of open files, at most merge_files)
            assert spill.merge_files(20) == min(20, want)
    limits, size = RouteLimits(), RouteLimits.part_bytes
    assert [spill.n_parts(n, limits) for n in (0, size * 3, size * 10**6)] == [2, 4, spill.MAX_PARTS]
    assert spill.n_parts(size * 3, RouteLimits(parts=16)) == 16


_RSS = """
import sys
import scipy.special  # loaded first, in both runs: the stats core now imports it on first use (after
# the reading), where its ~13 MB would add to the spilled run's end peak and not to the in-memory one's
def hwm():
    return int([l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1])
from evaladdon.analysis.options import RouteLimits, RoutePolicy
spill_bytes = int(sys.argv[1])
limits = RouteLimits(spill_bytes=spill_bytes, max_records=2**62 if spill_bytes else 0, batch_records=int(sys.argv[2]))
import evaladdon.stats.mean_parts as mean_parts
import evaladdon.analysis.summarize as summary
read = []
for mod, name in ((summary, "summarize_groups"), (mean_parts, "estimate_mean_parts")):
    real = getattr(mod, name)
    def first(*a, real=real, **k):
        if not read:
            read.append(hwm())  # the peak before any statistic: the reading's
        return real(*a, **k)
    setattr(mod, name, first)
from evaladdon.cli.main import main
rc = main(["summarize", "--json", *sys.argv[3:]], routes=RoutePolicy(limits=limits))
print("PEAK", read[0], hwm(), file=sys.stderr)
sys.exit(rc or 0)
"""


def _peak_kb(argv: list[str], spill_bytes: int, budget: int = 0) -> tuple[int, int, str]:
    """Peak RSS (kB) of ``summarize --json ARGV`` in a subprocess (spilled in batches of up to
    ``budget`` records): before the statistics and at exit."""
    import os

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    p = subprocess.run([sys.executable, "-c", _RSS, str(spill_bytes), str(budget), *argv], capture_output=True, text=True,
                       env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    read, end = p.stderr.split("PEAK")[-1].split()[:2]
    return int(read), int(end), p.stdout


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak RSS from /proc")
@pytest.mark.slow  # peak RSS of subprocesses
def test_spilled_peak_rss_is_below_the_in_memory_path(tmp_path: Path) -> None:
    """300,000 samples of UUID-like ids (~15 s), spilled in batches of 20,000 records (a fifth
    of the default, so that the margin is clear): the peak while reading and the peak at exit
    are each >= 10 MB lower spilled (measured: ~70 MB vs ~87 MB).  The default batch is
    measured by benchmarks/bench_inspect.py --tiny-sizes."""
    log = tiny_log(tmp_path / "tiny.json", 300_000, uuid_ids=True)
    read_mem, end_mem, want = _peak_kb([str(log)], 2**62)
    read_spill, end_spill, got = _peak_kb([str(log)], 0, 20_000)
    _close(json.loads(got), json.loads(want), "tiny")
    assert read_spill < read_mem - 10_000, (read_spill, read_mem)
    assert end_spill < end_mem - 10_000, (end_spill, end_mem)


