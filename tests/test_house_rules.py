"""The house rules of DESIGN.md that a machine can check, on the package's own source (``ast``):
no import cycle (imports inside functions count: they close cycles Python tolerates), no module
over 600 lines, and no function over 80 lines unless a ``# long: <why>`` comment (just above it
or its decorators, or first in its body) says why it is better whole.  The floors themselves
are import-linter's contracts in ``pyproject.toml`` (run by ``.ci/run``).

``TO_SPLIT`` lists what was over when the rules became executable (issue 24); it may only
shrink: an entry that is no longer over fails too, so that it is taken off the list."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "evaladdon"
MODULE_LINES = 600
FUNCTION_LINES = 80

TO_SPLIT: set[str] = set()
"""Over the limits when the rules were made executable, to be split (docs/dev/redesign-map.md):
empty since the splits of issue 24; it stays, for a module that must be let over the limit for a while."""


def _says_why(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    top = min([node.lineno] + [d.lineno for d in node.decorator_list])
    above = [lines[i - 1].strip() for i in range(max(1, top - 3), top)]
    body_start = node.body[0].end_lineno or node.body[0].lineno  # after the docstring, if any
    first = [lines[i - 1].strip() for i in range(body_start + 1, min(body_start + 4, len(lines) + 1))]
    return any(x.startswith("# long:") for x in above + first)


def _over_the_limits() -> set[str]:
    over = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        if text.count("\n") > MODULE_LINES:
            over.add(name)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if (node.end_lineno or node.lineno) - node.lineno + 1 > FUNCTION_LINES and not _says_why(lines, node):
                    over.add(f"{name}:{node.name}")
    return over


def test_no_module_or_function_over_the_limits_but_the_listed_ones() -> None:
    over = _over_the_limits()
    assert not over - TO_SPLIT, f"over {MODULE_LINES} lines a module / {FUNCTION_LINES} a function: {sorted(over - TO_SPLIT)}"
    assert not TO_SPLIT - over, f"no longer over the limits; take them off TO_SPLIT: {sorted(TO_SPLIT - over)}"


def test_the_check_sees_a_long_function_and_its_reason(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    for source, ok in ((f"def f():\n{body}\n", False), (f"# long: one pass, no calls per row\ndef f():\n{body}\n", True),
                       (f'def f():\n    """Doc."""\n    # long: the loop is hot\n{body}\n', True)):
        tree = ast.parse(source)
        node = tree.body[0]
        assert isinstance(node, ast.FunctionDef)
        assert _says_why(source.split("\n"), node) is ok, source[:60]


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each module of the package -> the package's modules it imports (anywhere in its body)."""
    modules = {_module_of(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                # `from pkg import sub`: the submodule (as grimp counts it), else the package
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in modules:  # `from pkg import name`: the module, else its package
                    t = t.rpartition(".")[0]
                if t and t != name:
                    found.add(t)
        graph[name] = found
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan; written here because grimp,
    import-linter's engine, is a CI tool and not a test dependency)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    graph = _imports()
    assert "evaladdon.routes.plan" in graph and "evaladdon.table.codes" in graph["evaladdon.table.names"]
    assert not _cycles(graph), _cycles(graph)


def test_the_cycle_check_finds_a_cycle_through_a_function_level_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


TESTS = REPO / "tests"
ACROSS_THE_TREE = {"test_house_rules.py", "test_docs_recipes.py", "test_old_paths.py", "test_closeness.py"}
"""Tests of the whole package (its rules, its docs, its old import paths) or of a test helper: at the top."""


def test_the_tests_mirror_the_tree() -> None:
    """DESIGN.md: ``tests/`` mirrors the tree: a test module lives in the folder of the floor it tests
    (``tests/stats/`` for ``evaladdon/stats/``, ...), with unique names (pytest imports them by
    basename); only tests of the whole package sit at the top."""
    floors = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    tests = sorted(TESTS.rglob("test_*.py"))
    misplaced = [str(t.relative_to(TESTS)) for t in tests
                 if (t.parent == TESTS and t.name not in ACROSS_THE_TREE)
                 or (t.parent != TESTS and t.parent.relative_to(TESTS).parts[0] not in floors)]
    assert not misplaced, f"test modules outside the folder of a floor of evaladdon/: {misplaced}"
    names = [t.name for t in tests]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    assert not list(TESTS.rglob("__init__.py")), "test folders are not packages (they would shadow evaladdon's names)"
