"""``compare --store --baseline`` over a large selection, a group of stored logs at a time
(evaladdon.store.compare_groups): the same output as reading the selection at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evaladdon.cli.main import main


def _log(path: Path, model: str, seed: int, task: str = "t", n_items: int = 40, binary: bool = True) -> None:
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), 2)
    p = rng.uniform(0.2, 0.9, n_items)[item]
    value = (rng.uniform(size=item.size) < p).astype(float) if binary else np.round(rng.normal(p, 0.3), 6)
    raw = value.astype(object)
    raw[::13] = "oops"  # rows left out, counted by reason
    pd.DataFrame({"model": model, "task": task, "id": [f"q{i}" for i in item], "epoch": np.tile([0, 1], n_items),
                  "score": raw, "passage": [f"p{i // 4}" for i in item]}).to_csv(path, index=False)


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    from evaladdon.routes.ingest import ingest

    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(6):
        _log(logs / f"m{i}.csv", f"model-{i}", i, n_items=40 + i)
    _log(logs / "other.csv", "model-x", 9, task="u")  # shares no (task, metric) with the baseline
    _log(logs / "real.csv", "model-r", 11, binary=False)  # values outside [0, 1]: not bounded
    store = tmp_path / "store"
    assert ingest([logs], store, workers=1).stored == 8
    return store


def _outputs(store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             args: tuple[str, ...]) -> tuple[tuple[int, str, str], tuple[int, str, str], list[bool]]:
    """(at once, in groups of one or two logs, whether each run took the grouped route, its
    answer or its error); the pandas-free route, which takes small selections first, is excluded."""
    from evaladdon.analysis.options import RouteLimits, RoutePolicy

    outcomes: list[Any] = []
    results = []
    for max_rows in (10**9, 170):
        policy = RoutePolicy(exclude=frozenset({"store_arrays"}), limits=RouteLimits(store_group_rows=max_rows),
                             observe=outcomes.append)
        code = main(["compare", "--store", str(store), *args], routes=policy)
        got = capsys.readouterr()
        results.append((code, got.out, got.err))
    return results[0], results[1], [o.route == "store_groups" for o in outcomes]


@pytest.mark.parametrize("args", [
    ("--baseline", "model-0"),
    ("--baseline", "model-0", "--json"),
    ("--baseline", "model-2", "--markdown", "--adjust", "none"),
    ("--baseline", "model-0", "--metric", "score", "--json"),
    ("--baseline", "model-1", "--cluster", "passage", "--json"),
    ("--baseline", "model-0", "--margin", "2pt", "--fail-on-regression", "--json"),
    ("--baseline", "model-0", "--margin", "2pt", "--fail-on-regression", "--allow-skipped"),
    ("--baseline", "model-3", "--where", "model IN ('model-1', 'model-3', 'model-4', 'model-5', 'model-x')"),
    ("--baseline", "model-", "--json"),  # ambiguous prefix: the same one-line error
    ("--baseline", "modle-0"),  # no such run: the same error, with its suggestion
    ("--baseline", "model-0", "--metric", "scor"),  # no such metric
])
def test_grouped_compare_equals_reading_at_once(store: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    at_once, grouped, taken = _outputs(store, monkeypatch, capsys, args)
    assert grouped == at_once
    # the first read at once (one group), the second group by group (a wrong --metric is refused
    # by the grouped route while deciding, with the same one-line error)
    assert taken == [False, True]
    if at_once[0] == 0 and "--json" in args:
        records = json.loads(at_once[1])["results"]
        assert len(records) >= 4 and len({r["run_b"] for r in records}) == len(records)


def test_grouped_compare_reads_a_group_at_a_time(store: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Never more than the baseline's log and one group's logs are read at once."""
    from evaladdon.analysis.options import RouteLimits, RoutePolicy
    from evaladdon.store import query

    widest: list[int] = []
    real = query.load_selection

    def spy(sel: object, files: list[Path], cluster: object = None) -> object:
        widest.append(len(files))
        return real(sel, files, cluster)

    monkeypatch.setattr("evaladdon.routes.store_groups.load_selection", spy)
    policy = RoutePolicy(exclude=frozenset({"store_arrays"}), limits=RouteLimits(store_group_rows=170))  # ~85 rows a log
    assert main(["compare", "--store", str(store), "--baseline", "model-0", "--json"], routes=policy) == 0
    capsys.readouterr()
    assert widest and max(widest) <= 2 and len(widest) >= 4


def test_a_manifest_that_disagrees_with_the_rows_reads_at_once(store: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A manifest whose combinations do not describe the stored rows (here: a source renamed in
    the manifest only) is caught on the first group read, and the selection is read at once."""
    path = store / "manifest.json"
    manifest = json.loads(path.read_text())
    first = next(iter(manifest["files"].values()))
    first["combos"] = [[c[0], "renamed-model", *c[2:]] for c in first["combos"]]
    path.write_text(json.dumps(manifest))
    at_once, grouped, _ = _outputs(store, monkeypatch, capsys, ("--baseline", "model-2", "--json"))
    assert grouped == at_once and at_once[0] == 0
    from evaladdon.routes import store_groups as compare_groups

    gs = compare_groups.grouped_store(str(store), None, None, None, "model-2", lambda df, m: None, max_rows=170)
    assert gs is not None
    with pytest.raises(compare_groups.ManifestMismatch):
        compare_groups.compare_store(gs, "model-2", level=0.95, test="auto", interval="auto", cluster_method="cr2",
                                     strict=False, adjust="holm", margin=None, seed=0, skipped=[])


def test_a_selection_is_reused_only_while_the_manifest_is_unchanged(store: Path, tmp_path: Path) -> None:
    """select() asked twice (grouped path tried, then the store read at once) reads the manifest
    once; after an ingest changes the manifest, it is read again; a data file deleted since is
    still one line."""
    from evaladdon.errors import InputError
    from evaladdon.routes.ingest import ingest
    from evaladdon.store.query import select

    first = select(store, "model LIKE 'model-%'")
    assert select(store, "model LIKE 'model-%'") is first
    assert select(store, None) is not first
    more = tmp_path / "more"
    more.mkdir()
    _log(more / "m9.csv", "model-9", 99)
    assert ingest([more], store, workers=1).stored == 1
    again = select(store, "model LIKE 'model-%'")
    assert again is not first and len(again.files) == len(first.files) + 1
    again.files[0].unlink()
    with pytest.raises(InputError, match="lacks data file"):
        select(store, "model LIKE 'model-%'")
