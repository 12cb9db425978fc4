"""Files in, canonical item table out.  Adapters know nothing about statistics.

:func:`load` takes files and directories, picks the reader for each file, and returns one
validated canonical table.  Rows that cannot be scored stay in the table with their
reason in ``error``; the summary counts them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

import pandas as pd

from evaladdon.adapters.table import TABLE_SUFFIXES, read_long_table
from evaladdon.errors import InputError
from evaladdon.table import concat, validate

Reader = Callable[[Path, "str | None"], pd.DataFrame]


def _reader_for(path: Path) -> Reader | None:
    if path.suffix.lower() in TABLE_SUFFIXES:
        return read_long_table
    return None


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given, and the readable files found recursively in directories (sorted)."""
    files: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise InputError("no such file or directory", str(p))
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and _reader_for(f) is not None)
            if not found:
                raise InputError("no readable logs or tables in this directory", str(p))
            files.extend(found)
        else:
            if _reader_for(p) is None:
                raise InputError(f"unsupported file type {p.suffix or '(none)'!r}; expected {', '.join(TABLE_SUFFIXES)}", str(p))
            files.append(p)
    return files


def load(paths: Iterable[str | Path], cluster: str | None = None) -> pd.DataFrame:
    """Read every file into one canonical table and validate it.

    When two files give the same run id, each such run is prefixed with its file's stem so
    runs stay distinct.
    """
    tables = []
    for f in expand_paths(paths):
        reader = _reader_for(f)
        assert reader is not None
        tables.append(reader(f, cluster))
    runs_by_source: dict[str, set[str]] = {}
    for t in tables:
        for run in t["run"].unique():
            runs_by_source.setdefault(run, set()).update(t["source"].unique())
    clashing = {r for r, sources in runs_by_source.items() if len(sources) > 1}
    if clashing:
        for t in tables:
            hit = t["run"].isin(clashing)
            t.loc[hit, "run"] = t.loc[hit, "source"].map(lambda s: Path(s).stem) + "/" + t.loc[hit, "run"]
    return validate(concat(tables))
