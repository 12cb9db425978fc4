"""A store of runs: the canonical table of every ingested log as a Parquet dataset.

Layout of ``DIR``::

    DIR/manifest.json          source path -> content key, data file, runs, models, tasks, metrics, rows, time
    DIR/data/<key>.parquet     one file per source log (its canonical rows, ``meta.*`` columns included)

The key is the BLAKE2b digest of the log's bytes (streamed, 1 MiB at a time) and of the
reading options (``--cluster``), so ingesting the same log again is a no-op and a changed log
replaces its rows.

An ingest is one transaction (:func:`open_for_writing`, :func:`record_results`): under the
store's writer lock (:mod:`evaladdon.store.lock`, so parallel ingests queue instead of deleting
each other's files) the manifest is read, the new data files are written beside the old ones
(atomically, temporary file + rename, through :mod:`evaladdon._util.safe_write`), the manifest
is replaced atomically, and only then are the files it no longer names removed.  An ingest
that fails or is killed leaves the store as it was plus unreferenced files, which the next
ingest removes first.  A manifest entry whose data file is missing is read again when its log
is ingested again, and dropped (with a warning) otherwise.

Queries (:func:`evaladdon.store.query.load_store`) run in DuckDB inside the process.  Reading
logs into the store is the ``ingest`` route's (:mod:`evaladdon.routes.ingest`): the store only
writes tables and keeps the manifest, and imports no reader.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from evaladdon.errors import EvalAddonError, InputError

MANIFEST = "manifest.json"
DATA = "data"
FORMAT_VERSION = 1
CHUNK = 1 << 20


def content_key(path: str | os.PathLike[str], cluster: str | None = None) -> str:
    """BLAKE2b (128-bit) of the file's bytes and the reading options, streamed."""
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as fh:
        while True:
            block = fh.read(CHUNK)
            if not block:
                break
            h.update(block)
    h.update(b"\x00cluster=" + (cluster or "").encode("utf-8", "surrogatepass"))
    return h.hexdigest()


