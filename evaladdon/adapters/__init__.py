"""Files in, canonical item table out.  Adapters know nothing about statistics.

:func:`read_runs` takes files and directories, picks the reader for each file by its
name and first bytes, and returns one validated canonical table with notes on what was
skipped or is incomplete.  Rows that cannot be scored stay in the table with their reason
in ``error``; the summaries count them.
"""

from __future__ import annotations

import codecs
import os

from pathlib import Path
from typing import Callable, Iterable

from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.adapters import helm
from evaladdon.adapters.deepeval import looks_like_deepeval, read_deepeval
from evaladdon.adapters.inspect_log import is_inspect_json, read_inspect_log, read_inspect_part
from evaladdon.adapters.inspect_rows import Part, convert_pending, frame
from evaladdon.adapters.lm_eval_log import (
    SamplesPart,
    frame_parts,
    looks_like_results_json,
    looks_like_samples_jsonl,
    looks_like_write_out,
    read_results_file,
    read_samples,
    read_samples_part,
    read_write_out,
)
from evaladdon.adapters.promptfoo import (
    looks_like_promptfoo_csv,
    looks_like_promptfoo_json,
    looks_like_promptfoo_jsonl,
    read_promptfoo,
)
from evaladdon.adapters.long_table import TABLE_SUFFIXES, read_long_table
from evaladdon.errors import InputError
from evaladdon.table.names import distinguishing_names
from evaladdon.table import concat, distinct_tuples, validate
from evaladdon.table.loaded import Loaded  # noqa: F401 - read_runs returns it; its old place

Reader = Callable[[Path, "str | None"], "pd.DataFrame"]
SNIFF_BYTES = 4096


def _head(path: Path, raw: bytes | None = None) -> bytes:
    """The first bytes of ``path`` (or ``raw``, already read), without a UTF-8 byte-order mark."""
    if raw is None:
        with path.open("rb") as fh:
            raw = fh.read(SNIFF_BYTES)
    return raw[len(codecs.BOM_UTF8):] if raw.startswith(codecs.BOM_UTF8) else raw


def walk_files(root: Path, notes: list[str]) -> list[Path]:
    """Every file below ``root``, following symbolic links to folders once (cycles noted).

    ``Path.rglob`` does not follow linked folders, which silently skipped them; a link that
    leads back into a folder already walked is noted and not walked twice.
    """
    out: list[Path] = []
    seen: set[str] = set()
    for folder, dirs, names in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            notes.append(f"skipped {folder}: a symbolic link to a folder already read ({real})")
            dirs[:] = []
            continue
        seen.add(real)
        for d in dirs:
            full = Path(folder) / d
            if full.is_symlink() and not full.exists():
                notes.append(f"skipped {full}: a broken symbolic link")
        for name in names:
            f = Path(folder) / name
            if f.is_file():
                out.append(f)
            elif f.is_symlink():
                notes.append(f"skipped {f}: a broken symbolic link")
    return sorted(out)


def split_name(raw: str | Path) -> tuple[str | None, Path]:
    """``NAME=PATH`` as (NAME, PATH); a plain path (even one holding ``=``) as (None, PATH)."""
    text = str(raw)
    if "=" in text and not Path(text).exists():
        name, _, rest = text.partition("=")
        if name.strip() and rest:
            return name.strip(), Path(rest)
    return None, Path(text)


BOOKKEEPING = ("eval-set.json", "logs.json")
"""Files Inspect writes beside the logs of an eval set: listed as ignored, never as skipped runs."""


def is_bookkeeping(path: Path) -> bool:
    """Inspect's eval-set files and this tool's own ``*.evaladdon.json`` outputs: not runs."""
    return path.name in BOOKKEEPING or path.name.endswith(".evaladdon.json")


