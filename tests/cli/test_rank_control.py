"""``rank --control length,markdown``: raw and style-controlled ratings side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np


def _arena_file(tmp_path: Path, n: int = 600, seed: int = 0) -> Path:
    """Arena battles with conv_metadata, where the judge rewards length and model "c" is verbose."""
    rng = np.random.default_rng(seed)
    models = np.array(["a", "b", "c"])
    theta = {"a": 0.6, "b": 0.3, "c": 0.0}
    mean_len = {"a": 150, "b": 250, "c": 600}
    recs = []
    for q in range(n):
        i, j = rng.choice(3, 2, replace=False)
        ma, mb = models[i], models[j]
        la, lb = rng.poisson(mean_len[ma]), rng.poisson(mean_len[mb])
        logit = theta[ma] - theta[mb] + 2.0 * (la - lb) / (la + lb + 1)
        win = "model_a" if rng.random() < 1 / (1 + np.exp(-logit)) else "model_b"
        meta = {"sum_assistant_a_tokens": int(la), "sum_assistant_b_tokens": int(lb),
                "header_count_a": {"h1": int(rng.integers(0, 3))}, "header_count_b": {"h1": int(rng.integers(0, 3))},
                "list_count_a": {"ordered": int(rng.integers(0, 4))}, "list_count_b": {"ordered": int(rng.integers(0, 4))},
                "bold_count_a": {"**": int(rng.integers(0, 2))}, "bold_count_b": {"**": int(rng.integers(0, 2))}}
        recs.append({"question_id": f"q{q // 2}", "model_a": ma, "model_b": mb, "winner": win, "conv_metadata": meta})
    f = tmp_path / "clean_battle.json"
    f.write_text(json.dumps(recs))
    return f


def test_rank_control_json_and_text(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    f = _arena_file(tmp_path)
    code, out, err = cli("rank", f, "--control", "length,markdown", "--n-boot", "200", "--json")
    assert code == 0, err
    doc = json.loads(out)
    sc = doc["style_control"]
    assert [x["feature"] for x in sc["features"]] == ["length", "header", "list", "bold"]
    assert sc["length_unit"] == "tokens" and sc["n_battles"] == 600 and sc["n_dropped"] == 0
    length = sc["features"][0]
    assert length["coef_low"] > 0  # the judge's length preference is found
    by = {m["model"]: m for m in sc["models"]}
    # the verbose model "c" loses rating once length is controlled; "a" (short, strongest) gains
    assert by["c"]["rating"] < by["c"]["raw_rating"] and by["a"]["rating"] > by["a"]["raw_rating"]
    assert by["a"]["rank"] == 1 and all(m["rank_low"] <= m["rank"] <= m["rank_high"] for m in sc["models"])
    # the uncontrolled fit in the block is the plain rank's fit on the same battles
    plain = {m["model"]: m["rating"] for m in doc["models"]}
    assert all(abs(by[k]["raw_rating"] - plain[k]) < 1e-6 for k in plain)
    code, text, _ = cli("rank", f, "--control", "length", "--n-boot", "200")
    assert code == 0 and "controlled" in text and "length:" in text and "Elo" in text
    code, md, _ = cli("rank", f, "--control", "length", "--n-boot", "200", "--markdown")
    assert code == 0 and "| rank | model | raw rating" in md


def test_rank_without_control_is_unchanged(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    f = _arena_file(tmp_path, n=200)
    code, out, _ = cli("rank", f, "--n-boot", "100", "--json")
    assert code == 0 and "style_control" not in json.loads(out)


def test_rank_control_not_logged_and_bad_values(real_logs: Path, tmp_path: Path,
                                                cli: Callable[..., tuple[int, str, str]]) -> None:
    arena = real_logs / "arena_hard_battles"
    code, out, _ = cli("rank", arena, "--control", "length", "--n-boot", "100", "--json")
    sc = json.loads(out)["style_control"]
    assert code == 0 and sc["models"] == [] and sc["n_dropped"] == 2136
    assert any("no battle logs" in n for n in sc["notes"])
    code, text, _ = cli("rank", arena, "--control", "length", "--n-boot", "100")
    assert code == 0 and "no controlled ratings" in text and "2136 battle(s) left out" in text
    code, _, err = cli("rank", arena, "--control", "emoji")
    assert code == 2 and "unknown --control 'emoji'" in err and "Traceback" not in err
    table = tmp_path / "t.csv"
    table.write_text("run,task,metric,item,value\nA,t,acc,1,1\nB,t,acc,1,0\nA,t,acc,2,0\nB,t,acc,2,1\n")
    code, _, err = cli("rank", table, "--control", "length")
    assert code == 2 and "--control applies to pairwise-preference files" in err


def test_rank_control_mtbench_real(real_logs: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("rank", real_logs / "mtbench_gpt4_pair", "--control", "length,markdown", "--n-boot", "200",
                         "--json")
    assert code == 0, err
    sc = json.loads(out)["style_control"]
    assert sc["n_battles"] == 73 and sc["length_unit"] == "characters"
    assert any("bold differs between the two answers in only" in n for n in sc["notes"])


def test_rank_control_alpaca_eval_length_controlled(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    """AlpacaEval annotations: the LC win rate of generator_2 against generator_1 from the file."""
    from evaladdon.stats.lc_winrate import length_controlled_winrate

    rng = np.random.default_rng(11)
    recs, prefs, len1, len2 = [], [], [], []
    for i in range(300):
        l1, l2 = int(rng.integers(100, 1500)), int(rng.integers(100, 2500))
        p = 1 / (1 + np.exp(-(-0.2 + 1.0 * np.tanh((l2 - l1) / 700))))
        pref = [1.0, 2.0][int(rng.random() < p)] if i % 10 else 0.0  # 0: AlpacaEval's older draw
        recs.append({"dataset": "d", "instruction": f"i{i}", "output_1": "a" * l1, "generator_1": "base",
                     "output_2": "b" * l2, "generator_2": "mine", "preference": pref})
        prefs.append(0.5 if pref == 0 else pref - 1)
        len1.append(l1)
        len2.append(l2)
    f = tmp_path / "annotations.json"
    f.write_text(json.dumps(recs))
    code, out, err = cli("rank", f, "--control", "length", "--unit", "item", "--n-boot", "200", "--json")
    assert code == 0, err
    (lc,) = json.loads(out)["style_control"]["length_controlled"]
    direct = length_controlled_winrate(np.array(prefs), np.array(len2, float), np.array(len1, float),
                                       np.array([f"i{i}" for i in range(300)]), n_boot=200, seed=0)
    assert (lc["model"], lc["baseline"], lc["n"]) == ("mine", "base", 300)
    assert abs(lc["lc_win_rate"] - direct.lc_win_rate) < 1e-9 and abs(lc["win_rate"] - 100 * np.mean(prefs)) < 1e-9
    assert lc["lc_low"] <= lc["lc_win_rate"] <= lc["lc_high"] and lc["lc_win_rate"] < lc["win_rate"]
    code, text, _ = cli("rank", f, "--control", "length", "--unit", "item", "--n-boot", "200")
    assert code == 0 and "LC win rate %" in text and "instruction-difficulty" in text


def test_rank_control_says_ties_are_split(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    f = _arena_file(tmp_path, n=300)
    recs = json.loads(f.read_text())
    for r in recs[::5]:
        r["winner"] = "tie"
    f.write_text(json.dumps(recs))
    code, out, err = cli("rank", f, "--control", "length", "--ties", "davidson", "--n-boot", "100", "--json")
    assert code == 0, err
    assert any("--ties davidson applies to the leaderboard above" in n for n in json.loads(out)["style_control"]["notes"])


def test_rank_control_in_the_html_page(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    """``rank --control --html``: the page holds the controlled ratings and the coefficients the
    JSON gives (the same numbers, formatted as the text output), with a model name escaped."""
    f = _arena_file(tmp_path, n=300)
    recs = json.loads(f.read_text())
    for r in recs:  # a hostile model name: markup and a terminal escape
        r["model_a"], r["model_b"] = [("<b>c</b>\x1b[31m" if m == "c" else m) for m in (r["model_a"], r["model_b"])]
    f.write_text(json.dumps(recs))
    page = tmp_path / "rank.html"
    code, out, err = cli("rank", f, "--control", "length", "--n-boot", "100", "--html", page, "--json")
    assert code == 0, err
    sc = json.loads(out)["style_control"]
    html = page.read_text()
    assert "<h2>Style control</h2>" in html and "controlled" in html
    length = sc["features"][0]
    assert f"{length['coef']:+.3f} log-odds per SD" in html
    for m in sc["models"]:
        assert f"<td>{m['rating']:.1f}</td>" in html
    assert "<b>c</b>" not in html and "\x1b" not in html and "&lt;b&gt;c&lt;/b&gt;" in html
