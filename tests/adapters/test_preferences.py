"""Pairwise-preference reader (real Arena-Hard and MT-bench files, AlpacaEval-style annotations)
and the ``rank`` command (JSON keys, text and markdown escaping, refusals)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from evaladdon.adapters.preferences import read_preference_file, read_preferences
from evaladdon.errors import InputError

from conftest import run_cli

SAMPLE_TABLE = Path(__file__).resolve().parents[2] / "sample_logs" / "table" / "checkpoints.csv"


def arena_file(real_logs: Path) -> Path:
    return real_logs / "arena_hard_battles" / "arena-hard-auto" / "arena_hard_battles.jsonl"


def mtbench_file(real_logs: Path) -> Path:
    return real_logs / "mtbench_gpt4_pair" / "fastchat-mtbench" / "gpt-4_pair.jsonl"


def test_arena_hard_battles_every_record(real_logs: Path) -> None:
    path = arena_file(real_logs)
    raw = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    p = read_preference_file(path)
    assert len(p.battles) == len(raw) and p.n_dropped == 0
    want = Counter(r["winner"] for r in raw)
    got = Counter(p.battles["outcome"])
    assert (got[1.0], got[0.0], got[0.5]) == (want["model_a"], want["model_b"], want["tie"])
    assert p.battles["cluster"].nunique() == len({r["question_id"] for r in raw})
    assert set(p.battles["model_a"]) | set(p.battles["model_b"]) == {r["model_a"] for r in raw} | {
        r["model_b"] for r in raw}


def test_mtbench_fastchat_agreement_rule(real_logs: Path) -> None:
    path = mtbench_file(real_logs)
    raw = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    p = read_preference_file(path)
    errors = sum(r["g1_winner"] == "error" or r["g2_winner"] == "error" for r in raw)
    assert p.dropped == {"judge error in g1 or g2 (FastChat drops the pair)": errors}
    assert len(p.battles) + errors == len(raw) == len(p.games) + errors
    ok = [r for r in raw if "error" not in (r["g1_winner"], r["g2_winner"])]
    wins_1 = sum(r["g1_winner"] == r["g2_winner"] == "model_1" for r in ok)
    wins_2 = sum(r["g1_winner"] == r["g2_winner"] == "model_2" for r in ok)
    got = Counter(p.battles["outcome"])
    assert (got[1.0], got[0.0], got[0.5]) == (wins_1, wins_2, len(ok) - wins_1 - wins_2)
    assert p.battles["judge"].str.startswith("gpt-4/").all()
    assert any("disagree" in n for n in p.notes)


def test_alpaca_eval_annotations(tmp_path: Path) -> None:
    rows = [
        {"dataset": "helpful_base", "instruction": "q1", "generator_1": "base", "generator_2": "m",
         "output_1": "x", "output_2": "y", "annotator": "gpt4", "preference": pref}
        for pref in (1.0, 2.0, 1.5, 1.25, None, 2.5)
    ]
    rows.append({**rows[0], "generator_2": "base"})
    f = tmp_path / "annotations.json"
    f.write_text(json.dumps(rows))
    p = read_preference_file(f)
    np.testing.assert_allclose(p.battles["outcome"], [1.0, 0.0, 0.5, 0.75])
    assert p.battles["tie"].tolist() == [False, False, True, False]
    assert p.dropped == {"no preference (null or not a number)": 1, "preference outside [1, 2]": 1,
                         "same model on both sides": 1}
    assert (p.battles["cluster"] == "helpful_base").all() and (p.battles["item"] == "q1").all()


def test_arena_tie_variants_and_unknown_winner(tmp_path: Path) -> None:
    recs = [{"question_id": "q", "model_a": "a", "model_b": "b", "winner": w}
            for w in ("model_a", "tie (bothbad)", "tie", "model_b", "skip")]
    f = tmp_path / "clean_battle.json"
    f.write_text(json.dumps(recs))
    p = read_preference_file(f)
    assert p.battles["outcome"].tolist() == [1.0, 0.5, 0.5, 0.0]
    assert p.dropped == {"winner 'skip' not model_a/model_b/tie": 1}


def test_non_preference_file_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_text('{"a": 1}\n')
    with pytest.raises(InputError, match="x.jsonl"):
        read_preference_file(f)
    with pytest.raises(InputError, match="no pairwise"):
        read_preferences([tmp_path])


def test_summarize_and_compare_refuse_preferences(real_logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in (["summarize", str(arena_file(real_logs))],
                ["compare", str(mtbench_file(real_logs)), str(arena_file(real_logs))]):
        code, out, err = run_cli(capsys, *cmd)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "pairwise preferences: use evaladdon rank" in err


def test_rank_json_on_arena_hard(real_logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "rank", str(arena_file(real_logs)), "--json", "--n-boot", "200")
    assert code == 0
    d = json.loads(out)
    assert d["kind"] == "bradley_terry" and d["n_battles"] == 2136 and d["n_clusters"] == 120
    ranks = [m["rank"] for m in d["models"]]
    assert ranks == sorted(ranks) and len(ranks) == 5
    for m in d["models"]:
        assert {"model", "rating", "ci_low", "ci_high", "rank", "rank_low", "rank_high"} <= set(m)
        assert m["ci_low"] <= m["rating"] <= m["ci_high"] and m["rank_low"] <= m["rank"] <= m["rank_high"]
    assert np.mean([m["rating"] for m in d["models"]]) == pytest.approx(1000.0)
    assert d["n_dropped"] == 0 and d["position_bias"] is None


def test_rank_mtbench_text_shows_drops_and_position_bias(real_logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "rank", str(mtbench_file(real_logs)), "--n-boot", "200", "--sandwich")
    assert code == 0
    assert "position bias" in out and "kappa" in out
    assert "2 row(s) left out" in out and "judge error" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_rank_escapes_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    names = ["evil|<img src=x>\x1b[31m", "ok"]
    recs = [{"question_id": int(q), "model_a": names[0], "model_b": names[1],
             "winner": ["model_a", "model_b", "tie"][int(w)]}
            for q, w in zip(rng.integers(0, 30, 200), rng.integers(0, 3, 200), strict=True)]
    f = tmp_path / "battles.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in recs))
    code, out, _ = run_cli(capsys, "rank", str(f), "--n-boot", "100")
    assert code == 0 and "\x1b" not in out and "\\x1b" in out
    code, out, _ = run_cli(capsys, "rank", str(f), "--n-boot", "100", "--markdown", "--ties", "davidson")
    assert code == 0 and not re.search(r"(?<!\\)<", out) and "evil\\|\\<img" in out and "Davidson" in out


def test_rank_scores_from_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "rank", str(SAMPLE_TABLE), "--cluster", "passage_id", "--json", "--n-boot", "200")
    assert code == 0
    d = json.loads(out)
    assert d["kind"] == "scores" and d["rankings"]
    for r in d["rankings"]:
        assert r["winners_curse"]["optimism_bound"] >= 0
        for m in r["models"]:
            assert m["rank_low"] <= m["rank"] <= m["rank_high"] and m["ci_low"] <= m["rating"] <= m["ci_high"]


def test_rank_refuses_mixed_inputs_and_bad_flags(real_logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "rank", str(arena_file(real_logs)), str(SAMPLE_TABLE))
    assert code == 2 and "rank them separately" in err and err.count("\n") == 1
    code, _, err = run_cli(capsys, "rank", str(arena_file(real_logs)), "--n-boot", "5")
    assert code == 2 and "--n-boot" in err
    code, _, err = run_cli(capsys, "rank", str(arena_file(real_logs)), "--anchor", "nobody", "--n-boot", "0")
    assert code == 2 and "anchor" in err


def test_rank_html_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(1)
    names = ["evil|<img src=x>$x$", "ok", "third"]
    recs = [{"question_id": int(q), "model_a": names[i], "model_b": names[(i + 1 + j) % 3],
             "winner": ["model_a", "model_b", "tie"][int(w)]}
            for q, i, j, w in zip(rng.integers(0, 30, 300), rng.integers(0, 3, 300), rng.integers(0, 2, 300),
                                  rng.integers(0, 3, 300), strict=True)]
    f = tmp_path / "battles.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in recs))
    out = tmp_path / "rank.html"
    code, _, _ = run_cli(capsys, "rank", str(f), "--n-boot", "100", "--html", str(out), "--quiet")
    assert code == 0
    page = out.read_text()
    assert page.count("data:image/png;base64,") == 2 and "<img src=x>" not in page and "evil|&lt;img" in page
    code, _, err = run_cli(capsys, "rank", str(f), "--n-boot", "100", "--html", str(f))
    assert code == 2 and "input" in err


def test_rank_html_for_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "scores.html"
    code, _, _ = run_cli(capsys, "rank", str(SAMPLE_TABLE), "--cluster", "passage_id", "--n-boot", "100",
                         "--html", str(out), "--quiet")
    assert code == 0 and "Ranking: " in out.read_text() and "winner" in out.read_text()


def test_malformed_records_are_counted_not_crashing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ['{"question_id":1,"model_a":"a","model_b":"b","winner":["x"]}',
             '{"question_id":1,"model_a":{"k":1},"model_b":"b","winner":"model_a"}',
             '{"question_id":2,"model_a":"a","model_b":"b","winner":"model_b"}',
             '{"question_id":3,"model_a":"b","model_b":"a","winner":"model_b"}',
             '{"question_id":4,"model_a":null,"model_b":"a","winner":"model_b"}']
    f = tmp_path / "w.jsonl"
    f.write_text("\n".join(lines))
    p = read_preference_file(f)
    assert len(p.battles) == 2
    assert p.dropped == {"model name not a string": 1, "winner \"['x']\" not model_a/model_b/tie": 1,
                         "missing model name": 1}
    code, out, _ = run_cli(capsys, "rank", str(f), "--n-boot", "0", "--json")
    assert code == 0 and json.loads(out)["n_dropped"] == 3
    t = tmp_path / "t.jsonl"
    t.write_text(lines[2] + "\n" + lines[2][:20])
    code, _, err = run_cli(capsys, "rank", str(t))
    assert code == 2 and "t.jsonl" in err and "line 2" in err and err.count("\n") == 1


def test_rank_scores_counts_items_not_shared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    lines = ["model,task,item,score"]
    for m, p in (("m1", 0.3), ("m2", 0.6), ("m3", 0.9)):
        n = 40 if m != "m3" else 37  # m3 misses three items
        lines += [f"{m},t,i{i},{int(rng.random() < p)}" for i in range(n)]
    lines.append("m1,t,i0b,oops")  # not a number: counted as left out
    f = tmp_path / "scores.csv"
    f.write_text("\n".join(lines) + "\n")
    code, out, _ = run_cli(capsys, "rank", str(f), "--json", "--n-boot", "200")
    assert code == 0
    r = json.loads(out)["rankings"][0]
    assert r["n_items"] == 37 and r["dropped"]["item(s) not scored by every run"] == 3
    assert r["n_dropped"] == 4
    assert [m["model"] for m in r["models"]][0] == "m3"
    code, out, _ = run_cli(capsys, "rank", str(f), "--n-boot", "200")
    assert "4 rows or items left out" in out and "not scored by every run" in out


def test_rank_scores_from_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("duckdb")
    store = tmp_path / "store"
    code, _, _ = run_cli(capsys, "ingest", str(SAMPLE_TABLE), "--store", str(store))
    assert code == 0
    code, out, _ = run_cli(capsys, "rank", "--store", str(store), "--cluster", "passage_id", "--json",
                           "--n-boot", "200")
    assert code == 0
    direct = run_cli(capsys, "rank", str(SAMPLE_TABLE), "--cluster", "passage_id", "--json", "--n-boot", "200")[1]
    a, b = json.loads(out)["rankings"][0], json.loads(direct)["rankings"][0]
    assert [m["model"] for m in a["models"]] == [m["model"] for m in b["models"]]
    assert [m["rating"] for m in a["models"]] == pytest.approx([m["rating"] for m in b["models"]])


def test_report_includes_the_bradley_terry_section(tmp_path: Path) -> None:
    """`report` given preference files adds the leaderboard (ratings forest, win-rate heatmap)."""
    from evaladdon.cli.main import main

    from conftest import REPO

    battles = REPO / "sample_logs" / "preferences" / "battles.jsonl"
    only = tmp_path / "only.html"
    assert main(["report", str(battles), "-o", str(only), "--quiet"]) == 0
    page = only.read_text(encoding="utf-8")
    assert "Bradley" in page and page.count("<img") == 2
    mixed = tmp_path / "mixed.html"
    assert main(["report", str(REPO / "sample_logs" / "inspect"), str(battles), "--cluster", "passage.id",
                 "-o", str(mixed), "--quiet"]) == 0
    page = mixed.read_text(encoding="utf-8")
    assert "Bradley" in page and "reading/match" in page and page.count("<img") >= 4


def test_one_hint_scan_is_the_twelve_substring_tests(tmp_path: Path) -> None:
    """The sniff's one regex over the head finds a hint exactly when one of the 12 substring tests
    did, and a head with no hint sniffs as no preference file (every format's keys hold a hint)."""
    import random

    from evaladdon.adapters import preferences as P

    rng = random.Random(5)
    pieces = [*P._HINTS, *(h[:-2] + b'"' for h in P._HINTS), b'"', b'model', b'{"doc_id": 1, ', b' ', b'\xef\xbb\xbf']
    for _ in range(3000):
        head = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        assert (P._HINT.search(head) is not None) == any(h in head for h in P._HINTS)
        if P._HINT.search(head) is None:
            assert P.sniff_preferences(head) is None
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"model_a": "a", "model_b": "b", "winner": "tie", "question_id": 1}\n')
    assert P.looks_like_preferences(path) == "arena"
