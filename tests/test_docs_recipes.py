"""The README's and the docs' shell recipes run as written on the shipped sample logs.

Every ```bash block of README.md and docs/*.md is scanned for commands that call
``evaladdon`` (also inside ``a && b`` chains; ``\\`` continuations joined; ``# comments``
dropped).  Recipes for a multi-machine deployment (``--scheduler ADDRESS``: a running Dask
cluster) cannot run here and are reported as skipped.  The others run in-process in
a scratch folder holding ``sample_logs/`` and the folders the guides name: ``logs/`` (two
Inspect checkpoints, ``old.eval`` and ``new.eval``) and ``out/`` (two lm-eval runs,
``model_a`` and ``model_b``) and ``examples/ci/`` (the gate policy).  Each must exit 0 with no traceback.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from evaladdon.cli.main import main

from conftest import REPO, load_script

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def recipes() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        for block in re.findall(r"```bash\n(.*?)```", doc.read_text(encoding="utf-8"), re.S):
            block = re.sub(r"\\\n\s*", " ", block)
            for line in block.splitlines():
                for part in line.split("&&"):
                    cmd = re.split(r"\s+#", part.strip(), maxsplit=1)[0].strip()
                    if cmd.startswith("evaladdon "):
                        found.append((doc.name, cmd))
    return found


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("recipes")
    shutil.copytree(REPO / "sample_logs", root / "sample_logs")
    (root / "logs").mkdir()
    shutil.copy(REPO / "sample_logs" / "inspect" / "baseline.eval", root / "logs" / "old.eval")
    shutil.copy(REPO / "sample_logs" / "inspect" / "candidate.eval", root / "logs" / "new.eval")
    (root / "out").mkdir()
    shutil.copytree(REPO / "sample_logs" / "lm_eval" / "dummy-seed1", root / "out" / "model_a")
    shutil.copytree(REPO / "sample_logs" / "lm_eval" / "dummy-seed2", root / "out" / "model_b")
    shutil.copytree(REPO / "examples" / "ci", root / "examples" / "ci")  # the gate policy the recipes name
    return root


def test_there_are_recipes() -> None:
    assert len(recipes()) >= 8


@pytest.mark.parametrize("doc,cmd", recipes(), ids=[f"{d}:{c[:60]}" for d, c in recipes()])
def test_recipe_runs(scratch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                     doc: str, cmd: str) -> None:
    if "--scheduler" in cmd:
        pytest.skip("needs a running Dask cluster (a deployment recipe)")
    monkeypatch.chdir(scratch)
    try:
        code = main(shlex.split(cmd)[1:])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert code == 0, f"{doc}: `{cmd}` exited {code}: {err.strip()[:500]}"
    assert "Traceback" not in err and out + err


def python_recipes() -> list[tuple[str, str]]:
    """The ```python blocks of docs/api.md that use the package (run as written, in the scratch folder)."""
    doc = REPO / "docs" / "api.md"
    return [(doc.name, block) for block in re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
            if "evaladdon" in block]


@pytest.mark.parametrize("doc,block", python_recipes(), ids=[f"{d}:{b.splitlines()[0][:50]}" for d, b in python_recipes()])
def test_python_recipe_runs(scratch: Path, monkeypatch: pytest.MonkeyPatch, doc: str, block: str) -> None:
    monkeypatch.chdir(scratch)
    names: dict[str, object] = {}
    exec(compile(block, f"<{doc}>", "exec"), names)  # noqa: S102 - the docs' own example, not a log
    got = names.get("got")
    if got is not None:  # the planner's example: summaries of the two checkpoints in logs/
        assert len(got.summaries) == 2 and not got.loaded.skipped  # type: ignore[attr-defined]


def test_there_is_a_python_recipe_of_the_planner() -> None:
    assert any("plan_summarize" in block for _, block in python_recipes())


def test_the_docs_show_what_the_program_prints() -> None:
    """Every ``$ evaladdon ...`` block of README.md and docs/*.md shows the output the command
    prints today (``scripts/doc_outputs.py``; ``refresh`` rewrites them after a deliberate change)."""
    doc_outputs = load_script("doc_outputs")
    assert sum(len(doc_outputs.shown(b)) for d in doc_outputs.docs()
               for b in doc_outputs.BLOCK.findall(d.read_text(encoding="utf-8"))) >= 4
    found = doc_outputs.differences()
    assert not found, "\n\n".join(found) + "\n(python scripts/doc_outputs.py refresh, then read the diff)"
