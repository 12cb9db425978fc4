"""Record what users of the ``evaladdon`` CLI see, so a refactor can be shown to change nothing.

    python scripts/record_outputs.py record OUTDIR [--real-logs DIR] [--jobs 2] [--runner fork|subprocess]
    python scripts/record_outputs.py diff OLDDIR NEWDIR

``record`` runs this checkout's ``evaladdon.cli.main.main(argv)`` in a fresh process per invocation:
a child forked from this recorder after one import of the CLI and its dependencies (default, ~40 s
in all) or a new interpreter each time (``--runner subprocess``, 4-5 min on 2 busy cores; same
records). cwd = the repository root, ``COLUMNS=120``, ``TZ=UTC``, ``PYTHONHASHSEED`` left random.
Covered: every command on ``sample_logs/`` and each subfolder (text, ``--json``, ``--markdown``),
flag variants, writers (export, lm-eval-stderr on a temp copy, rank --html, report, ingest + runs
+ --store), errors, every ``--help``; on each top-level entry of the real-logs dir (default
``../shared/real_logs``) summarize (text, ``--json``), export jsonl, ``metrics``/``rank --json``.
One ``<slug>.json`` per invocation (argv, exit code, stdout, stderr, files written; parquet as
rows, other binaries as sha256), paths shown as ``<TMP>``, ``<REAL>``, ``<REPO>``; ``index.json``
has timings. Left out as heavy: ``--engine dask``, ``report`` and ``--method bootstrap`` on real logs.

``diff`` compares two record dirs per invocation (exit code, stdout, stderr, files), printing a
short unified diff of each difference; ``--json`` stdout and ``.json``/``.jsonl`` files compare
parsed, floats equal within 1e-12 relative (listed as CLOSE, not failing). Exit 1 when anything
differs or is missing, else 0.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import functools
import hashlib
import importlib
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RUNNER = "import sys; from evaladdon.cli.main import main; sys.exit(main())"
T = "{TMP}"  # in specs: the group's temporary directory
REL_TOL = 1e-12
MAX_FILE_BYTES = 32 << 20  # larger written files are recorded by hash only
DIFF_LINES = 30
COMMANDS = ("summarize", "compare", "power", "judge", "ci", "report", "export", "lm-eval-stderr", "metrics",
            "rank", "ingest", "runs")


@dataclass
class Group:
    """Steps sharing one temporary directory, run in order (``copies``: repo path -> name in it)."""

    steps: list[list[str]]
    copies: dict[str, str] = field(default_factory=dict)


def sample_groups() -> list[Group]:
    """Every command on ``sample_logs/``: each subfolder and the whole folder, in each mode."""
    s = "sample_logs"
    a, b, jl = f"{s}/inspect/baseline.eval", f"{s}/inspect/candidate.eval", f"{s}/inspect/judge.eval"
    lm = sorted(str(p.relative_to(REPO)) for p in (REPO / s / "lm_eval").iterdir() if p.is_dir())
    battles, labels = f"{s}/preferences/battles.jsonl", f"{s}/labels/judge_labels.csv"
    ckpt = f"{s}/table/checkpoints.csv"
    paths = [s, *sorted(f"{s}/{d.name}" for d in (REPO / s).iterdir() if d.is_dir())]
    modes: list[list[str]] = [[], ["--json"], ["--markdown"]]
    gate, clu = ["--fail-on-regression", "--margin", "2pt"], ["--cluster", "passage.id"]
    one: list[list[str]] = [["--help"], ["--version"], *([c, "--help"] for c in COMMANDS)]
    for p in paths:
        one += [[cmd, p, *m] for cmd in ("summarize", "compare", "metrics", "rank") for m in modes]
        one += [["summarize", p, "--wide"], ["summarize", p, "--verbose"], ["compare", p, "--all-pairs", "--json"]]
    for m in modes:
        one += [["summarize", f"{s}/inspect", *clu, *m], ["compare", a, b, *m], ["compare", a, b, *clu, *m],
                ["rank", battles, *m], ["rank", f"{s}/inspect", *clu, "--metric", "match", *m],
                ["judge", "--labels", labels, jl, *m], ["metrics", f"{s}/inspect", *clu, *m]]
        one += [["compare", *lm[:2], *m], ["compare", *lm[:2], "--cluster", "passage_id", *m]] if len(lm) > 1 else []
    one += [
        ["summarize", f"{s}/inspect", *clu, "--wide"], ["summarize", f"{s}/inspect", "--quiet"],
        ["summarize", f"{s}/inspect", "--level", "0.9", "--cluster-method", "cr1", "--json"],
        ["summarize", f"{s}/inspect", "--method", "bootstrap", "--json"],
        ["summarize", ckpt, "--cluster", "passage_id", "--json"],
        ["summarize", f"{s}/lm_eval", "--cluster", "passage_id"], ["compare", f"old={a}", f"new={b}", "--wide"],
        ["compare", a, b, *gate], ["compare", a, b, *clu, *gate, "--json"],
        ["compare", a, b, "--test", "permutation", "--interval", "bootstrap", "--json"],
        ["compare", ckpt, "--baseline", "ckpt-1000", *gate],
        ["compare", ckpt, "--baseline", "ckpt-1000", *gate, "--markdown"],
        ["compare", ckpt, "--all-pairs", "--adjust", "bh", "--json"],
        ["compare", f"{s}/inspect", "--baseline", "baseline", *gate, "--allow-skipped"],
        ["rank", battles, "--ties", "davidson", "--json"], ["rank", battles, "--sandwich"],
        ["rank", battles, "--unit", "item", "--anchor", "baseline", "--json"],
        ["metrics", ckpt, "--cluster", "passage_id", "--json"],
        *(["power", "--n", "200", "--paired", "--discordance", "0.2", *m] for m in (["--json"], [])),
        ["power", "--delta", "3pt", "--p-a", "0.7", "--p-b", "0.73", "--json"],
        ["power", "--delta", "0.05", "--sd", "0.5", "--epochs", "3", "--icc", "0.3"],
        ["power", "--n", "500", "--delta", "2pt", "--paired", "--discordance", "0.15", "--json"],
        ["power", "--delta", "5pt", "--paired", "--discordance", "0.2", "--test", "wald", "--one-sided"],
        *(["power", "--pilot", a, b, "--delta", "5pt", *clu, *m] for m in (["--json"], [])),
        ["power", "--pilot", a, "--delta", "5pt", "--json"],
        ["ci", "7", "20", "--level", "0.9"], ["ci", "0", "10", "--json"], ["ci", "10", "10"], ["ci", "11", "10"],
        ["judge", "--labels", labels, jl, "--json", "--method", "rogan-gladen-bootstrap"],
        # errors users meet
        ["summarize", "no/such/path"], ["summarize", f"{s}/inspect", "--metric", "nope"],
        ["summarize", f"{s}/inspect", "--cluster", "nope"], ["compare", a], ["compare", a, b, *gate[:2], "2"],
        ["summarize", battles], ["summarize", f"{s}/inspect", "--json", "--markdown"], ["nonsense"]]
    for method in ("wilson", "clopper-pearson", "jeffreys", "agresti-coull", "wald"):
        one += [["ci", "7", "20", "--method", method], ["ci", "7", "20", "--method", method, "--json"]]
    for method in ("rogan-gladen", "ppi", "ppi++"):
        one += [["judge", "--labels", labels, jl, "--method", method, *m] for m in modes[:2]]
    groups = [Group([argv]) for argv in one]
    groups += [Group([["export", p, "-o", f"{T}/table.{ext}"]]) for p in paths for ext in ("csv", "jsonl")]
    store, lm_copy = f"{T}/store", {f"{s}/lm_eval": "lm_eval"}
    groups += [
        Group([["export", s, "-o", f"{T}/table.parquet"]]),
        Group([["export", f"{s}/inspect", *clu, "-o", f"{T}/table.csv"]]),
        Group([["rank", battles, "--html", f"{T}/rank.html", "--quiet"]]),
        Group([["report", f"{s}/inspect", "--baseline", "baseline", *clu, "-o", f"{T}/r.html"]]),
        Group([["report", battles, "-o", f"{T}/r.html"]]),
        Group([["lm-eval-stderr", f"{T}/lm_eval"]], lm_copy),
        Group([["lm-eval-stderr", f"{T}/lm_eval", "--cluster", "passage_id", "--level", "0.9"]], lm_copy),
        Group([["ingest", s, "--store", store, "--workers", "2"],
               ["ingest", s, "--store", store, "--workers", "2"],  # re-ingest: a no-op
               *([cmd, "--store", store, *m] for cmd in ("runs", "summarize") for m in modes),
               ["summarize", "--store", store, "--where", "task = 'reading'", "--cluster", "passage_id"],
               ["compare", "--store", store, "--where", "model LIKE 'ckpt-%'", "--baseline", "ckpt-1000"],
               ["metrics", "--store", store, "--json"], ["export", "--store", store, "-o", f"{T}/store.csv"]])]
    results = sorted((REPO / lm[0]).glob("results_*.json")) if lm else []
    if results:
        out = [f"{T}/one/{results[0].name}", "-o", f"{T}/one.json"]
        groups.append(Group([["lm-eval-stderr", *out]], {lm[0]: "one"}))
    return groups


def real_groups(real: Path) -> list[Group]:
    """summarize (text, --json), export jsonl, metrics --json and rank --json on each entry."""
    specs = [["summarize", "--json"], ["summarize"], ["export", "-o", f"{T}/export.jsonl"], ["metrics", "--json"],
             ["rank", "--json"]]
    return [Group([[cmd, str(entry), *rest]]) for entry in sorted(real.iterdir()) for cmd, *rest in specs]


def masker(roots: dict[str, Path]) -> Callable[[str], str]:
    """Text with the temp dir, real-logs root and repository root replaced by placeholders."""
    pairs = {v: name for name, root in roots.items() for path in {str(root), os.path.realpath(root)}
             for v in (path, path.replace("_", r"\_"))}  # also as markdown escapes it
    ordered = sorted(pairs.items(), key=lambda kv: -len(kv[0]))
    return lambda text: functools.reduce(lambda t, kv: t.replace(*kv), ordered, text)


def slugify(argv: list[str]) -> str:
    text = re.sub(r"[^A-Za-z0-9.=]+", "-", " ".join(argv).replace("<TMP>", "TMP")).strip("-")
    return f"{text[:90]}-{hashlib.sha1(json.dumps(argv).encode()).hexdigest()[:8]}"


def snapshot(folder: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under ``folder``."""
    return {f.relative_to(folder).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(folder.rglob("*")) if f.is_file()}


