"""Files in, one validated canonical table out (:func:`read_runs`).

Each file is read by its registered reader (:mod:`evaladdon.adapters.registry`); Inspect logs
and lm-eval samples files are read as parts and each stretch of consecutive ones becomes ONE
DataFrame.  Runs are named (``NAME=PATH``) and kept apart (one run id in two files) before the
table is validated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.adapters.inspect.parts import Part, convert_pending
from evaladdon.adapters.inspect.rows import frame
from evaladdon.adapters.lm_eval import SamplesPart, frame_parts
from evaladdon.adapters.registry import ReadFn, inputs, reader_of
from evaladdon.adapters.tuning import DEFAULT, ReadOptions, ReadTuning
from evaladdon.errors import InputError
from evaladdon.table import concat, distinct_tuples, validate
from evaladdon.table.direction import ATTR, merge_declared
from evaladdon.table.loaded import Loaded
from evaladdon.table.names import distinguishing_names


def _progress(files: list[tuple[Path, ReadFn, bool]], show: bool) -> Iterable[tuple[Path, ReadFn, bool]]:
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


PARTS = (Part, SamplesPart)


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
    for i, part in zip(at, convert_pending([tables[i] for i in at]), strict=True):
        tables[i] = part


def read_runs(paths: Iterable[str | Path], cluster: str | None = None, progress: bool = False,
              results_only: bool = False, *, tuning: ReadTuning | None = None, split: str | None = None,
              all_metrics: bool = False, answers: bool = False, judged: bool = False) -> Loaded:
    """Read every file into one validated canonical table, with notes.

    ``results_only``: when nothing but harness-reported values (lm-eval results files
    without samples) was read, return them in ``Loaded.reported`` with an empty table
    instead of refusing (for commands that render them via ``evaladdon.analysis.reported``).
    ``tuning``: how the readers read (:class:`~evaladdon.adapters.tuning.ReadTuning`; the
    same table under any).  ``split``, ``all_metrics``: what a HELM run shows
    (:class:`~evaladdon.adapters.tuning.ReadOptions`).  ``answers``: lm-eval generation samples
    also give their answers and targets (``prediction``, ``label``) for re-scoring; ``judged``:
    promptfoo and DeepEval model-graded results give the answer judged and the grader.

    A file named explicitly that cannot be read is an error; one found in a directory is
    skipped with a note (so one bad log does not hide the rest, and is still reported).
    When two files give the same run id, each such run is prefixed with its file's stem so
    runs stay distinct (the same run stored as .eval and .json stays two runs).
    """
    options = ReadOptions(cluster, tuning or DEFAULT, split, all_metrics, answers, judged)
    files, notes, name_of, skipped = inputs(paths)
    # Inspect logs stay Parts (rows before the column operations) until the end, where each
    # stretch of consecutive ones becomes ONE DataFrame (inspect.rows.frame): per-file
    # DataFrames and finalize were most of the cost of many small logs
    tables: list[pd.DataFrame | Part | SamplesPart] = []
    sources: list[Path] = []
    reported: list[dict] = []
    incomplete: dict[str, dict] = {}
    pending = 0  # rows of the parts still held as lists
    for f, reader, explicit in _progress(files, progress):
        try:
            t = reader_of(reader).read(f, options)
            if options.answers and getattr(reader_of(reader), "what", None) == "lm-eval samples":
                from evaladdon.adapters.lm_eval.answers import add_answers

                t = add_answers(t, f)
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
            if pending > options.tuning.pending_rows:
                _convert_pending(tables)
                pending = 0
    name_runs(tables, sources, name_of)
    separate_runs(tables, set(name_of.values()))
    declared = _declared(tables, notes)  # before the concat: per-file attrs that differ would drop them all
    table = validate(concat(_frames(tables)))
    if table.empty and not (results_only and reported):
        why = f"{len(notes)} note(s), first: {notes[0]}" if notes else "the inputs hold no samples"
        raise InputError(f"no per-item rows to analyse ({why})")
    user_named = set(name_of.values())
    names = {str(r): str(r) for r in table["run"].unique() if str(r) in user_named or str(r).split("/")[0] in user_named}
    table.attrs.update({"run_names": names, **declared})
    return Loaded(table, notes, reported, skipped, names, incomplete)


def _declared(tables: list, notes: list[str]) -> dict[str, dict]:
    """``{ATTR: directions}`` the files of ``tables`` declare, merged (:mod:`evaladdon.table.direction`;
    a clash noted), or ``{}`` when none does; taken out of each file's frame, whose other attrs pandas'
    concat keeps only when every frame has the same."""
    found = merge_declared((t.declared if isinstance(t, SamplesPart) else getattr(t, "attrs", {}).pop(ATTR, None)
                            for t in tables), notes)
    return {ATTR: found} if found else {}


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


def load(paths: Iterable[str | Path], cluster: str | None = None, *, tuning: ReadTuning | None = None) -> pd.DataFrame:
    """The canonical table of :func:`read_runs` (notes dropped; use ``read_runs`` to show them)."""
    return read_runs(paths, cluster, tuning=tuning).table
