"""Issue 26.6: Arena battles with ``"winner": null`` were left out uncounted (``n_dropped: 0``):
pandas' ``value_counts`` skips missing values.  They are now counted by reason in every output
(the reader's ``dropped``, ``rank`` text, ``--json``, ``--markdown`` and ``--html``)."""

from __future__ import annotations

import json
from pathlib import Path

from evaladdon.adapters.preferences import read_preference_file

ARENA = "arena_hard_battles/arena-hard-auto/arena_hard_battles.jsonl"
REASON = "no winner (null or missing)"


def nulled(real_logs: Path, tmp_path: Path) -> tuple[Path, int]:
    """The real Arena-Hard battles with every ``model_a`` verdict replaced by null."""
    out, n = [], 0
    for line in (real_logs / ARENA).read_text().splitlines():
        rec = json.loads(line)
        if rec["winner"] == "model_a":
            rec["winner"], n = None, n + 1
        out.append(json.dumps(rec))
    f = tmp_path / "battles.jsonl"
    f.write_text("\n".join(out) + "\n")
    return f, n


def test_null_winners_counted(real_logs: Path, tmp_path: Path) -> None:
    f, n = nulled(real_logs, tmp_path)
    assert n == 347
    p = read_preference_file(f)
    assert p.dropped == {REASON: 347} and len(p.battles) == 2136 - 347
    # a missing key is a missing winner too; an unknown value keeps its own reason
    g = tmp_path / "mixed.jsonl"
    g.write_text("\n".join(json.dumps(r) for r in [
        {"question_id": "q", "model_a": "a", "model_b": "b", "winner": None},
        {"question_id": "q", "model_a": "a", "model_b": "b"},
        {"question_id": "q", "model_a": "a", "model_b": "b", "winner": "skip"},
        {"question_id": "q", "model_a": "a", "model_b": "b", "winner": "model_a"}]) + "\n")
    q = read_preference_file(g)
    assert q.dropped == {REASON: 2, "winner 'skip' not model_a/model_b/tie": 1} and len(q.battles) == 1


def test_null_winners_in_every_output(real_logs: Path, tmp_path: Path, cli) -> None:
    f, _ = nulled(real_logs, tmp_path)
    code, out, err = cli("rank", f, "--json", "--n-boot", "100")
    doc = json.loads(out)
    assert code == 0 and doc["n_dropped"] == 347 and doc["dropped"] == {REASON: 347}
    for mode in ([], ["--markdown"]):
        code, out, err = cli("rank", f, "--n-boot", "100", *mode)
        assert code == 0 and "347 row(s) left out" in out + err and "no winner" in out + err
    html = tmp_path / "r.html"
    code, _, _ = cli("rank", f, "--n-boot", "100", "--html", html, "--quiet")
    assert code == 0 and "347 record(s) left out (347 no winner" in html.read_text()
