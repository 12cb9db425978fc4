"""The outputs the docs show, run for real: each ```text block of README.md and docs/*.md whose
lines start with ``$ evaladdon ...`` holds commands and, under each, the output it prints
(``COLUMNS=100``, run from the repository root).  A shown line ending in ``...`` stands for any
line that starts with what comes before it (the docs may cut a long sentence).

    python scripts/doc_outputs.py check     # exit 1 and a diff when a doc shows what the program does not print
    python scripts/doc_outputs.py refresh   # write what the program prints into the docs

``tests/test_docs_recipes.py`` runs ``check``'s comparison; ``refresh`` is for the developer who
changed an output on purpose (read the diff before committing)."""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"```text\n(\$ evaladdon .*?)```", re.S)


def docs() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def shown(block: str) -> list[tuple[str, list[str]]]:
    """(command, shown output lines) of one block."""
    out: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ evaladdon "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def printed(command: str) -> list[str]:
    """What ``command`` prints (stdout, then stderr) in this process, from the repository root."""
    from evaladdon.cli.main import main

    old_cwd, old_cols = os.getcwd(), os.environ.get("COLUMNS")
    out, err = io.StringIO(), io.StringIO()
    os.chdir(REPO)
    os.environ["COLUMNS"] = "100"
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(shlex.split(command)[1:])
            except SystemExit:
                pass
    finally:
        os.chdir(old_cwd)
        if old_cols is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old_cols
    return (out.getvalue() + err.getvalue()).rstrip("\n").splitlines()


def agrees(shown_lines: list[str], got: list[str]) -> bool:
    if len(shown_lines) != len(got):
        return False
    return all(g.startswith(s[:-3].rstrip()) if s.endswith("...") else s.rstrip() == g.rstrip()
               for s, g in zip(shown_lines, got, strict=True))


def differences() -> list[str]:
    """One unified diff per command whose shown output the program does not print."""
    diffs = []
    for doc in docs():
        for block in BLOCK.findall(doc.read_text(encoding="utf-8")):
            for command, lines in shown(block):
                got = printed(command)
                if not agrees(lines, got):
                    diffs.append(f"{doc.relative_to(REPO)}: `{command}`\n" + "\n".join(
                        difflib.unified_diff(lines, got, "shown", "printed", lineterm="")))
    return diffs


def refresh() -> list[Path]:
    changed = []
    for doc in docs():
        text = doc.read_text(encoding="utf-8")

        def redo(m: re.Match[str]) -> str:
            parts = []
            for command, lines in shown(m.group(1)):
                got = printed(command)
                parts += [f"$ {command}", *(lines if agrees(lines, got) else got)]
            return "```text\n" + "\n".join(parts) + "\n```"

        new = BLOCK.sub(redo, text)
        if new != text:
            doc.write_text(new, encoding="utf-8")
            changed.append(doc)
    return changed


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "check"
    if what == "refresh":
        for path in refresh():
            print(f"rewrote {path.relative_to(REPO)}")
    else:
        found = differences()
        print("\n\n".join(found) or "every shown output is what the program prints")
        sys.exit(1 if found else 0)
