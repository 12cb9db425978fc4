"""Short readable names for runs, from (run, model, task, source) tuples (no pandas).

:func:`evaladdon.table.run_labels` gives a table's distinct (run, model, task, source)
rows to :func:`run_labels_of`; the lean summarize gives the tuples of the logs it read.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Iterable, Mapping

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


def run_labels_of(rows: Iterable[tuple[str, str, str, str]], user: Mapping[str, str] | None = None) -> dict[str, str]:
    """Short readable names for runs, unique among the runs of ``rows``.

    ``rows``: (run, model, task, source) combinations in table order (repeats allowed; the
    model of a run is that of its first row).  ``user``: runs the user named (``NAME=PATH``).
    A run the user named is called that.  Otherwise each run gets the first of these that no
    other run shares: the model; the model and task(s) (``model:task``); the log's file stem
    when the user chose it (not a harness's automatic ``<timestamp>_<task>_<id>`` /
    ``results_*`` name); the model, task(s) and a short timestamp or id
    (``model:task:09-36-51``); finally the run id itself.
    """
    user = dict(user or {})
    models: dict[str, str] = {}
    tasks: dict[str, set[str]] = {}
    sources: dict[str, dict[str, None]] = {}
    per_source: dict[str, set[str]] = {}
    for run, model, task, source in rows:
        run, model, task, source = str(run), str(model), str(task), str(source)
        models.setdefault(run, model)
        tasks.setdefault(run, set()).add(task)
        sources.setdefault(run, {})[source] = None
        per_source.setdefault(source, set()).add(run)
    runs = list(models)

    def task_text(run: str) -> str:
        ts = sorted(tasks[run])
        return ts[0] if len(ts) == 1 else "+".join(ts) if len(ts) <= 2 else f"{ts[0]}+{len(ts) - 1}"

    def stem(run: str) -> str | None:
        srcs = list(sources[run])
        if len(srcs) != 1 or len(per_source[srcs[0]]) != 1:
            return None
        s = Path(srcs[0]).stem
        return None if _AUTO_STEM.match(s) else s

    levels = [
        lambda r: models[r],
        lambda r: f"{models[r]}:{task_text(r)}",
        stem,
        None,  # model:task:short id (needs the other colliding runs)
    ]
    label: dict[str, str] = {r: user[r] for r in runs if r in user}
    todo = [r for r in runs if r not in label]
    for level in levels:
        if not todo:
            break
        if level is None:
            cands = dict(zip(todo, (f"{models[r]}:{task_text(r)}:{s}" for r, s in zip(todo, _short_ids(todo)))))
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
    return {r: (v if v == r or v not in ids else r) for r, v in ((r, label[r]) for r in runs)}