def file_record(path: Path, mask: Callable[[str], str]) -> Any:
    """Text (masked), a parquet file's schema and rows, or the hash of other binaries."""
    data = path.read_bytes()
    digest = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    if len(data) > MAX_FILE_BYTES:
        return digest
    if path.suffix == ".parquet":
        try:
            tab = importlib.import_module("pyarrow.parquet").read_table(path)
            rows = json.loads(json.dumps(tab.to_pylist(), default=str))
            return {"schema": mask(str(tab.schema.remove_metadata())), "rows": rows}
        except Exception as exc:  # noqa: BLE001 - an unreadable file is recorded, not fatal
            return {**digest, "error": repr(exc)}
    try:
        return mask(data.decode("utf-8"))
    except UnicodeDecodeError:
        return digest


@dataclass
class Setup:
    """How invocations run: environment, placeholder roots, parallelism, timeout, runner."""

    env: dict[str, str]
    roots: dict[str, Path]
    jobs: int
    timeout: float
    fork: bool


class Step:
    """One invocation being run (a forked child or a subprocess), stdout/stderr going to files."""

    def __init__(self, argv: list[str], log: Path, setup: Setup) -> None:
        self.argv, self.out, self.err = argv, log.with_suffix(".out"), log.with_suffix(".err")
        self.start, self.proc = time.perf_counter(), None
        if not setup.fork:
            with self.out.open("wb") as out, self.err.open("wb") as err:
                self.proc = subprocess.Popen([sys.executable, "-c", RUNNER, *argv], cwd=REPO, env=setup.env,
                                             stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
            self.pid = self.proc.pid
            return
        for stream in (sys.stdout, sys.stderr):  # nothing buffered here may reach the child's files
            stream.flush()
        self.pid = os.fork()
        if self.pid == 0:
            self._child(setup.env)

    def _child(self, env: dict[str, str]) -> None:
        """In the forked child: ``main(argv)`` as a fresh ``evaladdon`` process would run it."""
        code = 1
        try:
            os.setsid()
            os.chdir(REPO)
            os.environ.clear()
            os.environ.update(env)
            time.tzset()
            write = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
            for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, self.out, write), (2, self.err, write)):
                new = os.open(path, flags, 0o644)
                os.dup2(new, fd)
                os.close(new)
            sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), "utf-8", "surrogateescape")
            sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), "utf-8", "backslashreplace")
            sys.argv = ["evaladdon", *self.argv]
            code = importlib.import_module("evaladdon.cli.main").main(self.argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except BaseException:  # noqa: BLE001 - as the interpreter would: a traceback, exit 1
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(code)

    def poll(self, timeout: float) -> tuple[bool, int | None]:
        """(finished, exit code); past ``timeout`` the step is killed with its process group (code None)."""
        if self.proc is not None:
            code = self.proc.poll()
        else:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            code = os.waitstatus_to_exitcode(status) if pid else None
        if code is not None or time.perf_counter() - self.start <= timeout:
            return code is not None, code
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)
        _ = self.proc.wait() if self.proc is not None else os.waitpid(self.pid, 0)
        return True, None


