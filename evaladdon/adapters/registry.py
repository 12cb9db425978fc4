"""Which reader reads a file: an ordered registry of formats, each a :class:`Reader`.

:func:`sniff` asks the registered formats in order whether they handle a path (by its name
and first bytes, :class:`Head`); the first that does names the reader, or -- for a file that
is recognised but not read (a directory, part of a HELM run, unrecognised JSON) -- says why
not.  :func:`expand_paths` and :func:`inputs` turn the paths a user gave (files, folders,
``NAME=PATH``) into the files to read, with notes on what was skipped.

Nothing heavy is imported here (no pandas, no pyarrow): the lean summarize of Inspect logs
sniffs its inputs with this module.
"""

from __future__ import annotations

import codecs
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Protocol

from evaladdon.adapters import helm
from evaladdon.adapters.common.guard import check_regular, not_regular
from evaladdon.adapters.deepeval import looks_like_deepeval, read_deepeval
from evaladdon.adapters.inspect.log import is_inspect_json, read_inspect_log, read_inspect_part
from evaladdon.adapters.lm_eval import (
    looks_like_results_json,
    looks_like_samples_jsonl,
    looks_like_write_out,
    read_results_file,
    read_samples,
    read_samples_part,
    read_write_out,
)
from evaladdon.adapters.long_table import TABLE_SUFFIXES, read_long_table
from evaladdon.adapters.promptfoo import (
    looks_like_promptfoo_csv,
    looks_like_promptfoo_json,
    looks_like_promptfoo_jsonl,
    read_promptfoo,
)
from evaladdon.adapters.tuning import ReadOptions
from evaladdon.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

ReadFn = Callable[[Path, "str | None"], "pd.DataFrame"]
"""A reader function: ``(path, cluster) -> canonical table`` (what :func:`sniff` returns)."""

SNIFF_BYTES = 4096


def _head(path: Path, raw: bytes | None = None) -> bytes:
    """The first bytes of ``path`` (or ``raw``, already read), without a UTF-8 byte-order mark."""
    if raw is None:
        with path.open("rb") as fh:
            raw = fh.read(SNIFF_BYTES)
    return raw[len(codecs.BOM_UTF8):] if raw.startswith(codecs.BOM_UTF8) else raw


class Head:
    """What the formats look at: a path's lower-case suffix and its first :data:`SNIFF_BYTES`
    bytes, read once, when a format first asks for them."""

    __slots__ = ("path", "suffix", "_raw", "_bytes", "_is_dir")

    def __init__(self, path: Path, is_dir: bool | None = None) -> None:
        self.path = path
        self.suffix = path.suffix.lower()
        self._raw: bytes | None = None
        self._bytes: bytes | None = None
        self._is_dir = is_dir

    @property
    def is_dir(self) -> bool:
        """``path.is_dir()``, asked once (or known to the caller: :func:`sniff`'s ``is_dir``)."""
        if self._is_dir is None:
            self._is_dir = self.path.is_dir()
        return self._is_dir

    @property
    def raw(self) -> bytes:
        """The first bytes as they are (a byte-order mark included)."""
        if self._raw is None:
            with self.path.open("rb") as fh:
                self._raw = fh.read(SNIFF_BYTES)
        return self._raw

    @property
    def bytes(self) -> bytes:
        """The first bytes without a UTF-8 byte-order mark."""
        if self._bytes is None:
            self._bytes = _head(self.path, self.raw)
        return self._bytes

    @property
    def text(self) -> bytes:
        """The first bytes without a byte-order mark and leading white space (JSON documents)."""
        return self.bytes.lstrip()


class Reader(Protocol):
    """A file format: whether it handles a path, and how to read it."""

    def handles(self, path: Path, head: Head) -> bool:
        """Whether ``path`` (its name, and the first bytes in ``head``) is of this format."""

    def read(self, path: Path, options: ReadOptions) -> Any:
        """The canonical table of ``path`` (or a part of one, for :func:`~evaladdon.adapters.read_runs`)."""


