"""Reading lm-eval samples at the raw floor: evaladdon vs orjson-per-line, side by side.

Writes samples_<task>_<timestamp>.jsonl files shaped like lm-eval 0.4.7+ output (doc with a
passage and choices, arguments, resps, filtered_resps, hashes, one acc metric; a paired
results file declaring n-samples) for two runs of N docs, then times in fresh processes
(so peak RSS is each job's own):

- floor read:     orjson per line, pulling doc_id, acc and doc.passage_id into arrays (the
                  target's floor); a fuller floor is shown beside the reader too (also
                  doc_hash, filter, metrics, target and the log-likelihoods, and the argmax);
- evaladdon reader: ``read_samples`` alone (streamed lines: the regular ones decoded by msgspec
                  into typed records of the needed fields, the rest by orjson; one extraction pass,
                  multiple-choice prediction/label/confidence, completeness check) into a
                  canonical table per file;
- evaladdon read: ``load`` (the reader per file plus ``read_runs``' combining, run naming
                  and validation); then the same plus the clustered summary;
- floor compare:  both files parsed as above, aligned on doc_id, McNemar exact p (scipy);
- evaladdon compare: both files read + ``compare_table`` (paired, McNemar);
- per-file overhead: 100 small samples files (100 docs each, one task each), evaladdon vs floor
  (``load`` makes one DataFrame of consecutive samples files, as of Inspect logs).

Imports are done before the clock starts (both sides), and the per-file rows first read one
file unclocked (both sides) so one-time costs are not counted per file; the times are CPU
(process_time) and wall, best of 3 (the reader's row: of 5) -- on a shared machine compare the
CPU ratios.  Each row runs its two sides alternately (evaladdon, floor, evaladdon, ...), so
both see the same machine: on the shared 2-core VM the CPU time of one fixed piece of work (a
pure-Python loop or the floor itself) moves by up to 2x from one minute to the next while
``uptime`` shows no load here (other VMs on the host), and timing all of one side before the
other turned that into the ratio.

- growth: CPU a file of ``load`` on 1 -> 10 -> 100 -> 1,000 samples files of 100 docs
  (``--files``), each beside the floor and the fuller floor of its row (ratios), and per
  extra file; ``--code CHECKOUT`` times that checkout's evaladdon beside this one's (e.g.
  ``--code /work/main``); ``--growth-only``: only this table; ``--repeat K``: best of K
  (default 3; on a shared machine whose CPU time moves by 15 % from run to run, 7 or more).

The evaladdon this script times is the one this checkout holds (``PYTHONPATH`` set to it for
every job), so run it from a worktree without setting anything.

    python benchmarks/bench_lm_eval.py [N_DOCS] [--growth-only] [--files 1,10,100,1000] [--repeat 3] [--code /work/main]
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from bench_args import child_env, take

HERE = Path(__file__).resolve().parent.parent
TS = ["2026-01-01T00-00-00.000000", "2026-01-02T00-00-00.000000"]
SMALL_FILES = 100


def build(n: int, folder: Path, ts: str, seed: int, task: str = "bench") -> Path:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{ts}.jsonl"
    passage = "lorem ipsum dolor sit amet " * 8  # ~1.6 KB per doc line, like a short MC task
    with path.open("w") as fh:
        for i in range(n):
            doc = {"id": i, "passage_id": f"p{i // 5}", "passage": passage, "question": f"q{i}?",
                   "choices": ["a", "b", "c", "d"], "answer": i % 4}
            lls = [[-rng.random() * 10, False] for _ in range(4)]
            pred = max(range(4), key=lambda k: lls[k][0])
            rec = {"doc_id": i, "doc": doc, "target": doc["answer"],
                   "arguments": {f"gen_args_{k}": {"arg_0": passage + doc["question"], "arg_1": f" {c}"}
                                 for k, c in enumerate(doc["choices"])},
                   "resps": [[x] for x in lls], "filtered_resps": lls, "filter": "none", "metrics": ["acc"],
                   "doc_hash": f"{i:064x}", "prompt_hash": f"{i:064x}", "target_hash": f"{i:064x}",
                   "acc": float(pred == doc["answer"])}
            fh.write(json.dumps(rec) + "\n")
    (folder / f"results_{ts}.json").write_text(json.dumps({
        "results": {task: {"alias": task, "acc,none": 0.25, "acc_stderr,none": 0.01}},
        "configs": {task: {"task": task, "repeats": 1, "target_delimiter": " ", "output_type": "multiple_choice"}},
        "n-samples": {task: {"original": n, "effective": n}},
        "config": {"model": "hf", "model_args": f"pretrained=org/model{seed}"}, "model_name": f"org/model{seed}"}))
    return path


FLOOR_IMPORTS = "import orjson, numpy as np"

FLOOR_READ = """
ids, acc, cl = [], [], []
for path in PATHS:
    with open(path, "rb") as fh:
        for line in fh:
            d = orjson.loads(line)
            ids.append(d["doc_id"]); acc.append(d["acc"]); cl.append(d["doc"]["passage_id"])
