"""Every output mode says which way is better for a metric where lower is better, and words the
verdict by it (text, markdown, JSON, HTML; compare, gate, rank, report, the Every Eval Ever
export); ``--better`` where the logs declare nothing, refused in one line when it contradicts them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from conftest import REPO

Cli = Callable[..., tuple[int, str, str]]
SAMPLE_LM = REPO / "sample_logs" / "lm_eval"


def runs(tmp_path: Path, metric: str, shift: float, n: int = 150) -> list[Path]:
    """Two long tables of ``metric`` (not in [0, 1]): B = A + ``shift`` + noise."""
    rng = np.random.default_rng(1)
    a = rng.normal(20.0, 3.0, n)
    out = []
    for model, v in (("base", a), ("cand", a + shift + rng.normal(0, 0.5, n))):
        p = tmp_path / f"{model}.csv"
        pd.DataFrame({"model": model, "task": "lm", "id": [f"q{i}" for i in range(n)], "metric": metric,
                      "value": np.round(v, 6)}).to_csv(p, index=False)
        out.append(p)
    return out


def test_compare_text_markdown_json(cli: Cli, tmp_path: Path) -> None:
    a, b = runs(tmp_path, "perplexity", -2.0)  # B clearly lower: better, the gate passes
    code, out, err = cli("compare", a, b, "--fail-on-regression")
    assert code == 0, err
    assert "on lm/perplexity (lower is better: a negative delta is B better): -2" in out
    assert "no regression shown" in out
    code, md, _ = cli("compare", a, b, "--markdown")
    assert code == 0 and "lower is better: a negative delta is B better" in md
    code, js, _ = cli("compare", a, b, "--json", "--fail-on-regression")
    (rec,) = json.loads(js)["results"]
    assert rec["lower_is_better"] is True and rec["delta"] < -1.5 and rec["decision"] == "no regression shown within m"
    code, _, err = cli("compare", *runs(tmp_path, "perplexity", +2.0), "--fail-on-regression")
    assert code == 1 and "regression shown" in err


def test_compare_higher_is_better_lines_unchanged(cli: Cli, tmp_path: Path) -> None:
    a, b = runs(tmp_path, "loss", -2.0)
    code, out, _ = cli("compare", a, b, "--fail-on-regression")
    assert code == 1 and "lower is better" not in out and "on lm/loss: -2" in out
    code, js, _ = cli("compare", a, b, "--json")
    assert "lower_is_better" not in json.loads(js)["results"][0]


def test_better_option(cli: Cli, tmp_path: Path) -> None:
    a, b = runs(tmp_path, "loss", -2.0)  # no declaration, no well-known name: the user's word
    code, out, err = cli("compare", a, b, "--better", "lower", "--fail-on-regression")
    assert code == 0, err
    assert "(lower is better" in out and "no regression shown" in out


def test_better_contradicting_a_declaration_is_refused(cli: Cli) -> None:
    code, out, err = cli("compare", SAMPLE_LM, "--better", "lower")  # lm-eval declares acc higher-is-better
    assert code == 2 and out == ""
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "contradicts the log" in lines[0] and "Traceback" not in err


def test_declared_by_lm_eval_shown(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "lm"
    shutil.copytree(SAMPLE_LM, folder)
    for f in folder.glob("*/results_*.json"):  # the results files declare acc lower-is-better
        doc = json.loads(f.read_text())
        doc["higher_is_better"]["evaladdon_clustered_example"]["acc"] = False
        f.write_text(json.dumps(doc))
    code, out, _ = cli("compare", folder, "--wide")
    assert code == 0
    lines = [x for x in out.replace("\n  ", " ").splitlines() if " vs " in x and " on " in x]
    assert any("acc,none (lower is better" in x for x in lines)
    assert not any("exact_match,none (lower" in x for x in lines)


def test_gate_policy_says_the_direction(cli: Cli, tmp_path: Path) -> None:
    a, b = runs(tmp_path, "loss", +2.0)
    policy = tmp_path / "policy.yaml"
    policy.write_text("benchmarks:\n  - task: lm\n    tier: critical\n    max_drop: 0.5\n    lower_is_better: true\n")
    code, out, err = cli("gate", policy, a, b)
    assert code == 1, err
    assert "a rise beyond" in out and "lower is better" in out
    code, js, _ = cli("gate", policy, a, b, "--json")
    rec = json.loads(js)["results"][0]["benchmarks"][0]
    assert rec["verdict"] == "NO-GO" and rec["comparison"]["lower_is_better"] is True
    code, out, _ = cli("gate", policy, *runs(tmp_path, "loss", -2.0))
    assert code == 0 and "GO" in out


def test_rank_orders_and_says_it(cli: Cli, tmp_path: Path) -> None:
    a, b = runs(tmp_path, "perplexity", -2.0)
    code, out, err = cli("rank", a, b)
    assert code == 0, err
    assert "(lower is better: ranked lowest first)" in out
    code, js, _ = cli("rank", a, b, "--json")
    (rec,) = json.loads(js)["rankings"]
    assert rec["lower_is_better"] is True and rec["models"][0]["model"] == "cand"
    html = tmp_path / "rank.html"
    code, _, _ = cli("rank", a, b, "--html", html, "--quiet")
    assert code == 0 and "lower is better: lowest first" in html.read_text()


def test_report_html_says_it(cli: Cli, tmp_path: Path) -> None:
    a, b = runs(tmp_path, "perplexity", -2.0)
    page = tmp_path / "report.html"
    code, _, err = cli("report", a, b, "-o", page, "--quiet")
    assert code == 0, err
    assert "(lower is better: a negative delta is B better)" in page.read_text()


def test_subgroup_tables_say_the_direction(cli: Cli, tmp_path: Path) -> None:
    """``--by``: the subgroup table of a lower-is-better metric says so in its title (text,
    markdown, HTML) as the verdict line does; a higher-is-better one's title is unchanged."""
    a, b = runs(tmp_path, "loss", -2.0)
    for p in (a, b):
        t = pd.read_csv(p)
        t["grp"] = [f"g{i % 3}" for i in range(len(t))]
        t.to_csv(p, index=False)
    code, out, err = cli("compare", a, b, "--by", "grp", "--better", "lower")
    assert code == 0, err
    assert "by grp (p adj: across subgroups; (all): across comparisons); lower is better: lm/loss" in out
    code, md, _ = cli("compare", a, b, "--by", "grp", "--better", "lower", "--markdown")
    assert code == 0 and "lower is better: lm/loss**" in md
    code, out, _ = cli("compare", a, b, "--by", "grp")
    assert code == 0 and "lower is better" not in out
    page = tmp_path / "by.html"
    code, _, err = cli("report", a, b, "-o", page, "--quiet", "--by", "grp", "--better", "lower")
    assert code == 0, err
    assert "(all): across comparisons); lower is better: lm/loss</p>" in page.read_text()


