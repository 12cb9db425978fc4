"""Issue 26.2: a JSON-lines table nested 20,000 deep crashed the process (SIGSEGV in pyarrow's
JSON parser, exit 139, no message).  The table reader now applies the depth guard of every other
reader first, line by line as pyarrow reads the file; and the fuzz test reaches the table reader
(deep nesting, a byte-order mark, null fields)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaladdon.adapters.common.guard import (MAX_DEPTH, DepthScanner, LinesDepthScanner, check_file_depth,
                                             check_lines_depth)
from evaladdon.errors import InputError

from built_logs import nest
from conftest import REPO, run_cli as run_in_process

DEEP = 20_000


def deep_line(depth: int = DEEP) -> str:
    return '{"item": "a", "value": 1, "x": ' + "[" * depth + "]" * depth + "}\n"


def cli_subprocess(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process (a segfault there fails the test instead of killing pytest)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "evaladdon.cli.main", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_deep_jsonl_table_is_refused_in_one_line(tmp_path: Path) -> None:
    table = tmp_path / "deep.jsonl"
    table.write_text(deep_line())
    assert table.stat().st_size < 41_000
    done = cli_subprocess("summarize", table, cwd=tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evaladdon: error:"), done.stderr
    assert "deep.jsonl" in lines[0] and "nested more than" in lines[0]


def test_a_deep_table_in_a_folder_is_skipped_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "deep.jsonl").write_text(deep_line())
    (tmp_path / "logs" / "ok.csv").write_text("item,value\na,1\nb,0\nc,1\n")
    done = cli_subprocess("summarize", "logs", "--json", cwd=tmp_path)
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    doc = json.loads(done.stdout)
    assert [s["path"] for s in doc["skipped"]] == [str(Path("logs") / "deep.jsonl")]
    assert "nested more than" in doc["skipped"][0]["reason"]


@pytest.mark.parametrize("text", [
    # a broken line (an odd quote) before a deep line: one running count over the file would see
    # the deep line as inside a string
    '{"item": "a", "value": "x}\n' + deep_line(600),
    # stray closing brackets before a deep line: one running count would start it below zero
    "]" * 1000 + "\n" + deep_line(600),
])
def test_a_broken_line_does_not_hide_a_deep_one(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(text)
    assert DepthScanner().feed(path.read_bytes()) <= MAX_DEPTH  # what the whole-file count sees
    with pytest.raises(InputError, match="nested more than"):
        check_file_depth(path, lines=True)


@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 10_000])
def test_lines_scanner_across_chunks(chunk: int) -> None:
    data = ('{"a": "[[\\"[", "b": [[1]]}\n' + '{"c": [[[{"d": "\\\\"}]]]}\n' + '"]]]\n' + '[[\n').encode()
    scanner = LinesDepthScanner()
    for i in range(0, len(data), chunk):
        scanner.feed(data[i:i + chunk])
    assert scanner.max_depth == 5
    assert LinesDepthScanner().feed(data) == 5


@pytest.mark.parametrize("chunk", [5, 64, 700, 1 << 20])
def test_the_lines_check_in_chunks(tmp_path: Path, chunk: int) -> None:
    """The shortcut (lines with few brackets) and the full scan agree wherever the chunks end."""
    normal = "".join(json.dumps({"item": f"q{i}", "value": i % 2, "x": [[{"y": "[[{"}]]}) + "\n" for i in range(200))
    ok, deep = tmp_path / "ok.jsonl", tmp_path / "deep.jsonl"
    ok.write_text(normal + '{"item": "z", "value": 1, "x": ' + "[" * 500 + "]" * 500 + "}\n" + normal)
    deep.write_text(normal + deep_line(513) + normal)
    check_lines_depth(ok, chunk_size=chunk)
    with pytest.raises(InputError, match="nested more than"):
        check_lines_depth(deep, chunk_size=chunk)



def listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


TABLE_MUTATIONS = st.one_of(
    st.tuples(st.just("nest"), st.sampled_from([50, 2000, DEEP]), st.floats(0, 0.9)),
    st.tuples(st.just("bom"), st.just(0)),
    st.tuples(st.just("null"), st.sampled_from(["item", "value", "task", "model", "run", "epoch", "cluster"])),
)


def table_seed() -> bytes:
    rows = [{"item": f"q{i}", "value": i % 2, "task": "t", "model": "m", "run": "r", "epoch": 1,
             "cluster": f"c{i % 3}"} for i in range(12)]
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def mutate_table(data: bytes, m: tuple) -> bytes:  # type: ignore[type-arg]
    if m[0] == "nest":
        return nest(data, m[1], m[2])
    if m[0] == "bom":
        return b"\xef\xbb\xbf" + data
    lines = [json.loads(line) for line in data.splitlines()]
    lines[len(lines) // 2][m[1]] = None
    return "".join(json.dumps(r) + "\n" for r in lines).encode()


@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(mutation=TABLE_MUTATIONS, mode=st.sampled_from(["--json", "--markdown", "--quiet"]))
def test_mutated_tables_never_crash_the_cli(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
                                            mutation: tuple, mode: str) -> None:  # type: ignore[type-arg]
    folder = tmp_path_factory.mktemp("fuzz_table")
    target = folder / "table.jsonl"
    target.write_bytes(mutate_table(table_seed(), mutation))
    before = listing(folder)
    code, out, err = run_in_process(capsys, "summarize", target, mode)
    assert listing(folder) == before, "the CLI wrote a file"
    assert "Traceback" not in err and "Traceback" not in out
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("evaladdon: error:"), err
        assert str(target) in lines[0] and "internal error" not in lines[0], err
    elif mode == "--json":
        doc = json.loads(out)
        assert doc["results"], doc
    if mutation[0] == "nest" and mutation[1] > MAX_DEPTH:
        assert code == 2 and "nested more than" in err
