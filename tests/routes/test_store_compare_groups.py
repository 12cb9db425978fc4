"""Unit tests of ``compare --store --baseline`` a group of stored logs at a time
(evaladdon.routes.store_groups): never more than two logs read at once, a selection reused only
while the manifest is unchanged.  Its output against the table route's: tests/routes/test_route_equality.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaladdon.cli.main import main

from route_cases import grouped_log, groups_store


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    return groups_store(tmp_path)


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
    grouped_log(more / "m9.csv", "model-9", 99)
    assert ingest([more], store, workers=1).stored == 1
    again = select(store, "model LIKE 'model-%'")
    assert again is not first and len(again.files) == len(first.files) + 1
    again.files[0].unlink()
    with pytest.raises(InputError, match="lacks data file"):
        select(store, "model LIKE 'model-%'")
