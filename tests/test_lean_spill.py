"""The spilled lean ``summarize`` of a large ``.json`` log (:mod:`evaladdon.routes.inspect_spill`)
gives the in-memory lean path's records (floats to 1e-12), notes, exit codes and error
lines, with the spill threshold forced to zero, K = 2, 4, 16 partitions and batches of one
partition, of several, and of the whole log (then the very bytes of the in-memory path's
output); and its peak RSS on a log of many samples is below the in-memory path's (a
subprocess each)."""

from __future__ import annotations

import contextlib
import copy
import io
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
from test_inspect_batches import _base, _write
from test_lean_summarize import _edge_json

KS = (2, 4, 16)
BATCHED: list[bool] = []  # per spilled run of budget 30: several batches, one of several partitions
WHOLE = 2**62  # a batch budget no log reaches: the whole log is one batch
CONFIGS = ((2, 0), (4, 30), (16, 30), (16, WHOLE))
"""(K partitions, batch budget in records): a partition a batch, a few partitions a batch, one batch."""


LIMITS: dict[str, Any] = {}
"""This test's :class:`RouteLimits` (the fields it sets; the others default)."""
LAST: dict[str, str] = {}
"""Which route the last :func:`_main` took: ``{"path": "lean"}`` or ``{"path": "table"}``."""
SPILLS = [0]
"""Spilled summaries so far (the ``inspect_columns`` route's outcome says ``spilled``)."""


@pytest.fixture(autouse=True)
def _default_limits() -> Any:
    LIMITS.clear()
    yield
    LIMITS.clear()


def _limit(**fields: Any) -> None:
    LIMITS.update(fields)


def _main(argv: list[str]) -> tuple[Any, str, str, dict[str, str]]:
    """``main(argv)`` with this test's limits: exit code, stdout, stderr, the route taken."""
    outcomes: list[Any] = []
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc: Any = main(argv, routes=RoutePolicy(limits=RouteLimits(**LIMITS), observe=outcomes.append))
        except SystemExit as exc:
            rc = exc.code
    LAST.clear()
    if outcomes:
        LAST["path"] = "lean" if outcomes[0].route == "inspect_columns" else "table"
        SPILLS[0] += outcomes[0].detail == "spilled"
    return rc, out.getvalue(), err.getvalue(), dict(LAST)


def _run(argv: list[str], monkeypatch: pytest.MonkeyPatch, k: int | None,
         budget: int = 0) -> tuple[Any, str, str, dict[str, str]]:
    """``main(argv)``: in memory (``k`` None) or spilled to ``k`` partitions, built in
    batches of up to ``budget`` records (0: one partition a batch)."""
    _limit(spill_bytes=2**62 if k is None else -1, max_records=2**62, parts=k, batch_records=budget)
    return _main(argv)


def _close(a: Any, b: Any, where: str) -> None:
    """Two outputs agree: key order kept, floats to 1e-12 (of the larger magnitude, at least 1)."""
    assert not (m := mismatches(a, b, where, atol=1e-12, ordered_keys=True)), m


