"""Names: readable run labels, the order runs come in, what a name given on the command line
(``--baseline``) designates, short names that tell source files apart, and dotted-path lookups
in nested dicts (``--cluster meta.topic``).

Pandas-free except :func:`run_labels` and the ``*_in(df)`` forms, which take a table: both the
table route and the pandas-free store compare use these, so names mean the same everywhere.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from evaladdon.errors import EvalAddonError
from evaladdon.table.codes import distinct_tuples

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "COMPARE_NEEDS", "PAIR_FLAGS", "RunInfo", "choose_pairs", "choose_pairs_in", "pairs_needed", "distinguishing_names", "dotted", "dotted_parts",
    "labels_of", "names_line", "resolve_run", "resolve_run_in", "run_info", "run_labels", "run_order_in",
    "runs_in",
]

_AUTO_STEM = re.compile(r"^(\d{4}-\d\d-\d\dT[\d-]+.*|results_.*|samples_.*|.*_write_out_info)$")
_TIMESTAMP = re.compile(r"(\d{4}-\d\d-\d\d)[T_ ](\d\d[-:]\d\d(?:[-:]\d\d)?)")


def _short_ids(ids: list[str]) -> list[str]:
    """The shortest distinguishing form of run ids: the time of a timestamp (with the date
    when dates differ), else the shortest common-length prefix of the id that tells them apart."""
    stamps = [_TIMESTAMP.search(i) for i in ids]
    if all(stamps):
        dates = {m.group(1) for m in stamps}  # type: ignore[union-attr]
        out = [(f"{m.group(1)}T" if len(dates) > 1 else "") + m.group(2) for m in stamps]  # type: ignore[union-attr]
        if len(set(out)) == len(out):
            return out
    prefixes = [i.rsplit("/", 1)[0] for i in ids if "/" in i]  # runs prefixed by read_runs with their file
    if len(prefixes) == len(ids) and len(set(prefixes)) == len(ids):
        return prefixes
    tokens = [i.rsplit("@", 1)[-1] for i in ids]
    for k in range(6, max(len(t) for t in tokens) + 1):
        out = [t[:k] for t in tokens]
        if len(set(out)) == len(out):
            return out
    return ids


def _differing_parts(models: dict[str, Any]) -> dict[str, Any]:
    """Models named ``k=v, k=v`` (DeepEval's hyperparameters) by the parts that differ between
    runs only, when every model is so named and some parts are shared: ``temperature=0.7``
    rather than ``model=gpt-4o, prompt=..., temperature=0.7``."""
    parts = {r: str(m).split(", ") for r, m in models.items()}
    if len(parts) < 2 or not all(all("=" in p for p in ps) for ps in parts.values()):
        return models
    shared = set.intersection(*(set(ps) for ps in parts.values()))
    if not shared:
        return models
    out = {r: ", ".join(p for p in ps if p not in shared) for r, ps in parts.items()}
    return out if all(out.values()) else models


def labels_of(rows: Iterable[tuple[Any, Any, Any, Any]], user: dict[str, str] | None = None) -> dict[str, str]:
    """Short readable names for runs, unique among the runs of ``rows``: the distinct
    (run, model, task, source) combinations of a table, in table order.

    A run the user named (``NAME=PATH``, kept in ``df.attrs["run_names"]``) is called that.
    Otherwise each run gets the first of these that no other run shares: the model; the model
    and task(s) (``model:task``); the log's file stem when the user chose it (not a harness's
    automatic ``<timestamp>_<task>_<id>`` / ``results_*`` name); the model, task(s) and a
    short timestamp or id (``model:task:09-36-51``); finally the run id itself.
    """
    user = dict(user or {})
    models: dict[str, Any] = {}  # the first model of each run, runs in order of first appearance
    tasks: dict[str, list[Any]] = {}
    sources: dict[str, list[Any]] = {}
    runs_of_source: dict[Any, set[str]] = {}
    for run, model, task, source in rows:
        run = str(run)
        models.setdefault(run, model)
        for seen, value in ((tasks, task), (sources, source)):
            values = seen.setdefault(run, [])
            if value not in values:
                values.append(value)
        runs_of_source.setdefault(source, set()).add(run)
    runs = list(models)
    per_source = {s: len(r) for s, r in runs_of_source.items()}
    shown = _differing_parts(models)

    def task_text(run: str) -> str:
        ts = sorted(map(str, tasks[run]))
        return ts[0] if len(ts) == 1 else "+".join(ts) if len(ts) <= 2 else f"{ts[0]}+{len(ts) - 1}"

    def stem(run: str) -> str | None:
        srcs = sources[run]
        if len(srcs) != 1 or per_source[srcs[0]] != 1:
            return None
        s = Path(str(srcs[0])).stem
        return None if _AUTO_STEM.match(s) else s

    levels = [
        lambda r: str(shown[r]),
        lambda r: f"{shown[r]}:{task_text(r)}",
        stem,
        None,  # model:task:short id (needs the other colliding runs)
    ]
    label: dict[str, str] = {r: user[r] for r in runs if r in user}
    todo = [r for r in runs if r not in label]
    for level in levels:
        if not todo:
            break
        cands: dict[str, str | None]
        if level is None:
            short = _short_ids(todo)
            cands = {r: f"{shown[r]}:{task_text(r)}:{s}" for r, s in zip(todo, short, strict=True)}
        else:
            cands = {r: level(r) for r in todo}
        taken = Counter(list(label.values()) + [c for c in cands.values() if c])  # linear, not count() per run
        for r, c in cands.items():
            if c and taken[c] == 1:
                label[r] = c
        todo = [r for r in todo if r not in label]
    for r in todo:
        label[r] = r
    # a label equal to another run's id would make --baseline ambiguous: use ids there
    ids = set(runs)
    return _bounded({r: (v if v == r or v not in ids else r) for r, v in ((r, label[r]) for r in runs)})


LABEL_MAX = 120
"""The longest label a run gets (a 100 KB model name made the HTML report's plots take minutes and
gigabytes): longer ones keep their head and tail around an ellipsis, still unique."""


def _bounded(labels: dict[str, str]) -> dict[str, str]:
    """``labels`` with each at most :data:`LABEL_MAX` characters (cut in the middle); when two
    cut labels would be equal, each ends in a short hash of its full text."""
    import hashlib

    def cut(text: str, keep: int) -> str:
        head = keep // 2
        return text[:head] + "…" + text[len(text) - (keep - head - 1):]

    out = {r: (v if len(v) <= LABEL_MAX else cut(v, LABEL_MAX)) for r, v in labels.items()}
    seen = Counter(out.values())
    for r, v in labels.items():
        if len(v) > LABEL_MAX and seen[out[r]] > 1:
            out[r] = cut(v, LABEL_MAX - 8) + "#" + hashlib.sha256(v.encode()).hexdigest()[:7]
    return out


@dataclass(frozen=True)
class RunInfo:
    """The runs of a table: in order of first appearance, with their labels, first model and
    source files (in order)."""

    runs: list[str]
    labels: dict[str, str]
    models: dict[str, Any]
    sources: dict[str, list[Any]]


def run_info(rows: Sequence[tuple[Any, Any, Any, Any]], user: dict[str, str] | None = None) -> RunInfo:
    """:class:`RunInfo` of the distinct (run, model, task, source) rows of a table (table order)."""
    models: dict[str, Any] = {}
    sources: dict[str, list[Any]] = {}
    for run, model, _task, source in rows:
        run = str(run)
        models.setdefault(run, model)
        seen = sources.setdefault(run, [])
        if source not in seen:
            seen.append(source)
    return RunInfo(list(models), labels_of(rows, user), models, sources)


def names_line(info: RunInfo, limit: int = 12) -> str:
    labels = info.labels
    shown = [labels[r] if labels[r] == r else f"{labels[r]} ({r})" for r in info.runs]
    more = f", ... ({len(shown) - limit} more)" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def resolve_run(info: RunInfo, name: str, flag: str = "--baseline") -> str:
    """The run that ``name`` designates: its label as shown, run (eval) id, model, source
    file path or stem, or a unique prefix of a label or id.  An error lists the names."""
    runs, labels = info.runs, info.labels

    def files(run: str) -> list[str]:
        out = []
        for s in info.sources[run]:
            p = Path(str(s))
            out += [str(s), p.name, p.stem]
            with contextlib.suppress(OSError):
                out.append(str(p.resolve()))
        return out

    given = str(Path(name).resolve()) if Path(name).exists() else name
    tests = (
        lambda r: r == name,
        lambda r: labels[r] == name,
        lambda r: str(info.models[r]) == name,
        lambda r: name in files(r) or given in files(r),
        lambda r: r.startswith(name) or labels[r].startswith(name),
    )
    for test in tests:
        hits = [r for r in runs if test(r)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise EvalAddonError(f"{flag} {name!r} matches {len(hits)} runs ({', '.join(labels[r] for r in hits[:6])}); "
                                 "give the label or id of one")
    close = difflib.get_close_matches(name, [labels[r] for r in runs] + runs, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise EvalAddonError(f"{flag} {name!r} names no run{hint} (runs: {names_line(info)})")


PAIR_FLAGS = ("--baseline RUN", "--all-pairs")
"""``compare``'s options that choose the pairs (and ``report``'s, ``compare --rules``')."""