def test_report_better_option(cli: Cli, tmp_path: Path) -> None:
    """``report --better lower`` as ``compare --better lower``: the comparisons and the flips
    worded by the user's direction where the logs declare nothing; refused when it contradicts them."""
    a, b = runs(tmp_path, "loss", -2.0)  # no declaration, no well-known name
    page = tmp_path / "report.html"
    code, _, err = cli("report", a, b, "-o", page, "--quiet", "--flips", "3")
    assert code == 0, err
    assert "lower is better" not in page.read_text()
    code, _, err = cli("report", a, b, "-o", page, "--quiet", "--flips", "3", "--better", "lower")
    assert code == 0, err
    html = page.read_text()
    assert "on lm/loss (lower is better: a negative delta is B better)" in html
    assert "(lower is better)" in html  # the flips section: values that fell are the better ones
    by = tmp_path / "by.html"
    code, _, err = cli("report", a, b, "-o", by, "--quiet", "--better", "lower", "--by", "model")
    assert code == 0, err
    code, out, err = cli("report", SAMPLE_LM, "-o", tmp_path / "lm.html", "--better", "lower")
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and "contradicts the log" in lines[0]
    assert not (tmp_path / "lm.html").exists()


def test_every_eval_ever_export_writes_the_direction(cli: Cli, tmp_path: Path) -> None:
    a, b = runs(tmp_path, "perplexity", -2.0)
    out = tmp_path / "eee"
    code, _, err = cli("export", a, b, "-o", out, "--format", "every-eval-ever")
    assert code == 0, err
    configs = [r["metric_config"] for f in out.rglob("*.json") for r in json.loads(f.read_text())["evaluation_results"]]
    assert configs and all(c["lower_is_better"] is True for c in configs)
    out2 = tmp_path / "eee2"
    code, _, err = cli("export", SAMPLE_LM, "-o", out2, "--format", "every-eval-ever")
    assert code == 0, err
    got: dict[str, Any] = {r["metric_config"]["metric_id"]: r["metric_config"]["lower_is_better"]
                           for f in out2.rglob("*.json") for r in json.loads(f.read_text())["evaluation_results"]}
    assert got["acc,none"] is False and got["exact_match,none"] is False  # as the results files declare


def test_sequential_and_watch_decide_by_the_direction(cli: Cli, tmp_path: Path) -> None:
    """``compare --sequential`` and ``watch``: a clear rise of a lower-is-better metric (the
    built-in ``perplexity``) is the regression; the same rise of a higher-is-better one is not."""
    for metric, regression in (("perplexity", True), ("score", False)):
        d = tmp_path / metric
        d.mkdir()
        a, b = runs(d, metric, +2.0)
        for argv in (("compare", a, b, "--sequential", "--baseline", "base"), ("watch", b, "--baseline", a, "--once")):
            code, out, err = cli(*argv, "--margin", "0.5", "--json")
            assert code in (0, 1) and out, (argv, err)
            (rec,) = json.loads(out)["results"]
            assert (rec["decision"] == "regression") == regression, (argv, rec)
            assert rec.get("lower_is_better", False) == regression
