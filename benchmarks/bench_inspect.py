"""Reading Inspect logs: evaladdon's native reader vs Inspect's readers vs the raw floor.

Generates (once, cached in ``--dir``) a real Inspect run, offline: ``mockllm/model`` with
``custom_outputs`` that answer from the prompt and set ``usage`` (the bare mock would
download a tokenizer), 100 samples, one epoch, ~1.5 KB input from 500 passages and
~0.5 KB output per sample, ``match()`` scorer (also the small log for per-file overhead);
then grows it to N samples (default 20,000) by copying its records under new ids into an
``.eval`` (Inspect's layout, zstd) and a ``.json`` log (see :func:`grow`).  Then measures, side by side in one
run, each in a fresh subprocess (wall time of the work inside it, imports included; peak
RSS from ``VmHWM`` in ``/proc/self/status``, else ``resource.getrusage``):

- ``.eval``: evaladdon native reader, Inspect ``read_eval_log`` (full), Inspect header +
  ``read_eval_log_sample_summaries``, ``inspect_ai.analysis.samples_df``, and the raw floor
  (zip + zstd + orjson of ``header.json`` and ``summaries.json``);
- ``.json``: evaladdon native reader (ijson stream), Inspect full read, summaries, and the raw
  floor (ijson C backend iterating ``samples[*]``);
- 1 / 10 / 100 small ``.eval`` files: native reader (one table per file), ``read_runs`` (one
  table of all), Inspect summaries, raw floor; per extra file (CPU after the imports in fresh
  processes, 100 files minus 1, best of 5) and in one process after a first read (the floor and
  ``read_runs`` interleaved, best of 10), each as a ratio to the floor of the same run
  (``--per-file-only``: only these);
- growth: CPU a file of the raw floor and of ``read_runs`` on 1 -> 10 -> 100 -> 1,000 small
  ``.eval`` files (``--files``), fresh processes after the imports and a warm-up read of
  another file, each as a ratio to the floor of its row, and per extra file (``--growth-only``:
  only this).  ``--code CHECKOUT`` times that checkout's evaladdon beside this one's (here and
  in the ``.json`` rows), e.g. ``--code /work/main`` before a change is merged.

Each row shows wall and CPU seconds (imports included), CPU without imports (the same program
given no file subtracted) and peak RSS, each also as a ratio to the raw floor of that block.
``--rss-sizes 20000,60000,200000`` adds the peak RSS of the ``.json`` reader and of
``summarize`` as the log grows (logs of those sizes generated once into ``--rss-dir``, default
``--dir``), with the growth per 10,000 samples between the first and the last size, and the
peak RSS and CPU of the lean ``summarize`` (the CLI on Inspect logs, no pandas:
:mod:`evaladdon.routes.inspect_columns`) of the ``.json`` and ``.eval`` logs of each size
(``--lean-only``: only that and the floor), and the same spilled to partitions on disk
(:mod:`evaladdon.routes.inspect_spill`, threshold forced to 0).  ``--tiny-sizes 1000000,2000000`` (with
``--rss-only``) compares the lean summarize in memory and spilled on generated logs of that
many tiny samples (:func:`tiny_log`).

    python benchmarks/bench_inspect.py [--n 20000] [--dir /tmp/evaladdon-bench-inspect] [--rss-sizes 20000,60000]
        [--rss-dir DIR] [--rss-only] [--lean-only] [--tiny-sizes 1000000] [--per-file-only]
        [--growth-only] [--files 1,10,100,1000] [--code /work/main]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_args import child_env

REPO = Path(__file__).resolve().parent.parent
SAMPLE_EVAL = REPO / "sample_logs" / "inspect" / "baseline.eval"
N_PASSAGES = 500
WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
         "upsilon phi chi psi omega").split()


def _passage(p: int) -> str:
    import random

    rng = random.Random(p)
    return " ".join(rng.choice(WORDS) for _ in range(230))  # ~1.5 KB


def run_harness(n: int, dest: Path) -> Path:
    """A real Inspect run of ``n`` samples, written by the harness itself (``.eval``, zstd)."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import accuracy, match, stderr

    passages = [_passage(p) for p in range(N_PASSAGES)]
    samples = [Sample(id=f"s{i:06d}", input=f"[{i}] {passages[i % N_PASSAGES]} What is the answer?",
                      target=str(i % 7), metadata={"passage": f"p{i % N_PASSAGES:03d}"}) for i in range(n)]
    tail = " ".join(WORDS) * 3  # ~0.5 KB of output

    def answer(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        i = int(messages[-1].text.split("]")[0][1:])
        guess = str(i % 7) if (i * 2654435761) % 100 < 70 else "x"
        out = ModelOutput.from_content(model="mockllm/model", content=f"{tail} ANSWER: {guess}")
        out.usage = ModelUsage(input_tokens=400, output_tokens=120, total_tokens=520)
        return out

    task = Task(dataset=samples, scorer=match(location="end"), metrics=[accuracy(), stderr()], name="bench")
    with tempfile.TemporaryDirectory() as tmp:
        (log,) = eval(task, model=get_model("mockllm/model", custom_outputs=answer), log_dir=tmp, display="none",
                      max_samples=64)
        if log.status != "success":
            raise RuntimeError(f"benchmark run ended with status {log.status}")
        shutil.copyfile(log.location, dest)
    return dest


def grow(base: Path, n: int, dest_eval: Path, dest_json: Path) -> None:
    """``n`` samples from a real harness run of fewer: its sample records copied under new ids
    (``s000000``...), unchanged otherwise, into an ``.eval`` with Inspect's layout and
    compression (zstd) and into a ``.json`` log with Inspect's key order.  (Running 20,000
    samples through the harness and its writer takes CPU-hours on 2 shared cores.)"""
    import zipfile

    import orjson
    import zipfile_zstd  # noqa: F401  - Inspect's dependency: zstd members for the stdlib zipfile

    sys.path.insert(0, str(REPO))
    from evaladdon.adapters.common.guard import read_member

    with zipfile.ZipFile(base) as zin:
        members = {i.filename: orjson.loads(read_member(zin, i, str(base))) for i in zin.infolist()
                   if i.filename.endswith(".json")}
    header, summaries = members["header.json"], members["summaries.json"]
    samples = [members[f"samples/{s['id']}_epoch_{s['epoch']}.json"] for s in summaries]
    m = len(samples)
    header["eval"]["dataset"]["samples"] = n
    header["results"]["total_samples"] = header["results"]["completed_samples"] = n

    def renamed(record: dict, i: int) -> dict:  # type: ignore[type-arg]
        return {**record, "id": f"s{i:06d}", "metadata": {"passage": f"p{i % N_PASSAGES:03d}"}}

    with zipfile.ZipFile(dest_eval, "w", compression=93) as zout:
        zout.writestr("_journal/start.json", orjson.dumps(members["_journal/start.json"]))
        for i in range(n):
            zout.writestr(f"samples/s{i:06d}_epoch_1.json", orjson.dumps(renamed(samples[i % m], i)))
        zout.writestr("summaries.json", orjson.dumps([renamed(summaries[i % m], i) for i in range(n)]))
        if "reductions.json" in members:
            zout.writestr("reductions.json", orjson.dumps(members["reductions.json"]))
        zout.writestr("header.json", orjson.dumps(header))
    with dest_json.open("wb") as out:
        out.write(orjson.dumps(header)[:-1] + b',"samples":[')
        for i in range(n):
            out.write((b"," if i else b"") + orjson.dumps(renamed(samples[i % m], i)))
        out.write(b"]}")


# Each measurement is a small program run in its own interpreter; PATHS is a JSON list.
PRELUDE = """
import json, resource, sys, time
sys.path.insert(0, {repo!r})
PATHS = json.loads(sys.argv[1])
t0 = time.perf_counter()
c0 = time.process_time()
"""
EPILOGUE = """
seconds = time.perf_counter() - t0
cpu = time.process_time() - c0
# VmHWM: the peak RSS of this process image (ru_maxrss would carry over the parent's peak through fork)
hwm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")]
rss = hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "cpu": cpu, "rss_mb": rss / 1024}))
"""
# The floor's read of one zip member (zstd, method 93, through zstandard), shared by its programs.
FLOOR_MEMBER = """
def member(zf, name):
    info = zf.getinfo(name)
    if info.compress_type != 93:
        return zf.read(name)
    fh = zf.fp; fh.seek(info.header_offset); head = fh.read(30)
    fh.seek(info.header_offset + 30 + int.from_bytes(head[26:28], "little") + int.from_bytes(head[28:30], "little"))
    with zstandard.ZstdDecompressor().stream_reader(fh.read(info.compress_size), read_across_frames=True) as r:
        return r.read()
"""
WORK = {
    "evaladdon native": """
from evaladdon.adapters.inspect.log import read_inspect_log
for p in PATHS:
    df = read_inspect_log(p, cluster="passage", reader="native")
""",
    "evaladdon read_runs": """
from evaladdon.adapters import read_runs
if PATHS:
    read_runs(PATHS, cluster="passage")
else:
    import pandas, orjson, zstandard  # what reading imports (read_runs refuses no input)
""",
    "evaladdon summarize": """
from evaladdon.adapters import read_runs
from evaladdon.analysis.summarize import summarize_table
summarize_table(read_runs(PATHS, cluster="passage").table, notes=[])
""",
    "evaladdon summarize (lean)": """
import contextlib, io
from evaladdon.cli.main import main
from evaladdon.analysis.options import RouteLimits, RoutePolicy
took = []  # in memory, whatever the size
policy = RoutePolicy(only="inspect_columns", limits=RouteLimits(spill_bytes=2**62, max_records=2**62), observe=took.append)
if PATHS:
    with contextlib.redirect_stdout(io.StringIO()):
        rc = main(["summarize", "--json", "--cluster", "passage", *PATHS], routes=policy)
    assert rc == 0 and took[0].detail is None, (rc, took)
else:  # what the lean path imports (the statistics, the CLI, orjson and ijson)
    import evaladdon.cli.summarize_cmd, evaladdon.adapters.inspect.native, evaladdon.stats.mean, ijson
assert "pandas" not in sys.modules
""",
    "evaladdon summarize (lean, spilled)": """
import contextlib, io
from evaladdon.cli.main import main
from evaladdon.analysis.options import RouteLimits, RoutePolicy
took = []  # spilled to partitions on disk, whatever the size
policy = RoutePolicy(only="inspect_columns", limits=RouteLimits(spill_bytes=0), observe=took.append)
if PATHS:
    with contextlib.redirect_stdout(io.StringIO()):
        rc = main(["summarize", "--json", "--cluster", "passage", *PATHS], routes=policy)
    assert rc == 0 and took[0].detail == "spilled", (rc, took)
else:  # what the lean path imports (the statistics, the CLI, orjson and ijson)
    import evaladdon.cli.summarize_cmd, evaladdon.adapters.inspect.native, evaladdon.stats.mean, ijson
assert "pandas" not in sys.modules
""",
    "summarize CLI, table path": """
import contextlib, io
from evaladdon.cli.main import main
from evaladdon.analysis.options import RoutePolicy
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["summarize", "--json", *PATHS], routes=RoutePolicy(only="table")) == 0
""",
    "summarize CLI, lean": """
import contextlib, io
from evaladdon.cli.main import main
from evaladdon.analysis.options import RoutePolicy
took = []
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["summarize", "--json", *PATHS], routes=RoutePolicy(observe=took.append)) == 0
assert took[0].route == "inspect_columns"
""",
    "inspect read_eval_log (full)": """
from inspect_ai.log import read_eval_log
for p in PATHS:
    log = read_eval_log(p)
""",
    "inspect header+summaries": """
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
for p in PATHS:
    h = read_eval_log(p, header_only=True)
    s = read_eval_log_sample_summaries(p)
""",
    "inspect samples_df": """
from inspect_ai.analysis import samples_df
df = samples_df(PATHS, quiet=True)
""",
    "raw floor (zip+orjson)": """
import zipfile, orjson, zstandard
""" + FLOOR_MEMBER + """for p in PATHS:
    with zipfile.ZipFile(p) as zf:
        h = orjson.loads(member(zf, "header.json")); s = orjson.loads(member(zf, "summaries.json"))
""",
    "raw floor (ijson stream)": """
import ijson
backend = ijson.get_backend("yajl2_c")
for p in PATHS:
    with open(p, "rb") as fh:
        n = sum(1 for _ in backend.items(fh, "samples.item", use_float=True, buf_size=2**20))
""",
}


def measure(name: str, paths: list[Path], repeat: int = 1, repo: Path = REPO) -> dict[str, float]:
    """Best of ``repeat`` fresh processes: wall seconds and CPU seconds of the work (imports
    included), peak RSS.  ``repo``: the checkout whose evaladdon runs (``--code``)."""
    code = PRELUDE.format(repo=str(repo)) + WORK[name] + EPILOGUE
    best: dict[str, float] | None = None
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, "-c", code, json.dumps([str(p) for p in paths])],
                              capture_output=True, text=True, env=child_env(PYTHONWARNINGS="ignore"))
        if proc.returncode != 0:
            raise RuntimeError(f"{name} failed: {proc.stderr.strip().splitlines()[-1:]}")
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        best = got if best is None or got["seconds"] < best["seconds"] else best
    assert best is not None
    return best