def preimport() -> None:
    """Import the CLI and its heavy dependencies once, so forked children start warm."""
    sys.path.insert(0, str(REPO))
    for name in ("numpy", "scipy.special", "scipy.stats", "pandas", "pyarrow", "pyarrow.csv", "pyarrow.parquet",
                 "evaladdon.adapters", "evaladdon.analysis.summarize", "evaladdon.analysis.compare_table", "evaladdon.analysis.metrics"):
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    importlib.import_module("evaladdon.cli.main").build_parser(None)  # every subcommand's module


def finish(step: Step, code: int | None, before: dict[str, str], tmp: Path, setup: Setup) -> dict[str, Any]:
    """The record of a finished step: masked argv, exit code, stdout, stderr, files it wrote."""
    mask, after = masker({"<TMP>": tmp, **setup.roots}), snapshot(tmp)
    return {"argv": [mask(a) for a in step.argv], "exit_code": code,
            **({} if code is not None else {"timed_out": setup.timeout}),
            "stdout": mask(step.out.read_bytes().decode("utf-8", "replace")),
            "stderr": mask(step.err.read_bytes().decode("utf-8", "replace")),
            "files": {n: file_record(tmp / n, mask) for n, d in after.items() if before.get(n) != d},
            "seconds": round(time.perf_counter() - step.start, 3)}