@dataclass(frozen=True)
class Format:
    """A registered format (a :class:`Reader`).

    ``what``: what a file of it is (or, with no ``fn``, why it is not read; a function of the
    :class:`Head` for the messages that name the file's suffix).  ``test(path, head)``: whether
    the format handles the path.  ``fn``: the reader function, ``(path, cluster) -> table``;
    ``tuned``: it takes ``tuning=``; ``chooses``: it takes ``split=`` and ``all_metrics=``
    (what a HELM run shows).  ``part`` (with ``combine``, the name of a
    :class:`~evaladdon.adapters.tuning.ReadTuning` switch): the function that reads the file
    as a part of a larger table, when that switch is on."""

    what: str | Callable[[Head], str]
    test: Callable[[Path, Head], bool]
    fn: ReadFn | None = None
    tuned: bool = False
    chooses: bool = False
    part: Callable[..., Any] | None = None
    combine: str = ""
    judged: bool = False  # fn(path, cluster, judged=...): model-graded verdicts for judge bias when asked

    def handles(self, path: Path, head: Head) -> bool:
        return self.test(path, head)

    def describe(self, head: Head) -> str:
        return self.what if isinstance(self.what, str) else self.what(head)

    def read(self, path: Path, options: ReadOptions) -> Any:
        if self.fn is None:
            raise InputError(self.what if isinstance(self.what, str) else self.what(Head(path)), str(path))
        if self.part is not None and getattr(options.tuning, self.combine):
            return self.part(path, options.cluster, tuning=options.tuning)
        if self.tuned:
            return self.fn(path, options.cluster, tuning=options.tuning)  # type: ignore[call-arg]
        if self.chooses:
            return self.fn(path, options.cluster, split=options.split,  # type: ignore[call-arg]
                           all_metrics=options.all_metrics)
        if self.judged and options.judged:
            return self.fn(path, options.cluster, judged=True)  # type: ignore[call-arg]
        return self.fn(path, options.cluster)


def _preferences(path: Path, head: Head) -> bool:
    from evaladdon.adapters.preferences import PREFERENCE_SUFFIXES, looks_like_preferences

    # pairwise battles, not per-item scores: `evaladdon rank` reads them (the first bytes, else the first record)
    return head.suffix in PREFERENCE_SUFFIXES and path.is_file() and looks_like_preferences(path, head.raw) is not None


def _refuse_preferences(path: Path, cluster: str | None = None) -> pd.DataFrame:
    from evaladdon.adapters.preferences import refuse_preferences

    return refuse_preferences(path, cluster)


def _lighteval_details(path: Path) -> bool:
    from evaladdon.adapters.lighteval import looks_like_details

    return looks_like_details(path)


def _lighteval_results(head: bytes) -> bool:
    from evaladdon.adapters.lighteval import looks_like_results

    return looks_like_results(head)


def _read_lighteval_details(path: Path, cluster: str | None = None) -> pd.DataFrame:
    from evaladdon.adapters.lighteval import read_details

    return read_details(path, cluster)


def _read_lighteval_results(path: Path, cluster: str | None = None) -> pd.DataFrame:
    from evaladdon.adapters.lighteval import read_results

    return read_results(path, cluster)


def _eee_aggregate(head: bytes) -> bool:
    from evaladdon.adapters.every_eval_ever import looks_like_aggregate

    return looks_like_aggregate(head)


def _eee_instances(head: bytes) -> bool:
    from evaladdon.adapters.every_eval_ever import looks_like_instances

    return looks_like_instances(head)


def _read_eee_aggregate(path: Path, cluster: str | None = None) -> pd.DataFrame:
    from evaladdon.adapters.every_eval_ever import read_aggregate

    return read_aggregate(path, cluster)


def _read_eee_instances(path: Path, cluster: str | None = None) -> pd.DataFrame:
    from evaladdon.adapters.every_eval_ever import read_instances

    return read_instances(path, cluster)


def _swe(name: str) -> Callable[..., bool]:
    """A SWE-bench sniffing test of :mod:`evaladdon.adapters.swe_bench`, imported when first asked."""
    def test(*args: Any) -> bool:
        from evaladdon.adapters import swe_bench

        return bool(getattr(swe_bench, name)(*args))

    return test


_SWE_READERS: dict[str, ReadFn] = {}
SWE_PART = "part of SWE-bench results (read through results.json)"


def _swe_reader(name: str) -> ReadFn:
    """A SWE-bench reader of :mod:`evaladdon.adapters.swe_bench` (one function object per name)."""
    def read(path: Path, cluster: str | None = None) -> pd.DataFrame:
        from evaladdon.adapters import swe_bench

        return getattr(swe_bench, name)(path, cluster)  # type: ignore[no-any-return]

    return _SWE_READERS.setdefault(name, read)


def _json(test: Callable[[bytes], bool]) -> Callable[[Path, Head], bool]:
    """A test of a ``.json`` file's first bytes (byte-order mark and leading space removed)."""
    return lambda path, head: head.suffix == ".json" and test(head.text)


def _json_at(test: Callable[[Path, bytes], bool]) -> Callable[[Path, Head], bool]:
    """A test of a ``.json`` file's path and first bytes (as :func:`_json`)."""
    return lambda path, head: head.suffix == ".json" and test(path, head.text)


