"""``compare --store`` without pandas (the store_arrays route, evaladdon.routes.store_arrays): the same output as the
table path, in text, markdown and JSON, on sample logs, synthetic one-epoch logs and the real
logs in ../shared; declined (table path) where it cannot be sure; pandas never imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evaladdon.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def _log(path: Path, model: str, seed: int, task: str = "t", n_items: int = 50, binary: bool = True,
         epochs: int = 1, clusters: bool = True, start: int = 0) -> None:
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(start, start + n_items), epochs)
    p = rng.uniform(0.2, 0.9, n_items)[item - start]
    value = (rng.uniform(size=item.size) < p).astype(float) if binary else np.round(rng.normal(p, 0.3), 6)
    raw = value.astype(object)
    raw[::11] = "oops"  # rows left out, counted by reason
    raw[5::23] = "inf"
    df = pd.DataFrame({"model": model, "task": task, "id": [f"q{i}" for i in item],
                       "epoch": np.tile(np.arange(epochs), n_items), "score": raw})
    if clusters:
        df["passage"] = [f"p{i // 4}" for i in item]
    df.to_csv(path, index=False)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from evaladdon.routes.ingest import ingest

    root = tmp_path_factory.mktemp("fast")
    logs = root / "logs"
    logs.mkdir()
    for i in range(4):
        _log(logs / f"m{i}.csv", f"model-{i}", i, n_items=50 + 3 * i, start=i)
    _log(logs / "real.csv", "model-r", 11, binary=False)
    _log(logs / "other.csv", "model-x", 9, task="u")
    _log(logs / "epochs.csv", "model-e", 12, epochs=3)
    _log(logs / "epochs_real.csv", "model-f", 13, epochs=4, binary=False)
    store = root / "store"
    assert ingest([logs, ROOT / "sample_logs"], store, workers=1).stored >= 7
    clustered = root / "clustered"  # cluster ids stored at ingest (passage), epochs on one side
    clustered.mkdir()
    _log(clustered / "c0.csv", "model-c0", 21)
    _log(clustered / "c1.csv", "model-c1", 22, epochs=2, binary=False)
    assert ingest([clustered], store, cluster="passage", workers=1).stored == 2
    return store


def _both(store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          args: tuple[str, ...]) -> tuple[tuple[int, str, str], tuple[int, str, str], bool]:
    """(table route, all routes, whether the store_arrays route answered or gave the error)."""
    from evaladdon.analysis.options import RoutePolicy

    outcomes: list[Any] = []
    out = []
    for policy in (RoutePolicy(exclude=frozenset({"store_arrays"})), RoutePolicy(observe=outcomes.append)):
        code = main(["compare", "--store", str(store), *args], routes=policy)
        got = capsys.readouterr()
        out.append((code, got.out, got.err))
    return out[0], out[1], bool(outcomes and outcomes[0].route == "store_arrays")


CASES = [
    (("--where", "model IN ('model-0', 'model-1')"), True),
    (("--where", "model IN ('model-0', 'model-1')", "--json"), True),
    (("--where", "model IN ('model-0', 'model-1')", "--markdown"), True),
    (("--where", "model IN ('model-0', 'model-1', 'model-2', 'model-3')", "--baseline", "model-2", "--json"), True),
    (("--where", "model SIMILAR TO 'model-[0-3]'", "--all-pairs", "--adjust", "bonferroni"), True),
    (("--where", "model IN ('model-0', 'model-r')", "--margin", "0.05", "--fail-on-regression", "--json"), True),
    (("--where", "model IN ('model-1', 'model-3')", "--margin", "2pt", "--fail-on-regression"), True),
    (("--where", "model IN ('model-0', 'model-x')", "--json"), True),  # share no (task, metric)
    (("--where", "model IN ('model-0', 'model-1')", "--strict", "--metric", "score"), True),
    (("--where", "model IN ('model-0', 'model-1') AND value >= 0"), True),  # a per-row term
    (("--where", "model IN ('model-0', 'model-1')", "--test", "t", "--interval", "wald"), True),
    (("--where", "model LIKE 'dummy%'", "--json"), True),  # lm-eval sample logs (corpus-level rows left out)
    (("--where", "model LIKE 'dummy%'", "--metric", "acc,none"), True),
    (("--where", "model LIKE 'dummy%'", "--metric", "acc,nne"), True),  # a wrong --metric: the same error
    (("--where", "model SIMILAR TO 'model-[0-3]'"), True),  # four runs, no --baseline: the same error
    (("--where", "model SIMILAR TO 'model-[0-3]'", "--baseline", "modle-0"), True),  # the same error, suggestion
    (("--where", "model IN ('model-0', 'model-e')"), True),  # epochs on one side
    (("--where", "model IN ('model-e', 'model-f')", "--json"), True),  # epochs, non-binary
    (("--where", "model LIKE 'ckpt%'", "--json"), True),  # sample long table with epochs
    (("--where", "model LIKE 'ckpt%'", "--markdown", "--strict"), True),
    (("--where", "run LIKE 'dpBG%' OR run LIKE 'chok%'", "--json"), True),  # Inspect sample logs
    (("--where", "model IN ('model-c0', 'model-c1')", "--json"), True),  # clustered (CR2)
    (("--where", "model IN ('model-c0', 'model-c1')", "--cluster-method", "cr1", "--markdown"), True),
    (("--where", "model IN ('model-0', 'model-1')", "--cluster", "passage"), False),
    (("--where", "model IN ('model-0', 'model-1')", "--metric", "f1_macro"), False),
    (("--where", "nosuchcolumn = 1"), False),  # DuckDB refuses: the table path's error
]


@pytest.mark.parametrize("args,fast", CASES)
def test_fast_store_compare_equals_the_table_path(store: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
                                                  fast: bool) -> None:
    table, quick, answered = _both(store, monkeypatch, capsys, args)
    assert quick == table
    assert answered is fast
    if "--json" in args and table[0] in (0, 1):
        assert json.loads(table[1])["results"]


def test_fast_store_compare_on_real_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str], real_logs: Path) -> None:
    """Two real runs of each task (lm-eval samples, Inspect logs): the same JSON both ways."""
    from evaladdon.routes.ingest import ingest

    store = tmp_path / "store"
    ingest([str(p) for p in (real_logs / "lmeh_bigrefactor_2023_output", real_logs / "inspect_ai_logsets",
                             real_logs / "inspect_ai_fixtures")], store, workers=2)
    from evaladdon.store.runs import list_runs

    by_task: dict[str, list[str]] = {}
    for r in list_runs(str(store)):
        by_task.setdefault(r["task"], []).append(r["run"])
    n_fast = 0
    for task, runs in by_task.items():
        runs = list(dict.fromkeys(runs))
        if len(runs) < 2:
            continue
        where = f"task = '{task}' AND run IN ('{runs[0]}', '{runs[1]}')"
        table, quick, answered = _both(store, monkeypatch, capsys, ("--where", where, "--json"))
        assert quick == table, task
        n_fast += answered
    assert n_fast >= 3


def test_rows_left_out_with_duckdbs_missing_errors_as_the_table_path() -> None:
    """The fast path passes ``error is not None`` as the not-missing mask (DuckDB gives None for
    NULL): the same rows and counts as table.usable.unusable's own pd.isna."""
    from evaladdon.table.usable import unusable

    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        values = rng.choice([0.0, 1.0, 0.5, np.nan, np.inf, -np.inf], size=n, p=[.3, .3, .1, .1, .1, .1])
        error = rng.choice(np.array([None, None, None, "timeout", "parse error", "limit"], dtype=object), size=n)
        bad, counts = unusable(values, error, np.not_equal(error, None))
        want_bad, want = unusable(values, error)
        assert bad.tolist() == want_bad.tolist()
        assert list(counts.items()) == list(want.items())


@pytest.mark.parametrize("models", ["'model-0', 'model-1'", "'model-c0', 'model-c1'"])
def test_fast_store_compare_does_not_import_pandas(store: Path, models: str) -> None:
    code = ("import sys; from evaladdon.cli.main import main; "
            f"rc = main(['compare', '--store', {str(store)!r}, '--where', \"model IN ({models})\", "
            "'--json']); print(rc, 'pandas' in sys.modules, 'pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "0 False False"