def table(title: str, rows: dict[str, dict[str, float]], floor: str,
          imports: dict[str, dict[str, float]] | None = None) -> None:
    """Wall and CPU seconds as ratios to the floor; with ``imports`` (the same programs given
    no file), also CPU without imports (the work itself)."""
    f = rows[floor]
    print(f"\n{title}")
    print(f"  {'reader':32s} {'wall s':>7s} {'x floor':>7s} {'CPU s':>7s} {'x floor':>7s} {'CPU-imp':>7s} "
          f"{'x floor':>7s} {'RSS MB':>7s} {'x floor':>7s}")
    work = {k: r["cpu"] - imports[k]["cpu"] for k, r in rows.items() if imports and k in imports}
    for name, r in rows.items():
        w = (f"{work[name]:7.2f} {work[name] / work[floor]:7.2f}" if name in work and floor in work
             and work[floor] > 0 else f"{'':7s} {'':7s}")
        print(f"  {name:32s} {r['seconds']:7.2f} {r['seconds'] / f['seconds']:7.2f} {r['cpu']:7.2f} "
              f"{r['cpu'] / f['cpu']:7.2f} {w} {r['rss_mb']:7.0f} {r['rss_mb'] / f['rss_mb']:7.2f}")


IN_PROCESS = """
import gc, json, sys, time, zipfile, orjson, zstandard
sys.path.insert(0, {repo!r})
import pandas
from evaladdon.adapters import read_runs
PATHS = json.loads(sys.argv[1])
""" + FLOOR_MEMBER + """def floor():
    for p in PATHS:
        with zipfile.ZipFile(p) as zf:
            h = orjson.loads(member(zf, "header.json")); s = orjson.loads(member(zf, "summaries.json"))
def ours():
    read_runs(PATHS, cluster="passage")
best = {{"floor": 1e9, "read_runs": 1e9}}
floor(); ours()
for _ in range({repeat}):  # interleaved, best of each: the floor and read_runs see the same load
    for name, fn in (("floor", floor), ("read_runs", ours)):
        gc.collect()
        c = time.process_time(); fn(); best[name] = min(best[name], time.process_time() - c)
print(json.dumps(best))
"""


