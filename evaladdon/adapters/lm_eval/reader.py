"""The lm-eval readers the registry names: samples files (paired with their results file) and results files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.adapters.lm_eval.frame import (
    SamplesPart,
    _cols_from_records,
    _empty,
    frame_parts,
    hot_strings,
    rows_from_records,
)
from evaladdon.adapters.lm_eval.results import (
    _TS,
    declared_directions,
    filters_of,
    model_name,
    pair_results,
    read_results,
    repeats_of,
    reported_values,
    target_delimiter,
)
from evaladdon.adapters.lm_eval.samples import _records_of
from evaladdon.adapters.lm_eval.write_out import split_legacy_stem
from evaladdon.adapters.tuning import ReadTuning
from evaladdon.errors import InputError
from evaladdon.table import finalize
from evaladdon.table.direction import ATTR


def _run_id(model: str, samples_path: Path, results_path: Path | None) -> str:
    m = _TS.search(samples_path.stem) or (_TS.search(results_path.stem) if results_path else None)
    return f"{model}@{m.group(1)}" if m else model


def read_samples(path: str | Path, cluster: str | None = None, *, tuning: ReadTuning | None = None) -> pd.DataFrame:
    """A samples file (JSON lines, or a JSON array in a .jsonl) of one task."""
    part = read_samples_part(path, cluster, tuning=tuning)
    df = frame_parts([part])  # conforming by construction (see _frame)
    if part.declared:  # the directions its results file declares (read_runs takes them from the part)
        df.attrs[ATTR] = part.declared
    return df


def read_samples_part(path: str | Path, cluster: str | None = None, *, tuning: ReadTuning | None = None
                      ) -> SamplesPart:
    """:func:`read_samples` before its DataFrame is built (see :class:`SamplesPart`)."""
    p = Path(path)
    results_path, task = pair_results(p)
    results = read_results(results_path) if results_path else None
    guessed_task, guessed_model = split_legacy_stem(p.stem)
    task = task or guessed_task
    model = model_name(results, guessed_model or p.parent.name)
    notes: list[str] = []
    if results is None:
        notes.append(f"{p}: no results file pairs with these samples; model named after the folder ({model})")
    known: dict[str, bool] = {}
    try:
        cols, more = _cols_from_records(_records_of(p), task=task, source=str(p), filters=filters_of(results, task),
                                        cluster=cluster, delim=target_delimiter(results, task), results=results,
                                        known=known, tuning=tuning)
    except InputError as exc:
        if exc.where == "results" and results_path is not None:  # a count checked lazily
            raise InputError(exc.message, str(results_path)) from None
        raise
    notes += more
    repeats = repeats_of(results, task)
    if repeats > 1 and not (cols["epoch"] > 1).any():
        notes.append(f"{p}: task {task!r} ran with repeats={repeats} but the harness logged "
                     "only the first repeat's score per doc; epochs are not available")
    return SamplesPart(hot_strings(cols), _run_id(model, p, results_path), task, model, str(p), notes, known["str_hashes"],
                       declared_directions(results, [task]) or None)


def read_results_file(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """A results JSON: rows from embedded ``samples`` if any; otherwise no rows and the
    harness-reported values in ``attrs["reported"]`` (see the module docstring)."""
    p = Path(path)
    results = read_results(p)
    model = model_name(results, p.parent.name)
    embedded = results.get("samples")
    frames: list[pd.DataFrame] = []
    notes: list[str] = []
    m = _TS.search(p.stem)
    run = f"{model}@{m.group(1)}" if m else f"{model}@{p.stem}"
    if isinstance(embedded, dict) and embedded:
        for task, records in embedded.items():
            if not isinstance(records, list):
                continue
            df, more = rows_from_records(records, task=str(task), run=run, model=model, source=str(p),
                                         filters=filters_of(results, str(task)), cluster=cluster,
                                         delim=target_delimiter(results, str(task)), results=results)
            frames.append(df)
            notes += more
    reported: list[dict[str, Any]] = []
    if not frames:
        out = _empty()
        reported = reported_values(results, run=run, source=str(p), model=model)
        notes.append(f"{p}: results only, no per-item samples (run lm_eval with --log_samples): "
                     f"{len(reported)} harness-reported value(s), unclustered and unpaired")
    else:
        out = finalize(pd.concat(frames, ignore_index=True))
    out.attrs["notes"] = notes
    out.attrs["reported"] = reported
    declared = declared_directions(results)
    if declared:
        out.attrs[ATTR] = declared
    return out