def sniff(path: Path) -> tuple[Reader | None, str]:
    """The reader for ``path`` and what it is, or ``None`` and why not."""
    from evaladdon.adapters.preferences import PREFERENCE_SUFFIXES, refuse_preferences, sniff_preferences

    suffix = path.suffix.lower()
    raw = None  # the first bytes, read once for every test below (as looks_like_preferences reads them)
    if suffix in PREFERENCE_SUFFIXES and path.is_file():
        with path.open("rb") as fh:
            raw = fh.read(SNIFF_BYTES)
        if sniff_preferences(raw):  # pairwise battles, not per-item scores: `evaladdon rank` reads them
            return refuse_preferences, "pairwise preferences: use evaladdon rank"
    if path.is_dir():
        return (helm.read_helm_run, "HELM run") if helm.is_run_dir(path) else (None, "a directory")
    if helm.is_run_part(path):
        return None, helm.RUN_PART
    if suffix == ".eval":
        return read_inspect_log, "inspect log"
    if suffix in (".json", ".txt"):
        head = _head(path, raw).lstrip()
        if head[:1] == b"{" and is_inspect_json(head):
            return read_inspect_log, "inspect log"
        if suffix == ".json" and helm.looks_like_per_instance_stats(head):
            return helm.read_helm_run, "HELM run"
        if suffix == ".json" and helm.looks_like_run_stats(head):
            return helm.refuse_run_stats, "HELM run-level stats"
        if suffix == ".json" and looks_like_deepeval(path, head):
            return read_deepeval, "DeepEval test run"
        if suffix == ".json" and looks_like_promptfoo_json(head):
            return read_promptfoo, "promptfoo output"
        if suffix == ".json" and looks_like_write_out(path, head):
            return read_write_out, "lm-eval 0.3 write-out"
        if suffix == ".json" and looks_like_results_json(head):
            return read_results_file, "lm-eval results"
        if suffix == ".json" and looks_like_samples_jsonl(head):
            return read_samples, "lm-eval samples"
        return None, "not a log or a table (unrecognised JSON)" if head[:1] in (b"{", b"[") else "not a log"
    if suffix in (".jsonl", ".ndjson"):
        head = _head(path, raw)
        if looks_like_samples_jsonl(head):
            return read_samples, "lm-eval samples"
        if looks_like_promptfoo_jsonl(head):
            return read_promptfoo, "promptfoo output"
        return read_long_table, "table"
    if suffix in (".csv", ".tsv") and looks_like_promptfoo_csv(_head(path)):
        return read_promptfoo, "promptfoo CSV export"
    if suffix in TABLE_SUFFIXES:
        return read_long_table, "table"
    return None, f"unsupported file type {suffix or '(none)'!r}"


def expand_paths(paths: Iterable[str | Path]) -> tuple[list[tuple[Path, Reader, bool]], list[str]]:
    """Readable files (as given, and found recursively in directories) and skip notes.

    Each file comes with whether it was named explicitly (True) or found in a directory.
    """
    files: list[tuple[Path, Reader, bool]] = []
    notes: list[str] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise InputError("no such file or directory", str(p))
        if p.is_dir() and helm.is_run_dir(p):  # a HELM run is a directory: one input, read through
            files.append((p / helm.PER_INSTANCE, helm.read_helm_run, True))  # its per-instance stats
            continue
        if p.is_dir():
            found = 0
            sniffed = [(f, *sniff(f)) for f in walk_files(p, notes)]
            # lm-eval results next to samples only name runs and filters: read via pairing
            sample_dirs = {f.parent for f, reader, _ in sniffed if reader is read_samples}
            for f, reader, what in sniffed:
                if reader is None:
                    if what == helm.RUN_PART:  # read through the run's per_instance_stats.json
                        continue
                    if is_bookkeeping(f):
                        notes.append(f"ignored {f}: eval-set bookkeeping or an evaladdon output, not a run")
                    elif f.suffix.lower() in (".json", ".jsonl", ".eval", ".csv", ".txt"):
                        notes.append(f"skipped {f}: {what}")
                    continue
                if reader is read_results_file and f.parent in sample_dirs:
                    continue
                files.append((f, reader, False))
                found += 1
            if not found:
                raise InputError("no readable logs or tables in this directory", str(p))
        else:
            reader, what = sniff(p)
            if reader is None:
                raise InputError(f"{what}; expected an Inspect log, lm-eval output, HELM run, promptfoo or DeepEval output, or a table ({', '.join(TABLE_SUFFIXES)})",
                                 str(p))
            files.append((p, reader, True))
    return files, notes