ids = np.asarray(ids); acc = np.asarray(acc, dtype=float)
result = float(acc.mean())
"""

# A second, fuller floor (shown beside the first, which stays the target's): also the fields the
# canonical table needs from each record -- doc_hash, filter, metrics, target, the choices'
# log-likelihoods -- and the argmax prediction, still with no checks, no text columns, no DataFrame.
FLOOR_FULL = """
ids, acc, cl, hs, fl, ms, tg, ll = [], [], [], [], [], [], [], []
for path in PATHS:
    with open(path, "rb") as fh:
        for line in fh:
            d = orjson.loads(line)
            ids.append(d["doc_id"]); acc.append(d["acc"]); cl.append(d["doc"]["passage_id"])
            hs.append(d["doc_hash"]); fl.append(d["filter"]); ms.append(d["metrics"]); tg.append(d["target"])
            ll.append([x[0] for x in d["filtered_resps"]])
pred = np.asarray(ll).argmax(axis=1); acc = np.asarray(acc, dtype=float)
result = float(acc.mean()) + int(pred.sum())
"""

# pandas is imported on first use by the readers (evaladdon._util.lazy): import it here so that
# "imports excluded" holds for both sides (the reader builds its table with pandas)
EVAL_IMPORTS = "import pandas; from evaladdon.adapters import load; from evaladdon.analysis.summarize import summarize_table"

READER_IMPORTS = "import pandas; from evaladdon.adapters.lm_eval import read_samples"

EVAL_READER = """
tables = [read_samples(p, "passage_id") for p in PATHS]
result = sum(len(t) for t in tables)
"""

EVAL_LOAD = """
df = load(PATHS, cluster="passage_id")
result = len(df)
"""

EVAL_READ = """
df = load(PATHS, cluster="passage_id")
result = [s.estimate.mean for s in summarize_table(df, notes=[])]
"""

FLOOR_COMPARE_IMPORTS = "import orjson, numpy as np; from scipy.stats import binomtest"

FLOOR_COMPARE = """
cols = []
for path in PATHS:
    ids, acc = [], []
    with open(path, "rb") as fh:
        for line in fh:
            d = orjson.loads(line)
            ids.append(d["doc_id"]); acc.append(d["acc"])
    cols.append((np.asarray(ids), np.asarray(acc, dtype=float)))
(ia, a), (ib, b) = cols
common, xa, xb = np.intersect1d(ia, ib, return_indices=True)
a, b = a[xa], b[xb]
n10 = int(((a == 1) & (b == 0)).sum()); n01 = int(((a == 0) & (b == 1)).sum())
result = binomtest(n01, n10 + n01, 0.5).pvalue
"""

EVAL_COMPARE_IMPORTS = "import pandas; from evaladdon.adapters import load; from evaladdon.analysis.compare_table import compare_table"

EVAL_COMPARE = """
df = load(PATHS)
runs = sorted(df["run"].unique())
result = [c.to_dict().get("p_value") for c in compare_table(df, [(runs[0], runs[1])])]
"""

RUNNER = """
import resource, sys, time
PATHS = {paths!r}
{imports}
if {warm}:  # per-file rows: one file first, so one-time costs (lazy imports, caches) are not per-file
    _ALL, PATHS = PATHS, {warm_paths!r} or PATHS[:1]
    exec({body!r})
    PATHS = _ALL