def pairs_needed(command: str, flags: Sequence[str] = PAIR_FLAGS) -> str:
    """What :func:`choose_pairs` says when the runs are not two: ``"gate needs exactly two, or
    --baseline RUN"`` -- the command's own name and only the options it has."""
    return f"{command} needs exactly two" + "".join(f", or {f}" for f in flags)


COMPARE_NEEDS = pairs_needed("compare")


def choose_pairs(info: RunInfo, baseline: str | None = None, all_pairs: bool = False,
                 needs: str = COMPARE_NEEDS) -> list[tuple[str, str]]:
    """(baseline, candidate) pairs: each run against ``baseline``, all pairs, or the only two.

    ``baseline`` is anything :func:`resolve_run` accepts (label, id, model, file, prefix);
    ``needs`` ends the refusal when there are not two runs (:func:`pairs_needed`: the asking
    command's options only).
    """
    import itertools

    runs = info.runs
    if baseline is not None:
        base = resolve_run(info, baseline)
        others = [r for r in runs if r != base]
        if not others:
            raise EvalAddonError("only the baseline run was found; nothing to compare")
        return [(base, r) for r in others]
    if all_pairs:
        if len(runs) < 2:
            raise EvalAddonError(f"need at least two runs to compare, found {len(runs)}")
        return list(itertools.combinations(runs, 2))
    if len(runs) != 2:
        raise EvalAddonError(
            f"found {len(runs)} runs ({names_line(info, 6)}); {needs}"
        )
    return [(runs[0], runs[1])]