@dataclass
class Manifest:
    """What is stored: ``entries[source] = {key, file, runs, models, tasks, metrics, n_rows, ingested_at}``."""

    root: Path
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, root: str | os.PathLike[str], create: bool = False) -> "Manifest":
        import orjson

        r = Path(root)
        if not r.exists():
            if not create:
                raise InputError("no such store (run `evaladdon ingest LOGS --store DIR` first)", str(r))
            r.mkdir(parents=True)
        if not r.is_dir():
            raise InputError("the store must be a directory", str(r))
        (r / DATA).mkdir(exist_ok=True) if create else None
        m = r / MANIFEST
        if not m.exists():
            if not create:
                raise InputError("not a store: no manifest.json", str(r))
            return cls(r)
        from evaladdon._util.gc import no_cyclic_gc

        try:
            with no_cyclic_gc():  # a 1,000-run manifest: the collector's first pass cost 4x the parse
                data = orjson.loads(m.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise InputError(f"the store's manifest is not valid JSON ({exc})", str(m)) from None
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            raise InputError("the store's manifest has no 'files' object", str(m))
        return cls(r, _checked_entries(data["files"], r, m))

    def save(self) -> None:
        import orjson

        from evaladdon._util.safe_write import atomic_write

        payload = orjson.dumps({"version": FORMAT_VERSION, "files": self.entries},
                               option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        atomic_write(self.root / MANIFEST, lambda p: p.write_bytes(payload))

    def data_files(self) -> list[Path]:
        """Each stored data file once (the same content under two names is stored once)."""
        seen = dict.fromkeys(e["file"] for e in self.entries.values())
        return [self.root / DATA / f for f in seen]

    def live(self) -> set[str]:
        """The names of the data files the manifest refers to."""
        return {str(e["file"]) for e in self.entries.values()}

    def missing(self) -> list[str]:
        """The sources whose data file is not in the store."""
        data = self.root / DATA
        return [s for s, e in self.entries.items() if not (data / str(e["file"])).is_file()]


def _checked_entries(files: dict[str, Any], root: Path, m: Path) -> dict[str, dict[str, Any]]:
    """The manifest's entries, each naming its content key and a data file inside the store's
    ``data`` folder: a plain file name (no folder part, no ``..``), and not a symbolic link
    leading out of the store.  Anything else is an error naming the manifest: queries open
    and ingest deletes what the manifest names."""
    data = root / DATA
    try:  # one listing of the folder, not a stat per entry (1,000 entries: 6 ms, not 29)
        with os.scandir(data) as it:
            links = {d.name for d in it if d.is_symlink()}
    except OSError:
        links = set()
    outside = None
    for source, e in files.items():
        if not isinstance(e, dict) or not isinstance(e.get("file"), str) or not isinstance(e.get("key"), str):
            raise InputError(f"the store's manifest has a malformed entry for {source!r}", str(m))
        name = e["file"]
        if name in ("", ".", "..") or os.path.basename(name) != name or "\\" in name or "\x00" in name:
            outside = name
        elif name in links and root.resolve() not in (data / name).resolve().parents:
            outside = name
        if outside is not None:
            raise InputError(f"the store's manifest names a data file outside the store ({outside!r} for "
                             f"{source})", str(m))
    return dict(files)


@contextlib.contextmanager
def open_for_writing(root: str | os.PathLike[str], wait: float | None = None,
                     on_wait: Callable[[], None] | None = None) -> Iterator[Manifest]:
    """The store's manifest (the store created when missing), read and kept under the writer
    lock for the block, after what killed or failed writers left was swept away.  ``wait``:
    seconds to wait for another writer (default :data:`evaladdon.store.lock.DEFAULT_WAIT`)."""
    from evaladdon.store.lock import DEFAULT_WAIT, sweep, writer_lock

    r = Path(root)
    if not r.exists():
        try:
            r.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create the store: {exc.strerror or exc}", str(r)) from None
    if not r.is_dir():
        raise InputError("the store must be a directory", str(r))
    with writer_lock(r, DEFAULT_WAIT if wait is None else wait, on_wait):
        manifest = Manifest.load(r, create=True)
        (r / DATA).mkdir(exist_ok=True)
        sweep(r, DATA, manifest.live())
        yield manifest


def _table_to_parquet(df: Any, dest: Path) -> None:
    """Write a canonical table; ``meta.*`` columns of mixed Python types become strings."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from evaladdon._util.safe_write import atomic_path

    try:
        table = pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        df = df.copy()
        for col in df.columns:
            if col.startswith("meta.") and df[col].dtype == object:
                df[col] = df[col].map(lambda v: None if v is None else str(v))
        table = pa.Table.from_pandas(df, preserve_index=False)
    for name in ("cluster", "item_hash", "error", "raw"):  # a reader's categorical (cluster ids, raw
        at = table.schema.get_field_index(name)              # text): stored as plain strings, as before
        if at >= 0 and pa.types.is_dictionary(table.schema.field(at).type):
            col = table.column(at)  # a column with no value at all was stored as arrow's null type
            table = table.set_column(at, name, pa.nulls(len(col)) if col.null_count == len(col)
                                     else col.cast(table.schema.field(at).type.value_type))
    at = table.schema.get_field_index("epoch")  # a large long table's int8 epochs: stored as int64, as before
    if at >= 0 and table.schema.field(at).type != pa.int64():
        table = table.set_column(at, "epoch", table.column(at).cast(pa.int64()))
    with atomic_path(dest) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def manifest_summary(df: Any) -> dict[str, Any]:
    """What the manifest records of one log's canonical rows: runs, models, tasks, metrics,
    harnesses (sorted), row and item counts, the (run, model, task, metric, harness)
    combinations in table order, and per run its model, items, rows, tasks and metrics.

    Built from the distinct combinations and two per-run counts on integer codes
    (:func:`evaladdon.table.distinct_tuples`) rather than a pandas group-by with named
    aggregations, which cost ~40 ms a small file (a third of ingesting it)."""
    import numpy as np

    from evaladdon.table import distinct_tuples

    from evaladdon.table.codes import label_codes

    combos = [tuple(map(str, c)) for c in distinct_tuples(df, ("run", "model", "task", "metric", "harness"))]
    run_codes, run_names = _sorted_run_codes(df, combos)
    item_codes, n_labels = label_codes(df["item"])  # the codes validate computed (cached): no second hash
    n_rows = np.bincount(run_codes, minlength=len(run_names))
    if len(run_names) == 1:  # one run a log (the usual case): its items are all the labels
        n_items = np.array([n_labels + int(bool((item_codes < 0).any()))])
    else:
        run_item = np.unique(run_codes.astype(np.int64) * (n_labels + 1) + item_codes)
        n_items = np.bincount(run_item // (n_labels + 1), minlength=len(run_names))
    first_model: dict[str, str] = {}
    for run, model, *_ in combos:
        first_model.setdefault(run, model)
    col = lambda i: sorted({c[i] for c in combos})  # noqa: E731
    return {
        "runs": col(0),
        "models": col(1),
        "tasks": col(2),
        "metrics": col(3),
        "harness": col(4),
        "n_rows": int(len(df)),
        "n_items": int(n_labels),
        "combos": [list(c) for c in combos],
        "run_detail": [{"run": r, "model": first_model[r], "n_items": int(n_items[i]), "n_rows": int(n_rows[i]),
                        "tasks": sorted({c[2] for c in combos if c[0] == r}),
                        "metrics": sorted({c[3] for c in combos if c[0] == r})}
                       for i, r in enumerate(run_names)],
    }


def _sorted_run_codes(df: Any, combos: list[tuple[str, ...]]) -> tuple[Any, list[str]]:
    """``pd.factorize(df["run"].astype(str), sort=True)`` from the run column's cached
    first-appearance codes (:func:`evaladdon.table.label_codes`) and the runs in ``combos``
    (in table order), without a str copy and a hash of the column; the pandas call itself
    when a run is missing."""
    import numpy as np
    import pandas as pd

    from evaladdon.table.codes import label_codes

    codes, n = label_codes(df["run"])
    order = list(dict.fromkeys(c[0] for c in combos))
    if len(order) != n or (n and bool((codes < 0).any())):
        got, names = pd.factorize(df["run"].astype(str), sort=True)
        return got, [str(r) for r in names]
    names = sorted(order)
    rank = {r: i for i, r in enumerate(names)}
    return np.array([rank[r] for r in order], dtype=np.int64)[codes], names


def store_table(df: Any, key: str, root: str, notes: list[str]) -> dict[str, Any]:
    """Write the rows of one log (its content ``key``) into the store at ``root``: the manifest
    entry with ``status`` ``stored``, or ``error`` (one line)."""
    name = f"{key}.parquet"
    try:
        _table_to_parquet(df, Path(root) / DATA / name)
    except (EvalAddonError, OSError) as exc:
        return {"status": "error", "message": " ".join(str(exc).split())}
    from evaladdon.table.direction import ATTR, declared_in

    declared = declared_in(df)  # the directions the log declares: kept with its entry (absent when none)
    return {"status": "stored", "key": key, "file": name, **manifest_summary(df), "notes": list(notes),
            **({ATTR: declared} if declared else {}),
            "ingested_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}


@dataclass
class IngestReport:
    """What an ingest did: logs stored, unchanged, replaced; errors (files named) and notes."""

    stored: int = 0
    unchanged: int = 0
    replaced: int = 0
    repaired: int = 0
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def record_results(manifest: Manifest, sources: list[str], explicit: list[bool], results: Iterable[dict[str, Any]],
                   report: IngestReport) -> IngestReport:
    """Enter each log's result (``stored``, ``unchanged`` or ``error``) in the manifest, save it
    last, and let the data files of replaced logs go.  A file named on the command line
    (``explicit``) that could not be read is an error; one found in a directory is skipped.

    Under the writer lock (:func:`open_for_writing`).  When anything fails before the manifest
    is replaced, the data files written meanwhile are removed: the store is as it was."""
    from evaladdon.store.lock import sweep

    before = manifest.live()
    try:
        for source, named, res in zip(sources, explicit, results, strict=True):
            _record_one(manifest, source, named, res, report)
        manifest.save()
    except BaseException:
        sweep(manifest.root, DATA, before)
        raise
    sweep(manifest.root, DATA, manifest.live())  # replaced logs' rows go
    return report


def _record_one(manifest: Manifest, source: str, named: bool, res: dict[str, Any], report: IngestReport) -> None:
    if res["status"] == "error":  # a file named on the command line is an error, one found is skipped
        (report.errors if named else report.notes).append(res["message"] if named else f"skipped {res['message']}")
        return
    old = manifest.entries.get(source)
    if res["status"] == "unchanged":
        if old is not None and old.get("key") == res["key"]:
            report.unchanged += 1
            return
        twin = next(e for e in manifest.entries.values() if e["key"] == res["key"])
        entry = dict(twin)
    else:
        entry = {k: v for k, v in res.items() if k != "status"}
        report.notes.extend(entry.pop("notes", []))
    entry["source"] = source
    manifest.entries[source] = entry
    if old is None:
        report.stored += 1
    elif old.get("key") == entry["key"]:  # its data file was missing: read again
        report.repaired += 1
    else:
        report.replaced += 1