def _lines(test: Callable[[bytes], bool]) -> Callable[[Path, Head], bool]:
    """A test of a ``.jsonl``/``.ndjson`` file's first bytes (byte-order mark removed)."""
    return lambda path, head: head.suffix in (".jsonl", ".ndjson") and test(head.bytes)


INSPECT = Format("inspect log", lambda path, head: head.suffix == ".eval", read_inspect_log, tuned=True,
                 part=read_inspect_part, combine="combine_inspect")
LM_EVAL_SAMPLES = Format("lm-eval samples", _json(looks_like_samples_jsonl), read_samples, tuned=True,
                         part=read_samples_part, combine="combine_lm_eval")

REGISTRY: tuple[Format, ...] = (
    Format("pairwise preferences: use evaladdon rank", _preferences, _refuse_preferences),
    Format("HELM run", lambda path, head: head.is_dir and helm.is_run_dir(path), helm.read_helm_run,
           chooses=True),
    Format("a directory", lambda path, head: head.is_dir),
    Format(helm.RUN_PART, lambda path, head: helm.is_run_part(path)),
    INSPECT,
    Format("Every Eval Ever aggregate", _json(_eee_aggregate), _read_eee_aggregate),
    Format("inspect log", lambda path, head: head.suffix in (".json", ".txt") and head.text[:1] == b"{"
           and is_inspect_json(head.text), read_inspect_log, tuned=True, part=read_inspect_part,
           combine="combine_inspect"),
    Format("HELM run", _json(helm.looks_like_per_instance_stats), helm.read_helm_run, chooses=True),
    Format("HELM run-level stats", _json(helm.looks_like_run_stats), helm.refuse_run_stats),
    Format("DeepEval test run", _json_at(looks_like_deepeval), read_deepeval, judged=True),
    Format("SWE-bench run report", _json(_swe("looks_like_run_report")), _swe_reader("read_run_report")),
    Format("SWE-bench instance report", _json_at(_swe("looks_like_instance_report")),
           _swe_reader("read_instance_report")),
    Format("SWE-bench results", _json_at(_swe("looks_like_results")), _swe_reader("read_results")),
    Format(SWE_PART, lambda path, head: path.name in
           ("resolved_by_repo.json", "resolved_by_time.json") and (path.parent / "results.json").is_file()),
    Format("promptfoo output", _json(looks_like_promptfoo_json), read_promptfoo, judged=True),
    Format("lm-eval 0.3 write-out", _json_at(looks_like_write_out), read_write_out),
    Format("lighteval results", _json(_lighteval_results), _read_lighteval_results),
    Format("lm-eval results", _json(looks_like_results_json), read_results_file),
    LM_EVAL_SAMPLES,
    Format(lambda head: "not a log or a table (unrecognised JSON)" if head.text[:1] in (b"{", b"[") else "not a log",
           lambda path, head: head.suffix in (".json", ".txt")),
    Format("Every Eval Ever instances", _lines(_eee_instances), _read_eee_instances),
    Format("lm-eval samples", _lines(looks_like_samples_jsonl), read_samples, tuned=True, part=read_samples_part,
           combine="combine_lm_eval"),
    Format("promptfoo output", _lines(looks_like_promptfoo_jsonl), read_promptfoo, judged=True),
    Format("table", lambda path, head: head.suffix in (".jsonl", ".ndjson"), read_long_table),
    Format("promptfoo CSV export", lambda path, head: head.suffix in (".csv", ".tsv")
           and looks_like_promptfoo_csv(head.bytes), read_promptfoo),
    Format("lighteval details", lambda path, head: head.suffix == ".parquet" and _lighteval_details(path),
           _read_lighteval_details),
    Format("table", lambda path, head: head.suffix in TABLE_SUFFIXES, read_long_table),
    Format(lambda head: f"unsupported file type {head.suffix or '(none)'!r}", lambda path, head: True),
)
"""The formats in the order they are asked (the first that handles a path wins)."""

_BY_FN: dict[Any, Format] = {}
for _f in REGISTRY:
    if _f.fn is not None:
        _BY_FN.setdefault(_f.fn, _f)
del _f


def format_of(path: Path) -> Format:
    """The first registered format that handles ``path`` (the last one handles every path)."""
    head = Head(path)
    return next(f for f in REGISTRY if f.handles(path, head))


def sniff(path: Path, is_dir: bool | None = None) -> tuple[ReadFn | None, str]:
    """The reader for ``path`` and what it is, or ``None`` and why not.  ``is_dir``: whether
    ``path`` is a folder, when the caller knows (else asked, once)."""
    head = Head(path, is_dir)
    for f in REGISTRY:
        if f.handles(path, head):
            return f.fn, f.describe(head)
    raise AssertionError("the last format handles every path")  # pragma: no cover