# ---------------------------------------------------------------- the same, on a table


def runs_in(df: pd.DataFrame) -> RunInfo:
    """:class:`RunInfo` of a table (runs the user named, ``NAME=PATH``, are in ``df.attrs["run_names"]``)."""
    return run_info(distinct_tuples(df, ("run", "model", "task", "source")), df.attrs.get("run_names", {}))


def run_labels(df: pd.DataFrame) -> dict[str, str]:
    """Short readable names for the runs of ``df`` (:func:`labels_of` of its distinct
    (run, model, task, source) rows)."""
    return labels_of(distinct_tuples(df, ("run", "model", "task", "source")), df.attrs.get("run_names", {}))


def run_order_in(df: pd.DataFrame) -> list[str]:
    """The runs of ``df`` in order of first appearance."""
    return runs_in(df).runs


def resolve_run_in(df: pd.DataFrame, name: str, flag: str = "--baseline") -> str:
    """:func:`resolve_run` on the runs of ``df``."""
    return resolve_run(runs_in(df), name, flag)


def choose_pairs_in(df: pd.DataFrame, baseline: str | None = None, all_pairs: bool = False,
                    needs: str = COMPARE_NEEDS) -> list[tuple[str, str]]:
    """:func:`choose_pairs` on the runs of ``df``."""
    return choose_pairs(runs_in(df), baseline, all_pairs, needs)


# ---------------------------------------------------------------- source files


def distinguishing_names(sources: Iterable[str]) -> dict[str, str]:
    """Each source -> its shortest trailing path (same number of components for all) that no
    other source shares: ``a/res.csv`` and ``b/res.csv`` -> ``a/res.csv``, ``b/res.csv``;
    ``x/base.eval`` and ``x/base.json`` -> ``base.eval``, ``base.json``."""
    unique = list(dict.fromkeys(str(s) for s in sources))
    parts = {s: PurePath(s).parts or (s,) for s in unique}
    longest = max((len(p) for p in parts.values()), default=1)
    for k in range(1, longest + 1):
        names = {s: "/".join(p[-k:]) for s, p in parts.items()}
        if len(set(names.values())) == len(names):
            return names
    return {s: s for s in unique}


# ---------------------------------------------------------------- dotted paths


def dotted_parts(obj: Any, parts: Sequence[str]) -> Any:
    """The value at ``parts`` (keys, outermost first) in nested dicts; ``None`` when any step
    is missing or not a dict (a split ``--cluster a.b.c``; readers split it once per file)."""
    cur = obj
    for part in parts:
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def dotted(obj: Any, path: str) -> Any:
    """``a.b.c`` lookup in nested dicts (``None`` when any step is missing)."""
    return dotted_parts(obj, path.split("."))