def _progress(files: list[tuple[Path, Reader, bool]], show: bool) -> Iterable[tuple[Path, Reader, bool]]:
    """Files as they are read, with a transient progress bar on stderr when ``show``."""
    if not show or len(files) < 2 and sum(f.stat().st_size for f, _, _ in files) < 20 * 2**20:
        yield from files
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn

    with Progress(TextColumn("reading logs"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("read", total=len(files))
        for item in files:
            yield item
            bar.advance(task)


COMBINE_INSPECT = True
"""Read Inspect logs as :class:`Part` and make one DataFrame of consecutive ones (False: one
table per log, the reference the tests compare with)."""


COMBINE_LM_EVAL = True
"""Read lm-eval samples files as :class:`SamplesPart` and make one DataFrame of consecutive
ones, as for Inspect logs (False: one table per file, the reference the tests compare with)."""

PARTS = (Part, SamplesPart)

PENDING_ROWS = 200_000
"""Rows of small Inspect logs kept as Python lists (:class:`~evaladdon.adapters.inspect_rows.Pending`)
before they are converted together, so a read of thousands of logs holds at most this many
rows as Python objects (~0.8 KB a row) besides the columns."""


def _runs(t: pd.DataFrame | Part | SamplesPart) -> list[str]:
    if isinstance(t, PARTS):
        return [t.run] if t.n else []
    return t["run"].unique().tolist()


def _frames(tables: list[pd.DataFrame | Part | SamplesPart]) -> list[pd.DataFrame]:
    """DataFrames in file order, each stretch of consecutive Inspect (or lm-eval samples) parts as one."""
    out: list[pd.DataFrame] = []
    stretch: list = []
    for t in tables + [None]:  # type: ignore[list-item]
        if isinstance(t, PARTS) and (not stretch or type(stretch[0]) is type(t)):
            stretch.append(t)
            continue
        if stretch:
            out.append(frame(stretch) if isinstance(stretch[0], Part) else frame_parts(stretch))
            stretch = []
        if isinstance(t, PARTS):
            stretch.append(t)
        elif t is not None:
            out.append(t)
    return out


def _convert_pending(tables: list) -> None:
    """The Inspect parts of ``tables`` still held as lists, converted together (in place)."""
    at = [i for i, t in enumerate(tables) if isinstance(t, Part) and t.pending is not None]
    for i, part in zip(at, convert_pending([tables[i] for i in at])):
        tables[i] = part


def read_runs(paths: Iterable[str | Path], cluster: str | None = None, progress: bool = False,
              results_only: bool = False) -> Loaded:
    """Read every file into one validated canonical table, with notes.

    ``results_only``: when nothing but harness-reported values (lm-eval results files
    without samples) was read, return them in ``Loaded.reported`` with an empty table
    instead of refusing (for commands that render them via ``evaladdon.reported``).

    A file named explicitly that cannot be read is an error; one found in a directory is
    skipped with a note (so one bad log does not hide the rest, and is still reported).
    When two files give the same run id, each such run is prefixed with its file's stem so
    runs stay distinct (the same run stored as .eval and .json stays two runs).
    """
    files, notes, name_of, skipped = inputs(paths)
    # Inspect logs stay Parts (rows before the column operations) until the end, where each
    # stretch of consecutive ones becomes ONE DataFrame (inspect_rows.frame): per-file
    # DataFrames and finalize were most of the cost of many small logs
    tables: list[pd.DataFrame | Part | SamplesPart] = []
    sources: list[Path] = []
    reported: list[dict] = []
    incomplete: dict[str, dict] = {}
    pending = 0  # rows of the parts still held as lists
    for f, reader, explicit in _progress(files, progress):
        try:
            if reader is read_inspect_log and COMBINE_INSPECT:
                t = read_inspect_part(f, cluster)
            elif reader is read_samples and COMBINE_LM_EVAL:
                t = read_samples_part(f, cluster)
            else:
                t = reader(f, cluster)
        except InputError as exc:
            if explicit:
                raise
            notes.append(f"skipped {exc}")
            skipped.append({"path": str(f), "reason": exc.message})
            continue
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # a reader that breaks on a malformed file: that file is unreadable
            reason = f"cannot read ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"
            if explicit:
                raise InputError(reason, str(f)) from exc
            notes.append(f"skipped {f}: {reason}")
            skipped.append({"path": str(f), "reason": reason})
            continue
        if isinstance(t, SamplesPart):
            notes.extend(t.notes)
        elif isinstance(t, Part):
            notes.extend(t.notes)
            if t.incomplete and t.n:
                incomplete[t.source] = dict(t.incomplete)
        else:
            notes.extend(t.attrs.get("notes", []))
            reported.extend(t.attrs.get("reported", []))
            if t.attrs.get("incomplete") and len(t):
                incomplete[str(t["source"].iloc[0])] = dict(t.attrs["incomplete"])
        tables.append(t)
        sources.append(f)
        if isinstance(t, Part) and t.pending is not None:
            pending += t.n
            if pending > PENDING_ROWS:
                _convert_pending(tables)
                pending = 0
    name_runs(tables, sources, name_of)
    separate_runs(tables, set(name_of.values()))
    table = validate(concat(_frames(tables)))
    if table.empty and not (results_only and reported):
        why = f"{len(notes)} note(s), first: {notes[0]}" if notes else "the inputs hold no samples"
        raise InputError(f"no per-item rows to analyse ({why})")
    user_named = set(name_of.values())
    names = {str(r): str(r) for r in table["run"].unique() if str(r) in user_named or str(r).split("/")[0] in user_named}
    table.attrs["run_names"] = names
    return Loaded(table, notes, reported, skipped, names, incomplete)


def inputs(paths: Iterable[str | Path]) -> tuple[list[tuple[Path, Reader, bool]], list[str], dict[Path, str],
                                                 list[dict[str, str]]]:
    """The files of ``paths`` (``NAME=PATH`` allowed; :func:`expand_paths`), the notes on what
    was skipped, the name the user gave each file's runs, and the skipped files as records."""
    named = [split_name(p) for p in paths]
    given = [n for n, _ in named if n is not None]
    if len(set(given)) < len(given):
        dupe = next(n for n in given if given.count(n) > 1)
        raise InputError(f"the name {dupe!r} is given to two inputs (NAME=PATH)")
    files, notes = [], []
    name_of: dict[Path, str] = {}
    for name, path in named:
        got, more = expand_paths([path])
        files.extend(got)
        notes.extend(more)
        if name is not None:
            name_of.update({f: name for f, _, _ in got})
    skipped = [{"path": n[len("skipped "):].partition(": ")[0], "reason": n.partition(": ")[2]}
               for n in notes if n.startswith("skipped ")]
    return files, notes, name_of, skipped


def name_runs(tables: list, sources: list[Path], name_of: dict[Path, str]) -> None:
    """``NAME=PATH``: the run(s) read from PATH are called NAME (``NAME/run`` when PATH holds
    several runs); ``tables[i]`` (a Part or a DataFrame, read from ``sources[i]``) in place."""
    for name in dict.fromkeys(name_of.values()):  # NAME=PATH: the run(s) of PATH are called NAME
        mine = [i for i, f in enumerate(sources) if name_of.get(f) == name]
        runs = list(dict.fromkeys(r for i in mine for r in _runs(tables[i])))
        for i in mine:
            t = tables[i]
            if isinstance(t, PARTS):
                t.run = name if len(runs) == 1 else name + "/" + t.run
                continue
            t = t.copy()
            t["run"] = name if len(runs) == 1 else name + "/" + t["run"].astype(str)
            tables[i] = t


def separate_runs(tables: list, user_named: set[str]) -> None:
    """Two files that give one run id the same (task, metric) hold different runs: each such
    run (not one the user named) is prefixed with its file's shortest distinguishing path."""
    # one run may span files (lm-eval writes one samples file per task); only when two files
    # give the same run the same (task, metric) are they different runs under one id
    sources_by_key: dict[tuple[str, str, str], set[str]] = {}
    for t in tables:
        if isinstance(t, PARTS):
            keys: Iterable[tuple[str, str, str, str]] = (
                ((t.run, t.task, m, t.source) for m in dict.fromkeys(t.metrics)) if t.n else ())
        else:  # drop_duplicates on integer codes
            keys = distinct_tuples(t, ("run", "task", "metric", "source"))
        for run, task, metric, source in keys:
            sources_by_key.setdefault((run, task, metric), set()).add(source)
    clashing = {key[0] for key, srcs in sources_by_key.items() if len(srcs) > 1 and key[0] not in user_named}
    if clashing:
        label = distinguishing_names(src for (run, _, _), srcs in sources_by_key.items() if run in clashing
                                     for src in srcs)
        for t in tables:
            if isinstance(t, PARTS):
                if t.run in clashing:
                    t.run = label[str(t.source)] + "/" + t.run
                continue
            hit = t["run"].isin(clashing)
            if hit.any():
                if isinstance(t["run"].dtype, pd.CategoricalDtype):  # the table reader's one-value
                    t["run"] = t["run"].astype(object)  # columns are categorical: new labels need a str column
                src = t.loc[hit, "source"].astype(object)
                names = {s: label[str(s)] for s in src.unique()}  # per file, not per row
                t.loc[hit, "run"] = src.map(names) + "/" + t.loc[hit, "run"]


def load(paths: Iterable[str | Path], cluster: str | None = None) -> pd.DataFrame:
    """The canonical table of :func:`read_runs` (notes dropped; use ``read_runs`` to show them)."""
    return read_runs(paths, cluster).table