def _same_spilled(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> bool:
    """Every K and batch budget gives what the in-memory path gives (one batch: the same
    bytes); whether the spilled path answered."""
    want = _run(argv, monkeypatch, None)
    spilled = True
    real = spill.batches
    for k, budget in CONFIGS:
        before = SPILLS[0]
        made: list[list[list[int]]] = []
        monkeypatch.setattr(spill, "batches", lambda *a, made=made: made.append(real(*a)) or made[-1])
        got = _run(argv, monkeypatch, k, budget)
        if made and made[0]:  # the batches: a partition each, or all partitions with records in one
            parts = [i for batch in made[0] for i in batch]
            assert parts == sorted(parts) and len(parts) <= k
            if budget == 0:
                assert all(len(batch) == 1 for batch in made[0])
            elif budget == WHOLE:
                assert len(made[0]) == 1
            BATCHED.append(max(map(len, made[0])) > 1 and len(made[0]) > 1 and budget == 30)
        assert got[0] == want[0], (argv, k, got[3], want[3], got[2], want[2])
        assert got[2] == want[2], (argv, k)
        # (the spilled path may hand over where the in-memory one answers, e.g. the bootstrap:
        # the table path then prints what the in-memory lean path does, test_lean_summarize)
        assert got[3].get("path") == want[3].get("path") or got[3].get("path") == "table", (argv, k, got[3])
        if budget == WHOLE and got[3].get("path") == "lean":
            assert got[1] == want[1], (argv, k)  # one part: estimate_mean's own numbers
        elif want[0] == 0 and argv[1] == "--json":
            _close(json.loads(got[1]), json.loads(want[1]), f"{argv} K={k}")
        else:
            assert got[1] == want[1], (argv, k)
        spilled &= SPILLS[0] == before + 1
    return spilled


def _real_json_logs() -> list[Path]:
    from conftest import REAL_LOGS

    if not (REAL_LOGS / "manifest.json").is_file():
        return []
    entries = json.loads((REAL_LOGS / "manifest.json").read_text())
    return [REAL_LOGS / e["local"] for e in entries
            if (e.get("info") or {}).get("harness") == "inspect" and e["local"].endswith(".json")
            and (REAL_LOGS / e["local"]).is_file()]


def test_every_inspect_json_log_spilled_gives_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import NO_REAL_LOGS

    logs = _real_json_logs()  # (sample_logs/ has only .eval logs; crafted .json logs: the next test)
    if not logs:
        pytest.skip(NO_REAL_LOGS)
    n_spilled = 0
    for f in logs:
        n_spilled += _same_spilled(["summarize", "--json", str(f)], monkeypatch)
        _same_spilled(["summarize", str(f)], monkeypatch)
    assert n_spilled >= min(len(logs), 5)


def test_crafted_logs_spilled_give_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edge = _edge_json(tmp_path)  # duplicates (last wins), unscored, errors, limits, dict scores, epochs 1-2
    BATCHED.clear()
    assert _same_spilled(["summarize", "--json", str(edge)], monkeypatch)
    assert _same_spilled(["summarize", "--json", str(edge), "--cluster", "grp"], monkeypatch)
    assert _same_spilled(["summarize", "--json", str(edge), "--metric", "other"], monkeypatch)
    assert _same_spilled(["summarize", "--json", str(edge), "--level", "0.9", "--method", "t",
                          "--cluster-method", "cr1", "--cluster", "grp"], monkeypatch)
    assert _same_spilled(["summarize", str(edge)], monkeypatch)
    assert _same_spilled(["summarize", "--json", f"mine={edge}", "--cluster", "grp", "--metric", "match"], monkeypatch)
    assert _same_spilled(["summarize", f"mine={edge}", "--markdown"], monkeypatch)
    # handed to the table path, with its error: a cluster field missing for some samples,
    # a metric no row has; and not spilled: the bootstrap (in memory)
    for argv in (["summarize", "--json", str(edge), "--cluster", "nest.a.b"],
                 ["summarize", "--json", str(edge), "--metric", "nope"],
                 ["summarize", "--json", str(edge), "--method", "bootstrap"]):
        assert not _same_spilled(argv, monkeypatch), argv
    assert sum(BATCHED) >= 5  # (several batches, one of several partitions, in the runs that spilled)
    # many clusters (here: more than few_clusters = 1): re-routed by cluster, the same output
    _limit(few_clusters=1)
    assert _same_spilled(["summarize", "--json", str(edge), "--cluster", "grp"], monkeypatch)
    assert _same_spilled(["summarize", "--json", str(edge), "--level", "0.9", "--method", "t",
                          "--cluster-method", "cr1", "--cluster", "grp"], monkeypatch)
    assert not _same_spilled(["summarize", "--json", str(edge), "--cluster", "nest.a.b"], monkeypatch)


def _two_cluster_log(tmp_path: Path, k: int) -> tuple[Path, dict[str, Any], list[Any], list[Any]]:
    """Two epochs of the base samples in ``k`` clusters (field ``c``), every other item's
    second epoch in another cluster than its first: (the log, the base header and samples,
    the log's samples)."""
    header, samples = _base()
    two = []
    for i, s in enumerate(samples):
        s = copy.deepcopy(s)
        s["metadata"] = {"c": f"c{i % k}"}
        two.append(s)
        s2 = copy.deepcopy(s)
        s2["epoch"] = 2
        s2["metadata"] = {"c": f"c{(i + (i % 2)) % k}"}
        two.append(s2)
    return _write(tmp_path / "two.json", header, two), header, samples, two


def test_an_item_in_two_clusters_and_an_incomplete_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f, header, samples, two = _two_cluster_log(tmp_path, 7)
    assert not _same_spilled(["summarize", "--json", str(f), "--cluster", "c"], monkeypatch)  # the same error
    rc, _, err, _ = _run(["summarize", "--json", str(f), "--cluster", "c"], monkeypatch, 4)
    assert rc == 2 and "an item lies in two clusters" in err
    assert _same_spilled(["summarize", "--json", str(f)], monkeypatch)
    # replaced records in another cluster: no item in two clusters once the last record wins
    # (the spilled path hands such a log to the table path)
    clean = [{**copy.deepcopy(s), "metadata": {"c": f"c{sum(map(ord, str(s['id']))) % 7}"}} for s in two]
    again = copy.deepcopy(clean[:20:2]) + clean
    for s in again[:10]:
        s["metadata"] = {"c": "elsewhere"}
    f = _write(tmp_path / "dup.json", header, again)
    _same_spilled(["summarize", "--json", str(f), "--cluster", "c"], monkeypatch)
    assert _run(["summarize", "--json", str(f), "--cluster", "c"], monkeypatch, None)[3] == {"path": "lean"}
    f = _write(tmp_path / "clean.json", header, clean)
    assert _same_spilled(["summarize", "--json", str(f), "--cluster", "c"], monkeypatch)
    # incomplete, with errors, limits and a sample without scores; a score name only on the dropped record
    head = {**header, "status": "cancelled", "results": {**(header.get("results") or {}), "total_samples": 10**4}}
    few = [copy.deepcopy(s) for s in samples[:30]]
    few[3]["error"] = {"message": "x"}
    few[4]["scores"] = None
    few[5]["limit"], few[5]["scores"] = {"type": "message"}, None
    few.append({**copy.deepcopy(few[6]), "scores": {"late": {"value": 1}}})
    few.insert(7, {**copy.deepcopy(few[8]), "scores": {"gone": {"value": 0.5}}})
    f = _write(tmp_path / "inc.json", head, few)
    assert _same_spilled(["summarize", "--json", str(f)], monkeypatch)
    assert _same_spilled(["summarize", str(f), "--markdown"], monkeypatch)


def test_small_logs_take_the_in_memory_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edge = _edge_json(tmp_path)
    _limit(spill_bytes=edge.stat().st_size)  # not above: not spilled
    before = SPILLS[0]
    assert _main(["summarize", "--json", str(edge)])[0] in (0, None)
    assert SPILLS[0] == before and LAST.get("path") == "lean"


def test_a_small_log_of_many_records_is_spilled_after_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below ``spill_bytes``, a lone .json log with more than ``max_records`` records is read again
    spilled (the same output); at ``max_records``, or as one of several inputs, it is not."""
    edge = _edge_json(tmp_path)
    n = len(json.loads(edge.read_text())["samples"])
    for argv in (["summarize", "--json", str(edge)], ["summarize", "--json", str(edge), "--cluster", "grp"],
                 ["summarize", f"mine={edge}", "--markdown"]):
        want = _run(argv, monkeypatch, None)
        for cap, spilled in ((n - 1, True), (n, False), (0, True)):
            _limit(max_records=cap)
            _limit(spill_bytes=2**62)
            before = SPILLS[0]
            rc, out, _, took = _main(argv)
            assert (rc or 0, took) == (want[0] or 0, {"path": "lean"}), argv
            assert SPILLS[0] == before + spilled, (argv, cap)
            if argv[1] == "--json":
                _close(json.loads(out), json.loads(want[1]), f"{argv} cap={cap}")
            else:
                assert out == want[1]
    other = _edge_json(tmp_path / "b") if (tmp_path / "b").mkdir() is None else None
    _limit(max_records=0)
    before = SPILLS[0]
    assert _main(["summarize", "--json", str(edge), str(other)])[0] in (0, None)
    assert SPILLS[0] == before and LAST.get("path") == "lean"
    # the bootstrap resamples all values at once: in memory, above both bounds
    _limit(spill_bytes=-1)
    assert _main(["summarize", "--json", str(edge), "--method", "bootstrap"])[0] in (0, None)
    assert SPILLS[0] == before and LAST.get("path") == "lean"


def test_the_temporary_directory_goes_also_on_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    made: list[str] = []
    real = tempfile.TemporaryDirectory

    class Watch(real):  # type: ignore[misc, valid-type]
        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, **k)
            made.append(self.name)

    monkeypatch.setattr(tempfile, "TemporaryDirectory", Watch)
    edge = _edge_json(tmp_path)
    _run(["summarize", "--json", str(edge), "--cluster", "nest.a.b"], monkeypatch, 4)
    _run(["summarize", "--json", str(edge)], monkeypatch, 4)
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
        rc = _run(["summarize", "--json", str(edge)], monkeypatch, 4)[0]
    except KeyboardInterrupt:
        rc = "interrupted"
    assert rc not in (0, None) and len(seen) == 30
    assert len(made) == 3 and not any(Path(d).exists() for d in made)


def test_partitions_keep_items_and_clusters_whole(tmp_path: Path) -> None:
    """Every record of an id lands in one partition; with a cluster field re-routed (many
    clusters: :func:`spill.reroute`), every record of a cluster, each file in sequence order;
    the router counts the distinct labels up to few_clusters; an id in two clusters refused."""
    from evaladdon.adapters.inspect_rows import SampleRecord, Score

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


def _tiny_log(path: Path, n: int, uuid_ids: bool = False) -> Path:
    """A ``.json`` log of ``n`` tiny samples (4 epochs of n/4 items, a cluster per 50 items;
    ids ``q<i>`` or UUID-like), written a sample at a time."""
    header, _ = _base()
    header = {k: v for k, v in header.items() if k != "samples"}
    with path.open("w") as fh:
        fh.write(json.dumps(header)[:-1] + ', "samples": [')
        for i in range(n):
            item, epoch = i % (n // 4), i // (n // 4) + 1
            value = "CI"[(item * 7 + epoch * 3) % 5 == 0]
            sid = f"{item:08x}-4a1b-4c2d-8e3f-{item * 2654435761 % 2**48:012x}" if uuid_ids else f"q{item}"
            fh.write(("," if i else "") + json.dumps({"id": sid, "epoch": epoch, "metadata": {"passage": f"p{item // 50}"},
                                                       "scores": {"match": {"value": value}}}))
        fh.write("]}")
    return path


_RSS = """
import sys
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
    log = _tiny_log(tmp_path / "tiny.json", 300_000, uuid_ids=True)
    read_mem, end_mem, want = _peak_kb([str(log)], 2**62)
    read_spill, end_spill, got = _peak_kb([str(log)], 0, 20_000)
    _close(json.loads(got), json.loads(want), "tiny")
    assert read_spill < read_mem - 10_000, (read_spill, read_mem)
    assert end_spill < end_mem - 10_000, (end_spill, end_mem)


def test_lopsided_clusters_are_read_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --cluster, a log whose clusters put most records in one partition is read in
    memory after all (spilling would hold that partition whole, at more memory than the
    in-memory read): the in-memory output, and no spilled run; below the bound it spills."""
    log = _tiny_log(tmp_path / "few.json", 400)
    text = log.read_text()
    for i in range(2, 200 // 50 + 1):  # every passage label "p<i>" -> "p0" or "p1": two clusters
        text = text.replace(f'"passage": "p{i}"', f'"passage": "p{i % 2}"')
    log.write_text(text)
    argv = ["summarize", "--json", str(log), "--cluster", "passage"]
    want = _run(argv, monkeypatch, None)
    assert LAST.get("path") == "lean" and want[0] in (0, None)
    assert spill.lopsided([300, 100], RouteLimits.lopsided_records) is False  # (the default bound: far above these counts)
    _limit(few_clusters=1)  # (few clusters are spilled by id: test below; here re-routed)
    for bound, spilled in ((2**62, True), (50, False)):
        _limit(lopsided_records=bound)
        before = SPILLS[0]
        got = _run(argv, monkeypatch, 4, 30)
        assert SPILLS[0] == before + spilled, bound
        assert got[0] == want[0] and got[2] == want[2] and got[3] == {"path": "lean"}
        if spilled:
            _close(json.loads(got[1]), json.loads(want[1]), "spilled")
        else:
            assert got[1] == want[1]
    assert spill.lopsided([51, 51, 51, 51], 50) is False and spill.lopsided([51, 51, 51, 52], 50) is True
    assert spill.lopsided([50, 1], 50) is False


def test_few_large_clusters_are_spilled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --cluster on a field of 2 or 3 values, the log is spilled by id in several batches
    (clusters spanning batches: global cluster codes) and gives the in-memory output (floats to
    1e-12), however lopsided; with few_clusters below the number of labels it is re-routed by
    cluster, and gives the same."""
    log = _tiny_log(tmp_path / "few.json", 400)
    text = log.read_text()
    for i in range(1, 200 // 50 + 1):
        text = text.replace(f'"passage": "p{i}"', f'"passage": "p{i % 3}"')
    log.write_text(text)
    two = tmp_path / "two.json"
    two.write_text(text.replace('"passage": "p2"', '"passage": "p0"'))
    _limit(lopsided_records=50)  # (a low bound: still spilled)
    real = spill.batches
    made: list[list[list[int]]] = []
    monkeypatch.setattr(spill, "batches", lambda *a: made.append(real(*a)) or made[-1])
    for f, n_labels in ((log, 3), (two, 2)):
        for argv in (["summarize", "--json", str(f), "--cluster", "passage"],
                     ["summarize", "--json", str(f), "--cluster", "passage", "--cluster-method", "cr1"],
                     ["summarize", str(f), "--cluster", "passage", "--markdown"]):
            want = _run(argv, monkeypatch, None)
            assert want[3] == {"path": "lean"} and want[0] in (0, None)
            for few, k, budget in ((RouteLimits.few_clusters, 4, 30), (RouteLimits.few_clusters, 16, 0), (n_labels, 2, 30),
                                   (n_labels - 1, 16, 30)):
                _limit(few_clusters=few)
                _limit(lopsided_records=50 if few >= n_labels else 2**62)
                before = SPILLS[0]
                made.clear()
                got = _run(argv, monkeypatch, k, budget)
                assert SPILLS[0] == before + 1, (argv, few, k)  # spilled, not read in memory
                assert len(made[0]) > 1  # (several batches: clusters across parts)
                assert got[0] == want[0] and got[2] == want[2] and got[3] == {"path": "lean"}
                if argv[1] == "--json":
                    _close(json.loads(got[1]), json.loads(want[1]), f"{argv} few={few} K={k}")
                else:
                    assert got[1] == want[1], (argv, few, k)


def test_an_item_in_two_clusters_rerouted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both routes (by id with global cluster codes, and re-routed by cluster) hand an item in
    two clusters to the table path: the in-memory path's error line, no spilled run."""
    f = _two_cluster_log(tmp_path, 3)[0]
    argv = ["summarize", "--json", str(f), "--cluster", "c"]
    want = _run(argv, monkeypatch, None)
    assert want[0] == 2 and "an item lies in two clusters" in want[2]
    for few in (50_000, 1):
        _limit(few_clusters=few)
        for k, budget in ((4, 30), (2, WHOLE)):
            before = SPILLS[0]
            got = _run(argv, monkeypatch, k, budget)
            assert got[:3] == want[:3] and SPILLS[0] == before, (few, k)
