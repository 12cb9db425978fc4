"""A message from a log (an error, a grader's reason) as one line for counts and warnings: the
message itself, without the stack trace or traceback a tool appended to it."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["one_line", "without_traces"]

_JS_STACK = re.compile(r"\n\s*Stack Trace:|\n\s+at\s")  # promptfoo: "<message>\nStack Trace: <err.stack>\n<code>"
_PY_TRACEBACK = "Traceback (most recent call last):"


def without_traces(text: str) -> str:
    """The message of a promptfoo error or reason without the JavaScript stack trace, the
    assertion's code after it, or a Python traceback's frames (its last line, the exception, kept)."""
    cut = _JS_STACK.search(text)
    if cut is not None:
        text = text[: cut.start()]
    head, tb, tail = text.partition(_PY_TRACEBACK)
    if tb:
        last = next((line for line in reversed(tail.splitlines()) if line.strip()), "")
        text = f"{head} {last.strip()}"
    return text


def one_line(text: Any, limit: int = 160) -> str:
    """A logged message on one line, at most ``limit`` characters, without stack traces."""
    s = " ".join(without_traces(str(text)).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