t0, c0 = time.perf_counter(), time.process_time()
{body}
t1, c1 = time.perf_counter(), time.process_time()
print(t1 - t0, c1 - c0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


Timing = tuple[float, float, float]
Job = tuple[str, str] | tuple[str, str, Path]  # imports, body (and the checkout whose evaladdon runs it)


def _once(job: Job, paths: list[str], warm: bool, warm_paths: list[str] | None = None) -> Timing:
    imports, body = job[0], job[1]
    # this checkout's evaladdon, or another's (--code), first on the path
    env = child_env(PYTHONPATH=str(job[2] if len(job) > 2 else HERE))  # type: ignore[misc]  (one BLAS thread)
    code = RUNNER.format(paths=paths, imports=imports, body=textwrap.dedent(body), warm=warm,
                         warm_paths=warm_paths or [])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    t, c, m = map(float, out.split()[-3:])
    return c, t, m


def timed(*jobs: Job, paths: list[str], repeat: int = 3, warm: bool = False,
          warm_paths: list[str] | None = None) -> list[Timing]:
    """Best CPU time (s), best wall time (s) and peak RSS (MiB) of each job's ``body`` over
    ``repeat`` fresh processes, the jobs run in turn (job 1, job 2, job 1, ...) so that they
    share the machine's state (CPU time is the stable number on a shared machine).
    ``warm_paths``: the files read unclocked first (``warm``; default the first of ``paths``)."""
    best = [(float("inf"), float("inf"), 0.0) for _ in jobs]
    for _ in range(repeat):
        for j, job in enumerate(jobs):
            c, t, m = _once(job, paths, warm, warm_paths)
            best[j] = (min(best[j][0], c), min(best[j][1], t), max(best[j][2], m))
    return best


def growth(root: Path, counts: list[int], codes: dict[str, Path], repeat: int = 3) -> None:
    """CPU a file of the floor and of ``load`` (this checkout and each of ``codes``) on 1, 10,
    100, 1,000 ... samples files of 100 docs (one task each, each with its results file),
    fresh processes after the imports and one read of another file, best of ``repeat``, the
    jobs interleaved; each as a ratio to the floor of its row, and per extra file between the
    first and the last count."""
    files = [str(build(100, root / "grow" / f"r{i}", f"2026-{i // 28 % 12 + 1:02d}-{i % 28 + 1:02d}T00-"
                       f"{i // 336 % 60:02d}-{i % 60:02d}.000000", i, task=f"t{i}")) for i in range(max(counts) + 1)]
    warm, files = files[-1:], files[:-1]
    names = ["floor", "fuller floor", *(f"load ({name})" for name in codes)]
    jobs: list[Job] = [(FLOOR_IMPORTS, FLOOR_READ), (FLOOR_IMPORTS, FLOOR_FULL),
                       *((EVAL_IMPORTS, EVAL_LOAD, repo) for repo in codes.values())]
    best = {k: timed(*jobs, paths=files[:k], repeat=repeat, warm=True, warm_paths=warm) for k in counts}
    for what, at in (("CPU", 0), ("wall", 1)):
        print(f"\ngrowth: {what} a file (ms) of k samples files of 100 docs, fresh processes (one BLAS thread) after "
              f"the imports and one warm-up read, best of {repeat}, interleaved; x = ratio to the floor of the row")
        print(f"  {'files':>6s} " + " ".join(f"{n:>22s}" for n in names))
        for k in counts:
            f = best[k][0][at]
            print(f"  {k:6d} " + " ".join(f"{t[at] / k * 1e3:13.3f} ({t[at] / f:4.2f}x)" for t in best[k]))
        lo, hi = min(counts), max(counts)
        if hi > lo:
            extra = [(best[hi][j][at] - best[lo][j][at]) / (hi - lo) for j in range(len(jobs))]
            print(f"  {'extra':>6s} " + " ".join(f"{e * 1e3:13.3f} ({e / extra[0]:4.2f}x)" for e in extra)
                  + f"   (per extra file, {lo} -> {hi} files)")


def row(what: str, ours: tuple[float, float, float], floor: tuple[float, float, float], per: int = 1) -> None:
    unit, k = ("ms", 1e3 / per) if per > 1 else ("s", 1.0)
    print(f"{what:30s} evaladdon cpu {ours[0] * k:7.3f} {unit} wall {ours[1] * k:7.3f} {unit} {ours[2]:5.0f} MiB"
          f" | floor cpu {floor[0] * k:7.3f} {unit} wall {floor[1] * k:7.3f} {unit} {floor[2]:5.0f} MiB"
          f" | ratio cpu {ours[0] / floor[0]:4.2f}x wall {ours[1] / floor[1]:4.2f}x")


def main(n: int = 50_000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        a = build(n, root / "a", TS[0], 1)
        b = build(n, root / "b", TS[1], 2)
        print(f"samples files: 2 x {n} docs, {a.stat().st_size / 2**20:.0f} MiB each (timings: best of 3, "
              "fresh process each, imports excluded; cpu = process_time)")
        floor, full = (FLOOR_IMPORTS, FLOOR_READ), (FLOOR_IMPORTS, FLOOR_FULL)
        # the target's row (issue 15: the reader within 2x of the floor): best of 5, both sides
        reader, floor_read, full_read = timed((READER_IMPORTS, EVAL_READER), floor, full, paths=[str(a)], repeat=5)
        row(f"reader only {n} docs", reader, floor_read)
        row("  vs the fuller floor", reader, full_read)
        row(f"read {n} docs", *timed((EVAL_IMPORTS, EVAL_LOAD), floor, paths=[str(a)]))
        row(f"read + summarize {n} docs", *timed((EVAL_IMPORTS, EVAL_READ), floor, paths=[str(a)]))
        row(f"compare two {n}-doc runs", *timed((EVAL_COMPARE_IMPORTS, EVAL_COMPARE),
                                                 (FLOOR_COMPARE_IMPORTS, FLOOR_COMPARE), paths=[str(a), str(b)]))
        small = [str(build(100, root / "small" / f"r{i}", f"2026-01-{i % 28 + 1:02d}T00-00-{i:02d}.000000", i,
                           task=f"t{i}")) for i in range(SMALL_FILES)]
        k = SMALL_FILES
        row(f"{k} files x 100 docs: reader/file", *timed((READER_IMPORTS, EVAL_READER), floor, paths=small, warm=True),
            per=k)
        load_small, floor_small, full_small = timed((EVAL_IMPORTS, EVAL_LOAD), floor, full, paths=small, warm=True)
        row("  read (load)/file", load_small, floor_small, per=k)
        row("  load vs the fuller floor", load_small, full_small, per=k)
        row("  read + summarize, per file", *timed((EVAL_IMPORTS, EVAL_READ), floor, paths=small, warm=True), per=k)


if __name__ == "__main__":
    args = sys.argv[1:]
    code = take(args, "--code")
    files = take(args, "--files")
    repeat = int(take(args, "--repeat") or 3)  # the growth rows: best of this many fresh processes each
    only = "--growth-only" in args
    args = [a for a in args if a != "--growth-only"]
    checkouts = {"this": HERE, **({Path(code).resolve().name: Path(code).resolve()} if code else {})}
    counts = [int(x) for x in (files or "1,10,100,1000").split(",")]
    if not only:
        main(int(args[0]) if args else 50_000)
    with tempfile.TemporaryDirectory() as tmp:
        growth(Path(tmp), counts, checkouts, repeat)