def reader_of(fn: ReadFn) -> Reader:
    """The registered :class:`Reader` of a reader function (as :func:`sniff` and
    :func:`expand_paths` give them); a function not registered reads as ``fn(path, cluster)``."""
    return _BY_FN.get(fn) or Format("", lambda path, head: False, fn)


LOG_SUFFIXES = (".json", ".jsonl", ".ndjson", ".eval", ".csv", ".tsv", ".parquet", ".txt")
"""Names a log or a table may have: a file so named that is not read is listed as skipped."""


def walk_files(root: Path, notes: list[str]) -> list[Path]:
    """Every regular file below ``root``, following symbolic links to folders once (cycles noted).

    ``Path.rglob`` does not follow linked folders, which silently skipped them; a link that
    leads back into a folder already walked is noted and not walked twice.  Nothing below
    ``root`` that could hold a log goes unmentioned: a folder that cannot be opened, and a
    FIFO, device or socket named like a log (:data:`LOG_SUFFIXES`), are skipped with their
    reason (another FIFO or socket is noted as ignored); none of them is ever opened.
    """
    out: list[Path] = []
    seen: set[str] = set()

    def unreadable(exc: OSError) -> None:
        notes.append(f"skipped {exc.filename}: cannot open the folder ({exc.strerror or exc})")

    for folder, dirs, names in os.walk(root, followlinks=True, onerror=unreadable):
        real = os.path.realpath(folder)
        if real in seen:
            notes.append(f"skipped {folder}: a symbolic link to a folder already read ({real})")
            dirs[:] = []
            continue
        seen.add(real)
        dirs.sort()  # the same notes, in the same order, on every file system
        for d in dirs:
            full = Path(folder) / d
            if full.is_symlink() and not full.exists():
                notes.append(f"skipped {full}: a broken symbolic link")
        for name in sorted(names):
            f = Path(folder) / name
            if f.is_file():
                out.append(f)
            elif f.is_symlink() and not f.exists():
                notes.append(f"skipped {f}: a broken symbolic link")
            elif (what := not_regular(f)) is not None:
                verb = "skipped" if f.suffix.lower() in LOG_SUFFIXES else "ignored"
                notes.append(f"{verb} {f}: {what}, not a regular file; not read")
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


def _sniff_found(found: list[Path], notes: list[str]) -> list[tuple[Path, ReadFn | None, str]]:
    """:func:`sniff` of each file found in a folder; one that cannot be opened is skipped with its reason."""
    out: list[tuple[Path, ReadFn | None, str]] = []
    for f in found:
        try:
            out.append((f, *sniff(f)))
        except OSError as exc:
            notes.append(f"skipped {f}: cannot read ({exc.strerror or type(exc).__name__})")
    return out


def expand_paths(paths: Iterable[str | Path]) -> tuple[list[tuple[Path, ReadFn, bool]], list[str]]:
    """Readable files (as given, and found recursively in directories) and skip notes.

    Each file comes with whether it was named explicitly (True) or found in a directory.
    """
    files: list[tuple[Path, ReadFn, bool]] = []
    notes: list[str] = []
    for raw in paths:
        p = Path(raw)
        try:  # one stat answers exists, is_dir and check_regular (the same answers: tests/adapters)
            mode: int | None = os.stat(p).st_mode
        except (OSError, ValueError):
            mode = None  # each asked itself below, as it words what is wrong
        if mode is None and not p.exists():
            raise InputError("no such file or directory", str(p))
        is_dir = p.is_dir() if mode is None else stat.S_ISDIR(mode)
        if is_dir and helm.is_run_dir(p):  # a HELM run is a directory: one input, read through
            files.append((p / helm.PER_INSTANCE, helm.read_helm_run, True))  # its per-instance stats
            continue
        if is_dir:
            found = 0
            sniffed = _sniff_found(walk_files(p, notes), notes)
            # lm-eval results next to samples only name runs and filters: read via pairing
            sample_dirs = {f.parent for f, reader, _ in sniffed if reader is read_samples}
            for f, reader, what in sniffed:
                if reader is None:
                    if what in (helm.RUN_PART, SWE_PART):  # read through the run's per-instance file
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
            if mode is None or not stat.S_ISREG(mode):
                check_regular(p)  # /dev/zero or a FIFO would be read forever: refused before it is opened
            reader, what = sniff(p, is_dir=False if mode is not None else None)
            if reader is None:
                raise InputError(f"{what}; expected an Inspect log, lm-eval output, HELM run, promptfoo or DeepEval output, or a table ({', '.join(TABLE_SUFFIXES)})",
                                 str(p))
            files.append((p, reader, True))
    return files, notes


def inputs(paths: Iterable[str | Path]) -> tuple[list[tuple[Path, ReadFn, bool]], list[str], dict[Path, str],
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