FRESH = """
import json, sys, time, zipfile, orjson, zstandard
sys.path.insert(0, {repo!r})
import pandas
from evaladdon.adapters import read_runs
from evaladdon.adapters.inspect.log import read_inspect_log
PATHS = json.loads(sys.argv[1])
WHAT = sys.argv[2]
""" + FLOOR_MEMBER + """c0 = time.process_time()
if WHAT == "floor":
    for p in PATHS:
        with zipfile.ZipFile(p) as zf:
            h = orjson.loads(member(zf, "header.json")); s = orjson.loads(member(zf, "summaries.json"))
elif WHAT == "native":
    for p in PATHS:
        df = read_inspect_log(p, cluster="passage", reader="native")
else:
    read_runs(PATHS, cluster="passage")
print(json.dumps({{"cpu": time.process_time() - c0}}))
"""


def fresh_cpu(what: str, paths: list[Path], repeat: int) -> float:
    """CPU seconds of ``what`` (floor, native, read_runs) on ``paths`` in a fresh process,
    after its imports (first uses included), best of ``repeat``."""
    code = FRESH.format(repo=str(REPO))
    best = float("inf")
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, "-c", code, json.dumps([str(p) for p in paths]), what],
                              capture_output=True, text=True, env=child_env(PYTHONWARNINGS="ignore"))
        if proc.returncode != 0:
            raise RuntimeError(f"{what} failed: {proc.stderr.strip().splitlines()[-1:]}")
        best = min(best, json.loads(proc.stdout.strip().splitlines()[-1])["cpu"])
    return best