def run_all(groups: list[Group], base: Path, setup: Setup) -> list[dict[str, Any]]:
    """Every group's steps in order, ``setup.jobs`` at a time; the records in spec order."""
    results: list[list[dict[str, Any]]] = [[] for _ in groups]
    ready, running = deque(range(len(groups))), dict[int, tuple[dict[str, str], Step]]()
    tmps = [base / f"g{i:04d}" for i in range(len(groups))]
    while ready or running:
        while ready and len(running) < setup.jobs:
            g = ready.popleft()
            tmp, done = tmps[g], len(results[g])
            if not done:
                tmp.mkdir()
                for src, name in groups[g].copies.items():
                    shutil.copytree(REPO / src, tmp / name)
            argv = [a.replace(T, str(tmp)) for a in groups[g].steps[done]]
            try:
                running[g] = (snapshot(tmp), Step(argv, base / f"g{g:04d}-{done}", setup))
            except OSError as exc:  # could not start: recorded, and the group goes on
                mask = masker({"<TMP>": tmp, **setup.roots})
                results[g].append({"argv": [mask(a) for a in argv], "exit_code": None, "recorder_error": repr(exc),
                                   "seconds": 0})
                ready.extend([g] if len(results[g]) < len(groups[g].steps) else [])
        time.sleep(0.005)
        for g, (before, step) in list(running.items()):
            finished, code = step.poll(setup.timeout)
            if finished:
                del running[g]
                results[g].append(finish(step, code, before, tmps[g], setup))
                ready.extendleft([g] if len(results[g]) < len(groups[g].steps) else [])
    return [rec for recs in results for rec in recs]


