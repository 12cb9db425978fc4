"""Issue 25 item 17: promptfoo writes a thrown assertion's reason as ``Custom function threw error:
<message>\\nStack Trace: <err.stack>\\n<the assertion's code>`` (promptfoo's
``src/assertions/javascript.ts``), and a Python assertion's as ``Python code execution failed:`` with
the traceback.  evaladdon's reasons, warnings and counts carry the message only: no stack frames,
no paths of the grader's machine, one count per message (not one per line number).  The file is
built to promptfoo's v3 output format (no real output in the dev kit holds a thrown assertion)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from evaladdon.adapters.promptfoo import read_promptfoo

Cli = Callable[..., tuple[int, str, str]]
CODE = "const x = JSON.parse(output);\nreturn x.ok;"


def _js_reason(line: int) -> str:
    stack = ("SyntaxError: Unexpected token '#', \"# Evaluati\"... is not valid JSON\n"
             "    at JSON.parse (<anonymous>)\n"
             f"    at eval (eval at handleJavascript (file:///usr/lib/node_modules/promptfoo/dist/src/"
             f"evaluator-DbOsHSRe.js:{line}:34), <anonymous>:3:21)\n"
             "    at async runAssertion (file:///usr/lib/node_modules/promptfoo/dist/src/evaluator.js:9:1)")
    return ("Custom function threw error: Unexpected token '#', \"# Evaluati\"... is not valid JSON\n"
            f"Stack Trace: {stack}\n{CODE}")


PY_REASON = ("Python code execution failed: Traceback (most recent call last):\n"
             "  File \"/home/grader/.cache/promptfoo/wrapper.py\", line 12, in <module>\n"
             "    result = get_assert(output, context)\n"
             "KeyError: 'answer'")


def _row(test: int, reason: str) -> dict:
    comp = {"pass": False, "score": 0, "reason": reason, "assertion": {"type": "javascript", "value": CODE}}
    return {"provider": {"id": "openai:gpt-4o-mini", "label": ""}, "prompt": {"raw": "Q", "label": "Q"},
            "promptIdx": 0, "promptId": "p0", "testIdx": test, "vars": {"q": f"q{test}"},
            "success": False, "score": 0.0, "namedScores": {}, "failureReason": 1,
            "gradingResult": {"pass": False, "score": 0.0, "reason": reason, "componentResults": [comp]}}


def _file(path: Path) -> Path:
    ok = {"provider": {"id": "openai:gpt-4o-mini", "label": ""}, "prompt": {"raw": "Q", "label": "Q"},
          "promptIdx": 0, "promptId": "p0", "testIdx": 0, "vars": {"q": "q0"}, "success": True, "score": 1.0,
          "namedScores": {}, "failureReason": 0, "gradingResult": {"pass": True, "score": 1.0, "reason": "ok"}}
    rows = [ok] + [_row(i, _js_reason(2000 + i)) for i in (1, 2, 3)] + [_row(4, PY_REASON)]
    stats = {"successes": 1, "failures": 4, "errors": 0}
    path.write_text(json.dumps({"evalId": "eval-x", "results": {"version": 3, "timestamp": "t", "prompts": [],
                                                                "results": rows, "stats": stats}, "config": {}}))
    return path


def test_reasons_keep_the_message_not_the_stack(tmp_path: Path) -> None:
    t = read_promptfoo(_file(tmp_path / "o.json"))
    errors = t.loc[t["metric"] == "pass", "error"].dropna()
    assert errors.value_counts().to_dict() == {
        "assertion error (the grader threw): Custom function threw error: Unexpected token '#', "
        "\"# Evaluati\"... is not valid JSON": 3,
        "assertion error (the grader threw): Python code execution failed: KeyError: 'answer'": 1}


def test_no_stack_trace_reaches_any_output(tmp_path: Path, cli: Cli) -> None:
    path = _file(tmp_path / "o.json")
    for mode in ((), ("--json",), ("--markdown",)):
        code, out, err = cli("summarize", path, *mode)
        text = out + err
        assert code == 0, err
        assert "Stack Trace" not in text and "node_modules" not in text and "wrapper.py" not in text, text
        assert "is not valid JSON" in text
