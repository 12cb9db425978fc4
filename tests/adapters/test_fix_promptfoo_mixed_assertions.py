"""Issue 25.4: a promptfoo row where one assertion threw and another failed for real is a
failure (promptfoo counts it so: ``failureReason`` 1, ``stats.failures``), not a grader error
left out of the pass rate (which biased pass rates upward).  Only a row whose every failed
assertion threw is a grader error.  The counts match promptfoo's own ``stats`` on every real
file and on a v3 file built to promptfoo's format (``gradingResult.componentResults``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaladdon.adapters.promptfoo import read_promptfoo

THREW = {"pass": False, "score": 0, "reason": "Custom function threw error: x is not defined",
         "assertion": {"type": "javascript", "value": "x.length > 3"}}
REAL_FAIL = {"pass": False, "score": 0, "reason": "Expected output to contain \"Paris\"",
             "assertion": {"type": "contains", "value": "Paris"}}
PASSED = {"pass": True, "score": 1, "reason": "Assertion passed", "assertion": {"type": "icontains", "value": "a"}}


def row(test: int, components: list[dict]) -> dict:
    ok = all(c["pass"] for c in components)
    failed = [c for c in components if not c["pass"]]
    reason = failed[0]["reason"] if failed else "All assertions passed"  # promptfoo: the first failure's reason
    return {"provider": {"id": "openai:gpt-4o-mini", "label": ""}, "prompt": {"raw": "Q", "label": "Q"},
            "promptIdx": 0, "promptId": "p0", "testIdx": test, "vars": {"q": f"q{test}"},
            "success": ok, "score": float(ok), "namedScores": {}, "failureReason": 0 if ok else 1,
            "gradingResult": {"pass": ok, "score": float(ok), "reason": reason, "componentResults": components}}


def v3_file(path: Path, rows: list[dict]) -> Path:
    ok = sum(r["success"] for r in rows)
    stats = {"successes": ok, "failures": len(rows) - ok, "errors": 0}  # as promptfoo writes them
    path.write_text(json.dumps({"evalId": "eval-x", "results": {"version": 3, "timestamp": "t", "prompts": [],
                                                                "results": rows, "stats": stats}, "config": {}}))
    return path


def test_threw_and_failed_for_real_is_a_failure(tmp_path: Path) -> None:
    rows = [row(0, [PASSED, PASSED]), row(1, [PASSED, PASSED]),
            row(2, [THREW, REAL_FAIL]),   # the first failure threw, the second is a real one
            row(3, [REAL_FAIL, THREW]),
            row(4, [THREW, PASSED])]      # only a thrown assertion failed: the grader's error
    t = read_promptfoo(v3_file(tmp_path / "o.json", rows))
    p = t[t["metric"] == "pass"].set_index("item")
    assert p.loc[["2", "3"], "value"].tolist() == [0.0, 0.0]
    assert p.loc[["2", "3"], "error"].isna().all()
    assert pd_isna(p.loc["4", "value"]) and p.loc["4", "error"].startswith("assertion error")
    # the pass rate over rows with an outcome: 2 of 4, not 2 of 2
    assert p["value"].mean() == pytest.approx(0.5)
    assert not any("disagree" in n for n in t.attrs["notes"])
    assert any("1 assertion error(s)" in n for n in t.attrs["notes"])


def pd_isna(x: object) -> bool:
    return x != x  # NaN


def _stats(path: Path) -> dict:
    d = json.loads(path.read_text())
    if not isinstance(d, dict):  # the 2023 bare list: no stats
        return {}
    s = d["results"] if isinstance(d.get("results"), dict) else d
    return s.get("stats") or {}


def test_real_files_match_promptfoo_stats(real_logs: Path) -> None:
    files = sorted((real_logs / "promptfoo_examples").glob("*/output.json")) + \
        sorted((real_logs / "promptfoo_tds_project").glob("*/*.json"))
    checked = 0
    for f in files:
        stats = _stats(f)
        if "successes" not in stats:
            continue
        t = read_promptfoo(f)
        p = t[t["metric"] == "pass"]
        err = p["error"].fillna("")
        ours = {"successes": int((p["value"] == 1).sum()),
                "failures": int((p["value"] == 0).sum() + err.str.startswith("assertion error").sum()),
                "errors": int(err.str.startswith("provider error").sum())}
        theirs = {k: int(stats.get(k, 0)) for k in ours}
        if "errors" not in stats:  # before promptfoo counted errors apart they were failures
            ours["failures"] += ours.pop("errors")
            theirs.pop("errors")
        assert ours == theirs, f
        assert not any("disagree" in n for n in t.attrs["notes"]), f
        checked += 1
    assert checked >= 6
