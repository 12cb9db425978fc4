"""Same input, same output: on any file order, from any working directory, with any hash seed.

The same folder of logs is laid out twice with its files created in opposite orders, and every
reading command is run on it from each copy's own working directory with the same relative
path, the second time with every folder listing (``os.scandir``, ``os.listdir``) reversed:
folders list their entries in creation order on some file systems and in hash order on
others, so a reader that keeps the listing's order would differ here. JSON, text, markdown and
exported tables must be identical. A subprocess run under two
``PYTHONHASHSEED`` values checks that no set or dict order of strings leaks into an output.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from evaladdon.cli.main import main

from conftest import REPO

SAMPLE = REPO / "sample_logs"
COMMANDS = (
    ["summarize", "logs", "--json"],
    ["summarize", "logs"],
    ["summarize", "logs/inspect", "--cluster", "passage.id", "--markdown"],
    ["compare", "logs/inspect", "--baseline", "baseline", "--json"],
    ["compare", "logs/inspect", "--baseline", "baseline"],
    ["compare", "logs/lm_eval", "--json"],
    ["metrics", "logs/table", "--json"],
    ["rank", "logs/preferences", "--json"],
)


def _lay_out(dest: Path, reverse: bool) -> None:
    """A copy of sample_logs/ under ``dest``, folders and files made in sorted or reversed order."""
    files = sorted(f for f in SAMPLE.rglob("*") if f.is_file())
    for f in reversed(files) if reverse else files:
        target = dest / f.relative_to(SAMPLE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)


class _Reversed:
    """``os.scandir``'s iterator, its entries in reverse order (a context manager like it)."""

    def __init__(self, entries: list[os.DirEntry[str]]) -> None:
        self.entries = iter(entries)

    def __iter__(self) -> Iterator[os.DirEntry[str]]:
        return self

    def __next__(self) -> os.DirEntry[str]:
        return next(self.entries)

    def __enter__(self) -> _Reversed:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        return None


@contextlib.contextmanager
def _reversed_listings() -> Iterator[None]:
    """Every ``os.scandir`` and ``os.listdir`` (``os.walk`` and ``Path.rglob`` use them) in reverse order."""
    scandir, listdir = os.scandir, os.listdir

    def reversed_scandir(path: Any = ".") -> _Reversed:
        with scandir(path) as it:
            return _Reversed(list(it)[::-1])

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "scandir", reversed_scandir)
        mp.setattr(os, "listdir", lambda path=".": listdir(path)[::-1])
        yield


def _run(argv: list[str], cwd: Path, reverse_listings: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with _reversed_listings() if reverse_listings else contextlib.nullcontext(), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def two_layouts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    a, b = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    _lay_out(a / "logs", reverse=False)
    _lay_out(b / "logs", reverse=True)
    return a, b


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a))
def test_output_does_not_depend_on_file_order_or_working_directory(argv: list[str],
                                                                  two_layouts: tuple[Path, Path]) -> None:
    a, b = two_layouts
    first, second = _run(argv, a), _run(argv, b, reverse_listings=True)
    assert first[0] in (0, 1), first
    assert first == second


def test_exported_table_does_not_depend_on_file_order(two_layouts: tuple[Path, Path]) -> None:
    a, b = two_layouts
    for cwd in (a, b):
        assert _run(["export", "logs", "-o", "table.csv"], cwd, reverse_listings=cwd == b)[0] == 0
    assert (a / "table.csv").read_bytes() == (b / "table.csv").read_bytes()
    assert len((a / "table.csv").read_text().splitlines()) > 100


def test_the_reversed_listing_is_seen(two_layouts: tuple[Path, Path]) -> None:
    """(The checks above are not vacuous: a walk of the folder sees the reversed order.)"""
    a, _ = two_layouts
    plain = [f for _, _, files in os.walk(a / "logs") for f in files]
    with _reversed_listings():
        turned = [f for _, _, files in os.walk(a / "logs") for f in files]
    assert sorted(plain) == sorted(turned) and plain != turned


def test_output_does_not_depend_on_the_hash_seed(two_layouts: tuple[Path, Path]) -> None:
    a, _ = two_layouts
    outs = []
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "COLUMNS": "120"}
        proc = subprocess.run([sys.executable, "-m", "evaladdon.cli.main", "summarize", "logs", "--json"],
                              cwd=a, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout)
    assert outs[0] == outs[1]