def record(outdir: Path, real: Path | None, jobs: int, timeout: float, fork: bool) -> int:
    groups = sample_groups() + (real_groups(real) if real else [])
    outdir.mkdir(parents=True, exist_ok=True)
    if (outdir / "index.json").exists():  # a previous recording: replace it whole
        for old in outdir.glob("*.json"):
            old.unlink()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHASHSEED", "PYTHONPATH", "COLUMNS", "LINES")}
    env.update(COLUMNS="120", TZ="UTC", PYTHONIOENCODING="utf-8", PYTHONUTF8="1", PYTHONPATH=str(REPO))
    setup = Setup(env, {"<REPO>": REPO, **({"<REAL>": real} if real else {})}, max(1, jobs), timeout, fork)
    sample_before, start = snapshot(REPO / "sample_logs"), time.perf_counter()
    if fork:
        preimport()
    base = Path(tempfile.mkdtemp(prefix="evaladdon-record-"))
    while "_" in base.name:  # markdown escapes "_", and the masker would miss the escaped path
        base.rmdir()
        base = Path(tempfile.mkdtemp(prefix="evaladdon-record-"))
    try:
        results = run_all(groups, base, setup)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    index: list[dict[str, Any]] = []
    for rec in results:
        slug = slugify(rec["argv"])
        while any(r["slug"] == slug for r in index):  # the same argv twice in a group (re-ingest)
            slug += "+"
        index.append({"slug": slug, "argv": rec["argv"], "exit_code": rec["exit_code"], "seconds": rec.pop("seconds")})
        (outdir / f"{slug}.json").write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    total = round(time.perf_counter() - start, 1)
    meta = {"total_seconds": total, "jobs": jobs, "fork": fork, "python": sys.version.split()[0], "invocations": index}
    (outdir / "index.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    slow = ", ".join(f"{r['slug']} {r['seconds']} s" for r in sorted(index, key=lambda r: -r["seconds"])[:3])
    print(f"recorded {len(index)} invocations in {total} s into {outdir}; slowest: {slow}")
    if snapshot(REPO / "sample_logs") != sample_before:
        print("warning: sample_logs/ changed while recording", file=sys.stderr)
        return 1
    return 0


def close(a: Any, b: Any) -> bool:
    """Equal, with numbers (not bools) equal within ``REL_TOL`` relative."""
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return bool(a == b or abs(a - b) <= REL_TOL * max(abs(a), abs(b)))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def verdict(old: Any, new: Any, json_kind: str | None) -> str:
    """'exact', 'close' (parsed JSON within tolerance) or 'differs'."""
    if old == new:
        return "exact"
    if json_kind and isinstance(old, str) and isinstance(new, str):
        try:  # JSON lines as a list of records
            old, new = ([json.loads(x) for x in v.splitlines() if x.strip()] if json_kind == "jsonl"
                        else json.loads(v) for v in (old, new))
        except ValueError:
            return "differs"
    return "close" if close(old, new) else "differs"


def short_diff(old: Any, new: Any, label: str) -> list[str]:
    a, b = ((v if isinstance(v, str) else json.dumps(v, indent=1, sort_keys=True)).splitlines() for v in (old, new))
    lines = list(difflib.unified_diff(a, b, f"old/{label}", f"new/{label}", n=2, lineterm=""))
    extra = len(lines) - DIFF_LINES
    return lines[:DIFF_LINES] + ([f"... ({extra} more diff lines)"] if extra > 0 else [])


def compare_records(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The parts that differ (with diffs) and the parts that only match within tolerance."""
    kind = "json" if "--json" in old.get("argv", []) else None
    parts: list[tuple[str, Any, Any, str | None]] = [
        ("exit code", old.get("exit_code"), new.get("exit_code"), None),
        ("stdout", old.get("stdout"), new.get("stdout"), kind), ("stderr", old.get("stderr"), new.get("stderr"), None)]
    fo, fn = old.get("files", {}), new.get("files", {})
    for name in sorted(fo.keys() | fn.keys()):
        kind = "jsonl" if name.endswith(".jsonl") else "json" if name.endswith(".json") else None
        parts.append((f"file {name}", fo.get(name, "<not written>"), fn.get(name, "<not written>"), kind))
    differs, closes = [], []
    for label, a, b, kind in parts:
        v = verdict(a, b, kind)
        closes += [label] if v == "close" else []
        differs += [f"  [{label}]", *("    " + x for x in short_diff(a, b, label))] if v == "differs" else []
    return differs, closes


def diff(old_dir: Path, new_dir: Path) -> int:
    def load(folder: Path) -> dict[str, dict[str, Any]]:
        return {f.stem: json.loads(f.read_text(encoding="utf-8")) for f in sorted(folder.glob("*.json"))
                if f.name != "index.json"}

    old, new = load(old_dir), load(new_dir)
    only = [f"ONLY IN OLD  {s}" for s in sorted(old.keys() - new.keys())]
    only += [f"ONLY IN NEW  {s}" for s in sorted(new.keys() - old.keys())]
    print("\n".join(only), end="\n" if only else "")
    n_diff = n_close = 0
    for slug in sorted(old.keys() & new.keys()):
        differs, closes = compare_records(old[slug], new[slug])
        if differs:
            n_diff += 1
            print(f"DIFFERS  {slug}\n  argv: {' '.join(old[slug]['argv'])}\n" + "\n".join(differs))
        if closes:
            n_close += 1
            print(f"CLOSE    {slug} ({', '.join(closes)}: text differs, floats within {REL_TOL:g} relative)")
    shared = len(old.keys() & new.keys())
    print(f"{shared} shared invocations: {shared - n_diff - n_close} exact, {n_close} close (not failing), "
          f"{n_diff} differ; {len(only)} in only one dir")
    return 1 if n_diff or only else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record", help="run the CLI over the sample and real logs, store the outputs")
    rec.add_argument("outdir", type=Path)
    rec.add_argument("--real-logs", type=Path, default=REPO.parent / "shared" / "real_logs",
                     help="real-logs dir (default ../shared/real_logs; skipped when absent)")
    rec.add_argument("--jobs", type=int, default=2, help="invocations at a time (default 2)")
    rec.add_argument("--timeout", type=float, default=180.0, help="seconds per invocation (default 180)")
    rec.add_argument("--runner", choices=("fork", "subprocess"), default="fork",
                     help="fork a pre-imported recorder (default, fast) or start a new interpreter each time")
    dif = sub.add_parser("diff", help="compare two record dirs; exit 1 when they differ")
    dif.add_argument("old", type=Path)
    dif.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    if args.cmd == "diff":
        if not (args.old / "index.json").is_file() or not (args.new / "index.json").is_file():
            parser.error("both arguments must be record dirs (with an index.json)")
        return diff(args.old, args.new)
    real = args.real_logs.resolve() if args.real_logs.is_dir() else None
    if real is None:
        print(f"note: no real-logs dir at {args.real_logs}; recording sample_logs only", file=sys.stderr)
    return record(args.outdir, real, args.jobs, args.timeout, args.runner == "fork" and hasattr(os, "fork"))


if __name__ == "__main__":
    raise SystemExit(main())
