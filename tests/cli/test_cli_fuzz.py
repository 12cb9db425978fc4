"""Fuzzing the command line with mutated real logs (issue 12, "And keep it that way").

Hypothesis mutates logs from ../shared/real_logs (truncate, flip bytes, nest, rename keys,
inject control characters) and runs the CLI in-process.  Every run must end with exit 0
(rows left out counted) or exit 2 with one line naming the file; never a traceback, never
exit 1 (which means "regression shown"), never a control character on the terminal, never a
file written anywhere.  Deterministic (``derandomize``) and small, to stay well under a minute.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaladdon.cli.main import main

from built_logs import nest
from conftest import REAL_LOGS

SEEDS = [
    "inspect_ai_fixtures/log/test_eval_log/log_formats.json",
    "inspect_ai_fixtures/log/test_eval_log/log_read_sample.eval",
    "inspect_ai_fixtures/log/test_list_logs/2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json",
    "lmeh_bigrefactor_2023_output/_winogrande.jsonl",
    "lmeh_bigrefactor_2023_output/arc.json",
    "lmeh_pr1668_wmdp_jsonarray/results.json",
]
CONTROL = st.sampled_from(["\x1b[2J", "\x1b]0;x\x07", "\r", "\x00", "\x08", "\u202e", "\n", "\ufeff"])


def truncate(data: bytes, frac: float) -> bytes:
    return data[: int(len(data) * frac)]


def flip(data: bytes, positions: list[int], value: int) -> bytes:
    b = bytearray(data)
    for p in positions:
        if b:
            b[p % len(b)] ^= value or 1
    return bytes(b)



def rename_key(data: bytes, at: float, new: str) -> bytes:
    """Rename the first JSON key after ``at`` to ``new``."""
    i = data.find(b'":', int(len(data) * at))
    if i < 0:
        return data
    k = data.rfind(b'"', 0, i)
    return data[: k + 1] + json.dumps(new)[1:-1].encode() + data[i:]


def inject(data: bytes, at: float, text: str) -> bytes:
    """Put control characters inside the next JSON string after ``at`` (escaped or raw)."""
    i = data.find(b'"', int(len(data) * at))
    i = len(data) // 2 if i < 0 else i + 1
    return data[:i] + text.encode("utf-8") + data[i:]


MUTATIONS = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0.05, 0.98)),
    st.tuples(st.just("flip"), st.lists(st.integers(0, 10**6), min_size=1, max_size=4), st.integers(0, 255)),
    st.tuples(st.just("nest"), st.sampled_from([50, 2000, 20000]), st.floats(0, 0.9)),
    st.tuples(st.just("rename"), st.floats(0, 0.9), st.sampled_from(["", "results", "samples", "id", "\x1b[31mx",
                                                                      "doc_id", "version", "scores"])),
    st.tuples(st.just("inject"), st.floats(0, 0.9), CONTROL),
)


def mutate(data: bytes, m: tuple) -> bytes:  # type: ignore[type-arg]
    kind = m[0]
    if kind == "truncate":
        return truncate(data, m[1])
    if kind == "flip":
        return flip(data, m[1], m[2])
    if kind == "nest":
        return nest(data, m[1], m[2])
    if kind == "rename":
        return rename_key(data, m[1], m[2])
    return inject(data, m[1], m[2])


def run_cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:  # argparse
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.fixture(scope="module")
def seeds() -> list[Path]:
    found = [REAL_LOGS / s for s in SEEDS if (REAL_LOGS / s).is_file()]
    if not found:
        pytest.skip("the real-log corpus is not present (the fuzz seeds are its logs)")
    return found


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, 100), mutation=MUTATIONS, mode=st.sampled_from(["--json", "--markdown", "--quiet"]))
def test_mutated_logs_never_crash_the_cli(seeds: list[Path], tmp_path_factory: pytest.TempPathFactory, which: int,
                                          mutation: tuple, mode: str) -> None:  # type: ignore[type-arg]
    seed = seeds[which % len(seeds)]
    folder = tmp_path_factory.mktemp("fuzz")
    target = folder / seed.name
    target.write_bytes(mutate(seed.read_bytes(), mutation))
    before = listing(folder)
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        code, out, err = run_cli(["summarize", str(target), mode])
    finally:
        os.chdir(cwd)
    assert listing(folder) == before, "the CLI wrote a file"
    assert "Traceback" not in err and "Traceback" not in out
    for text in (out, err):
        assert not any(c in text for c in ("\x1b", "\r", "\x00", "\x08", "\u202e")), repr(text[:300])
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("evaladdon: error:"), err
        assert seed.name in lines[0] or str(target) in lines[0], err
        assert "internal error" not in lines[0], err
    elif mode == "--json":
        doc = json.loads(out)
        assert set(doc) == {"results", "skipped", "notes"}
        for r in doc["results"]:
            assert r["n_dropped"] == sum(r["dropped"].values())