def in_process(paths: list[Path], repeat: int = 3) -> dict[str, float]:
    """CPU seconds of the raw floor and of ``read_runs`` on ``paths`` in one process after
    its imports and a first read (best of ``repeat``, interleaved)."""
    code = IN_PROCESS.format(repo=str(REPO), repeat=repeat)
    proc = subprocess.run([sys.executable, "-c", code, json.dumps([str(p) for p in paths])],
                          capture_output=True, text=True, env=child_env(PYTHONWARNINGS="ignore"))
    if proc.returncode != 0:
        raise RuntimeError(f"in-process measurement failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def per_file(copies: list[Path], r: int) -> None:
    """Per-file overhead: fresh processes (1 vs 100 files) and in one process, beside the floor."""
    r = max(r, 5)  # a few milliseconds a file: best of 5 at least
    names = {"floor": "raw floor (zip+orjson)", "native": "evaladdon native (a table a file)",
             "read_runs": "evaladdon read_runs"}
    # the fresh processes interleaved (each program on all files and on one, then again), so a
    # drift of the machine's speed over the minutes of the run touches the floor and ours alike
    best = {(what, k): float("inf") for what in names for k in (len(copies), 1)}
    for _ in range(r):
        for what in names:
            for k in (len(copies), 1):
                best[what, k] = min(best[what, k], fresh_cpu(what, copies[:k], 1))
    extra = {what: (best[what, len(copies)] - best[what, 1]) / (len(copies) - 1) for what in names}
    print(f"\nper extra file ({len(copies)} files minus 1 file, / {len(copies) - 1}; fresh processes, CPU after "
          f"the imports, best of {r}, interleaved), and as a ratio to the floor's:")
    for what, name in names.items():
        print(f"  {name:36s} {extra[what] * 1000:8.2f} ms CPU {extra[what] / extra['floor']:6.2f}x")
    got = in_process(copies, 2 * r)
    print(f"in one process, {len(copies)} files, CPU a file (best of {2 * r}): raw floor "
          f"{got['floor'] / len(copies) * 1000:.2f} ms, read_runs {got['read_runs'] / len(copies) * 1000:.2f} ms "
          f"({got['read_runs'] / got['floor']:.2f}x)")


GROWTH = """
import json, sys, time, zipfile, orjson, zstandard
sys.path.insert(0, {repo!r})
import pandas
from evaladdon.adapters import read_runs
PATHS, WARM, WHAT = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
""" + FLOOR_MEMBER + """def floor(paths):
    for p in paths:
        with zipfile.ZipFile(p) as zf:
            h = orjson.loads(member(zf, "header.json")); s = orjson.loads(member(zf, "summaries.json"))
def ours(paths):
    read_runs(paths, cluster="passage")
fn = floor if WHAT == "floor" else ours
fn([WARM])  # one other file first: first uses (lazy imports, caches) are not counted per file
c0 = time.process_time()
fn(PATHS)
print(json.dumps({{"cpu": time.process_time() - c0}}))
"""


def growth(copies: list[Path], warm: Path, counts: list[int], codes: dict[str, Path], repeat: int) -> None:
    """CPU a file of the raw floor and of ``read_runs`` (this checkout and each of ``codes``)
    on 1, 10, 100, 1,000 ... small ``.eval`` files, fresh processes after the imports and one
    read of another file, best of ``repeat``, the programs interleaved; each as a ratio to the
    floor of the same row, and per extra file between the first and the last count."""
    jobs = {"floor": ("floor", REPO), **{f"read_runs ({name})": ("read_runs", repo) for name, repo in codes.items()}}
    best = {(job, k): float("inf") for job in jobs for k in counts}
    for _ in range(repeat):
        for k in counts:
            for job, (what, repo) in jobs.items():
                proc = subprocess.run([sys.executable, "-c", GROWTH.format(repo=str(repo)),
                                       json.dumps([str(p) for p in copies[:k]]), str(warm), what],
                                      capture_output=True, text=True, env=child_env(PYTHONWARNINGS="ignore"))
                if proc.returncode != 0:
                    raise RuntimeError(f"{job} failed: {proc.stderr.strip().splitlines()[-1:]}")
                got = json.loads(proc.stdout.strip().splitlines()[-1])["cpu"]
                best[job, k] = min(best[job, k], got)
    print(f"\ngrowth: CPU a file (ms) of k small .eval files of 100 samples, fresh processes after the imports "
          f"and one warm-up read, best of {repeat}, interleaved; x = ratio to the floor of the row")
    print(f"  {'files':>6s} " + " ".join(f"{job:>26s}" for job in jobs))
    for k in counts:
        f = best["floor", k]
        print(f"  {k:6d} " + " ".join(f"{best[job, k] / k * 1e3:17.3f} ({best[job, k] / f:4.2f}x)" if job != "floor"
                                      else f"{f / k * 1e3:26.3f}" for job in jobs))
    lo, hi = min(counts), max(counts)
    if hi > lo:
        extra = {job: (best[job, hi] - best[job, lo]) / (hi - lo) for job in jobs}
        print(f"  {'extra':>6s} " + " ".join(f"{extra[job] * 1e3:17.3f} ({extra[job] / extra['floor']:4.2f}x)"
                                           if job != "floor" else f"{extra[job] * 1e3:26.3f}" for job in jobs)
              + f"   (per extra file, {lo} -> {hi} files)")


def imports_only(names: tuple[str, ...], repeat: int) -> dict[str, dict[str, float]]:
    """The same programs given no file: what their imports cost."""
    return {name: measure(name, [], repeat) for name in names}


def rss_growth(args: argparse.Namespace, small: Path, imp: dict[str, dict[str, float]]) -> None:
    """Peak RSS of the native ``.json`` reader and of ``summarize`` at each ``--rss-sizes``."""
    if not args.rss_sizes:
        return
    where = args.rss_dir or args.dir
    where.mkdir(parents=True, exist_ok=True)
    print("\npeak RSS of the native .json reader as the log grows (imports alone: "
          f"{imp['evaladdon native']['rss_mb']:.0f} MB; of the lean summarize: "
          f"{imp['evaladdon summarize (lean)']['rss_mb']:.0f} MB), CPU with imports")
    got: dict[int, dict[str, float]] = {}
    lean: dict[int, dict[str, float]] = {}
    spilled: dict[int, dict[str, float]] = {}
    for n in args.rss_sizes:
        e, j = where / f"bench_{n}.eval", where / f"bench_{n}.json"
        if not j.exists():
            grow(small, n, e, j)
        floor = measure("raw floor (ijson stream)", [j], 1)
        lean[n] = measure("evaladdon summarize (lean)", [j], 1)
        if not args.lean_only:
            got[n] = measure("evaladdon native", [j], 1)
            summ = measure("evaladdon summarize", [j], 1)
            print(f"  {n:7d} samples, {j.stat().st_size / 2**20:6.0f} MiB: native {got[n]['rss_mb']:5.0f} MB "
                  f"({got[n]['cpu']:.1f} s CPU, {got[n]['cpu'] / floor['cpu']:.2f}x floor), summarize "
                  f"{summ['rss_mb']:5.0f} MB, floor {floor['rss_mb']:5.0f} MB ({floor['cpu']:.1f} s CPU)")
        work, fwork = (lean[n]["cpu"] - imp["evaladdon summarize (lean)"]["cpu"],
                       floor["cpu"] - imp["raw floor (ijson stream)"]["cpu"])
        print(f"  {n:7d} samples .json: lean summarize {lean[n]['rss_mb']:5.0f} MB, {lean[n]['cpu']:.1f} s CPU "
              f"({work:.1f} s without imports, {work / fwork:.2f}x the floor's {fwork:.1f} s)")
        spilled[n] = measure("evaladdon summarize (lean, spilled)", [j], 1)
        work = spilled[n]["cpu"] - imp["evaladdon summarize (lean)"]["cpu"]
        print(f"  {n:7d} samples .json: lean summarize spilled {spilled[n]['rss_mb']:5.0f} MB, "
              f"{spilled[n]['cpu']:.1f} s CPU ({work:.1f} s without imports, {work / fwork:.2f}x the floor's)")
        try:
            ev = measure("evaladdon summarize (lean)", [e], 1)
            print(f"  {n:7d} samples .eval ({e.stat().st_size / 2**20:.0f} MiB): lean summarize {ev['rss_mb']:5.0f} MB, "
                  f"{ev['cpu']:.1f} s CPU")
        except RuntimeError as exc:  # the grown logs repeat 100 records: past ~20,000 the ratio guard refuses them
            print(f"  {n:7d} samples .eval: not read ({exc})")
    for name, by_n in (("native reader", got), ("lean summarize", lean), ("lean summarize spilled", spilled)):
        lo, hi = (min(by_n), max(by_n)) if by_n else (0, 0)
        if hi > lo:
            slope = (by_n[hi]["rss_mb"] - by_n[lo]["rss_mb"]) / (hi - lo)  # MB a sample
            cross = f"{hi + (100 - by_n[hi]['rss_mb']) / slope:,.0f}" if slope > 0 else "never"
            print(f"  {name}: growth {lo} -> {hi} samples: {slope * 1e4:.2f} MB per 10,000 samples "
                  f"({slope * 2**20:.0f} bytes a sample); 100 MB crossed near {cross} samples (extrapolated)")


def tiny_log(path: Path, n: int) -> None:
    """A ``.json`` log of ``n`` tiny samples (the small log's header; 4 epochs of n/4 items with
    UUID-like ids, ``metadata.passage`` one of n/200, a ``match`` score), written a sample at a time."""
    import zipfile

    from evaladdon.adapters.inspect.native import read_member

    with zipfile.ZipFile(SAMPLE_EVAL) as zf:  # (zstd members: read_member)
        header = json.loads(read_member(zf, zf.getinfo("header.json"), str(SAMPLE_EVAL)))
    k = max(n // 4, 1)
    tmp = path.with_suffix(".part")
    with tmp.open("w") as fh:
        fh.write(json.dumps({key: v for key, v in header.items() if key != "samples"})[:-1] + ', "samples": [')
        for i in range(n):
            item, epoch = i % k, i // k + 1
            sid = f"{item:08x}-4a1b-4c2d-8e3f-{item * 2654435761 % 2**48:012x}"
            fh.write(("," if i else "") + json.dumps({"id": sid, "epoch": epoch, "metadata": {"passage": f"p{item // 50}"},
                                                       "scores": {"match": {"value": "CI"[(item * 7 + epoch) % 5 == 0]}}}))
        fh.write("]}")
    tmp.replace(path)


def tiny_rss(args: argparse.Namespace, imp: dict[str, dict[str, float]]) -> None:
    """Peak RSS and CPU of the lean ``summarize --json --cluster passage`` in memory and spilled,
    on logs of ``--tiny-sizes`` tiny samples."""
    where = args.rss_dir or args.dir
    where.mkdir(parents=True, exist_ok=True)
    print(f"\ntiny-sample .json logs: lean summarize --cluster passage, in memory vs spilled (imports alone: "
          f"{imp['evaladdon summarize (lean)']['rss_mb']:.0f} MB)")
    for n in args.tiny_sizes:
        j = where / f"tiny_{n}.json"
        if not j.exists():
            tiny_log(j, n)
        mem = measure("evaladdon summarize (lean)", [j], 1)
        sp = measure("evaladdon summarize (lean, spilled)", [j], 1)
        print(f"  {n:8d} samples, {j.stat().st_size / 2**20:5.0f} MiB: in memory {mem['rss_mb']:5.0f} MB "
              f"{mem['cpu']:6.1f} s CPU; spilled {sp['rss_mb']:5.0f} MB {sp['cpu']:6.1f} s CPU")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "evaladdon-bench-inspect")
    ap.add_argument("--repeat", type=int, default=2, help="best of this many runs per measurement")
    ap.add_argument("--rss-sizes", type=lambda t: [int(x) for x in t.split(",")], default=[],
                    help="also the peak RSS of the .json reader at these sample counts (e.g. 20000,60000)")
    ap.add_argument("--rss-dir", type=Path, default=None, help="where the logs of --rss-sizes are (made once)")
    ap.add_argument("--rss-only", action="store_true", help="only the --rss-sizes measurements")
    ap.add_argument("--tiny-sizes", type=lambda t: [int(x) for x in t.split(",")], default=[],
                    help="with --rss-only: also logs of this many tiny samples (e.g. 1000000,2000000), in memory vs spilled")
    ap.add_argument("--lean-only", action="store_true", help="with --rss-sizes: only the lean summarize and the floor")
    ap.add_argument("--per-file-only", action="store_true",
                    help="only the per-file overhead of 100 small .eval logs (fresh processes and in one process)")
    ap.add_argument("--files", type=lambda t: [int(x) for x in t.split(",")], default=[1, 10, 100, 1000],
                    help="the growth table's file counts (default 1,10,100,1000)")
    ap.add_argument("--growth-only", action="store_true", help="only the growth table (1 -> 10 -> 100 -> 1,000 files)")
    ap.add_argument("--code", type=Path, default=None,
                    help="also time that checkout's evaladdon (e.g. /work/main) side by side in the same run")
    args = ap.parse_args()
    codes = {"this": REPO, **({args.code.resolve().name: args.code.resolve()} if args.code else {})}
    args.dir.mkdir(parents=True, exist_ok=True)
    big_eval, big_json = args.dir / f"bench_{args.n}.eval", args.dir / f"bench_{args.n}.json"
    small = args.dir / "small_100.eval"
    if not small.exists():
        run_harness(100, small)
    if args.growth_only:
        with tempfile.TemporaryDirectory() as tmp:
            copies = [Path(tmp) / f"small_{i:04d}.eval" for i in range(max(args.files))]
            for dest in copies:
                shutil.copyfile(small, dest)
            growth(copies, small, args.files, codes, max(args.repeat, 3))
        return
    if args.per_file_only:
        with tempfile.TemporaryDirectory() as tmp:
            copies = [Path(tmp) / f"small_{i:03d}.eval" for i in range(100)]
            for dest in copies:
                shutil.copyfile(small, dest)
            per_file(copies, args.repeat)
        return
    if not big_eval.exists() or not big_json.exists():
        grow(small, args.n, big_eval, big_json)
    print(f"logs: {big_eval.name} {big_eval.stat().st_size / 2**20:.1f} MiB, {big_json.name} "
          f"{big_json.stat().st_size / 2**20:.1f} MiB; python {sys.version.split()[0]}, {os.cpu_count()} cores")
    r = args.repeat
    ours = ("raw floor (zip+orjson)", "raw floor (ijson stream)", "evaladdon native", "evaladdon read_runs",
            "evaladdon summarize (lean)")
    imp = imports_only(ours, 3)
    if args.rss_only:
        rss_growth(args, small, imp)
        if args.tiny_sizes:
            tiny_rss(args, imp)
        return
    rows = {name: measure(name, [big_eval], r) for name in (
        "raw floor (zip+orjson)", "evaladdon native", "evaladdon read_runs", "evaladdon summarize",
        "evaladdon summarize (lean)",
        "inspect header+summaries", "inspect samples_df", "inspect read_eval_log (full)")}
    table(f".eval, {args.n} samples", rows, "raw floor (zip+orjson)", imp)
    rows = {name: measure(name, [big_json], 1) for name in (
        "raw floor (ijson stream)", "evaladdon native", "evaladdon summarize (lean)", "inspect header+summaries", "inspect read_eval_log (full)")}
    for name, repo in codes.items():  # --code: the other checkout's readers beside this one's
        if repo != REPO:
            rows[f"evaladdon native ({name})"] = measure("evaladdon native", [big_json], 1, repo)
            rows[f"evaladdon summarize (lean) ({name})"] = measure("evaladdon summarize (lean)", [big_json], 1, repo)
    table(f".json, {args.n} samples", rows, "raw floor (ijson stream)", imp)
    rss_growth(args, small, imp)
    with tempfile.TemporaryDirectory() as tmp:
        copies = []
        for i in range(100):
            dest = Path(tmp) / f"small_{i:03d}.eval"
            shutil.copyfile(small, dest)
            copies.append(dest)
        for k in (1, 10, 100):
            rows = {name: measure(name, copies[:k], r) for name in (
                "raw floor (zip+orjson)", "evaladdon native", "evaladdon read_runs", "inspect header+summaries")}
            table(f"{k} small .eval file(s) of 100 samples", rows, "raw floor (zip+orjson)", imp)
        rows = {name: measure(name, [SAMPLE_EVAL], max(r, 3)) for name in (
            "raw floor (zip+orjson)", "summarize CLI, table path", "summarize CLI, lean")}
        table("summarize of sample_logs/inspect/baseline.eval (180 samples): table path vs lean", rows,
              "raw floor (zip+orjson)", imp)
        per_file(copies, r)
        for i in range(len(copies), max(args.files)):
            copies.append(Path(tmp) / f"small_{i:04d}.eval")
            shutil.copyfile(small, copies[-1])
        growth(copies, small, args.files, codes, max(r, 3))


if __name__ == "__main__":
    main()
