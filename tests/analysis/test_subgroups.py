"""Per-subgroup results (analysis.subgroups, ``summarize/compare --by``): each subgroup's paired
test against scipy's exact binomial test (McNemar), the adjustment across subgroups against
statsmodels' multipletests (Holm, BH), the interaction test against statsmodels' clustered OLS
``f_test`` on the per-item differences, small subgroups flagged, the familywise error of the
default (McNemar exact + Holm) under the null by seeded Monte-Carlo, and the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom, binomtest

from evaladdon.analysis.subgroups import MISSING, compare_by, item_subgroups, summarize_by
from evaladdon.stats import adjust_pvalues
from evaladdon.table.columns import finalize

sm = pytest.importorskip("statsmodels.api", reason="statsmodels (the oracle) is not installed")
from statsmodels.stats.multitest import multipletests  # noqa: E402

SUBJECTS = ("math", "law", "bio", "art")


def _table(n: int = 240, seed: int = 0, clusters: bool = False, missing: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    subj = rng.choice(SUBJECTS, n, p=[0.4, 0.3, 0.25, 0.05]).astype(object)
    subj[:missing] = None
    a = (rng.uniform(size=n) < 0.6).astype(float)
    b = np.where(subj == "law", (rng.uniform(size=n) < 0.85), (rng.uniform(size=n) < 0.6)).astype(float)
    frames = [pd.DataFrame({"run": run, "source": f"{run}.csv", "harness": "table", "task": "qa", "model": run,
                            "metric": "acc", "item": [f"q{i}" for i in range(n)], "epoch": 1, "value": v,
                            "raw": v.astype(str), "cluster": [f"p{i // 6}" for i in range(n)] if clusters else None,
                            "item_hash": None, "error": None, "meta.subject": subj})
              for run, v in (("A", a), ("B", b))]
    return finalize(pd.concat(frames, ignore_index=True)), subj


PAIRING = {"level": 0.95, "test": "auto", "interval": "auto", "cluster_method": "cr2", "strict": False,
           "adjust": "holm", "margin": None, "seed": 0}


@pytest.mark.parametrize("adjust, oracle", [("holm", "holm"), ("bh", "fdr_bh")])
def test_subgroup_tests_and_adjustment_match_scipy_and_statsmodels(adjust: str, oracle: str) -> None:
    df, subj = _table()
    groups = item_subgroups(df, df["meta.subject"])
    subs, inter = compare_by(df, groups, "subject", [("A", "B")], pairing=dict(PAIRING, adjust=adjust), min_size=30)
    assert [s.subgroup for s in subs] == list(pd.unique(subj))
    a = df[df["run"] == "A"]["value"].to_numpy()
    b = df[df["run"] == "B"]["value"].to_numpy()
    raw = []
    for s in subs:
        m = subj == s.subgroup
        n10, n01 = int(((a == 1) & (b == 0) & m).sum()), int(((a == 0) & (b == 1) & m).sum())
        c = s.comparison.comparison
        assert c.test == "mcnemar" and c.n == int(m.sum())
        assert c.delta == pytest.approx(b[m].mean() - a[m].mean())
        assert c.p_value == pytest.approx(binomtest(n10, n10 + n01, 0.5).pvalue, rel=1e-9)
        assert s.small == bool(m.sum() < 30)
        raw.append(c.p_value)
    expected = multipletests(raw, method=oracle)[1]
    np.testing.assert_allclose([s.comparison.p_adjusted for s in subs], expected, rtol=1e-12)
    assert all(s.comparison.adjust_method == f"{adjust} over subgroups" for s in subs)
    assert any(s.small for s in subs) and not all(s.small for s in subs)
    (t,) = inter
    x = (subj[:, None] == np.array(t.test.labels)[None, :]).astype(float)
    fit = sm.OLS(b - a, x).fit(cov_type="cluster", cov_kwds={"groups": np.arange(len(a))}, use_t=True)
    f = fit.f_test(np.hstack([-np.ones((3, 1)), np.eye(3)]))
    assert t.test.statistic == pytest.approx(float(np.squeeze(f.fvalue)), rel=1e-10)
    assert t.test.p_value == pytest.approx(float(f.pvalue), rel=1e-9)
    assert t.test.p_value < 0.05  # law's effect differs: the interaction is found


def test_clustered_interaction_and_missing_subgroup() -> None:
    df, subj = _table(clusters=True, missing=12)
    notes: list[str] = []
    groups = item_subgroups(df, df["meta.subject"], notes)
    subs, (t,) = compare_by(df, groups, "subject", [("A", "B")], pairing=PAIRING, notes=notes)
    assert subs[-1].subgroup == MISSING and subs[-1].comparison.comparison.n == 12  # shown, last, not hidden
    assert sum(s.comparison.comparison.n for s in subs) == 240
    a = df[df["run"] == "A"]["value"].to_numpy()
    b = df[df["run"] == "B"]["value"].to_numpy()
    lab = np.where(pd.isna(subj), MISSING, subj).astype(str)
    x = (lab[:, None] == np.array(t.test.labels)[None, :]).astype(float)
    clusters = np.arange(240) // 6
    fit = sm.OLS(b - a, x).fit(cov_type="cluster", cov_kwds={"groups": clusters}, use_t=True)
    f = fit.f_test(np.hstack([-np.ones((4, 1)), np.eye(4)]))
    assert t.test.clustered and t.test.n_clusters == 40 and t.test.df_denom == 39
    assert t.test.statistic == pytest.approx(float(np.squeeze(f.fvalue)), rel=1e-10)


def test_summarize_by_means_flags_and_heterogeneity() -> None:
    df, subj = _table()
    subs, inter = summarize_by(df, item_subgroups(df, df["meta.subject"]), "subject", min_size=50)
    got = {(s.summary.run, s.subgroup): s for s in subs}
    for run in ("A", "B"):
        v = df[df["run"] == run]["value"].to_numpy()
        for g in SUBJECTS:
            s = got[(run, g)]
            assert s.summary.estimate.mean == pytest.approx(v[subj == g].mean())
            assert s.summary.estimate.n_items == int((subj == g).sum())
            assert s.small == bool((subj == g).sum() < 50)
            assert s.summary.estimate.ci_low <= s.summary.estimate.mean <= s.summary.estimate.ci_high
    assert {t.run_a for t in inter} == {"A", "B"} and all(t.run_b is None for t in inter)


def test_labels_that_disagree_are_counted() -> None:
    df, _ = _table(n=40)
    df.loc[(df["run"] == "B") & (df["item"] == "q0"), "meta.subject"] = "other"
    notes: list[str] = []
    groups = item_subgroups(df, df["meta.subject"], notes)
    assert groups[0] == groups[40] and "1 item(s) carry different subgroup labels" in notes[0]


def test_familywise_error_of_holm_over_subgroups_under_the_null() -> None:
    """Default: McNemar's exact test per subgroup, Holm across them.  Four subgroups of 80, 60,
    40 and 20 items, both runs 0/1 with the same success rate (p = 0.6, independent): the chance of
    any subgroup shown different stays <= 5 % (4000 replicates, vectorised; the Holm step and the
    exact test checked against the project's own on a replicate)."""
    rng = np.random.default_rng(2027)
    reps, sizes = 4000, np.array([80, 60, 40, 20])
    n = sizes.sum()
    a = rng.uniform(size=(reps, n)) < 0.6
    b = rng.uniform(size=(reps, n)) < 0.6
    edges = np.r_[0, np.cumsum(sizes)]
    n10 = np.add.reduceat((a & ~b).astype(int), edges[:-1], axis=1)
    n01 = np.add.reduceat((~a & b).astype(int), edges[:-1], axis=1)
    m = n10 + n01
    p = np.minimum(1.0, 2 * binom.cdf(np.minimum(n10, n01), m, 0.5))
    p[m == 0] = 1.0
    holm_any = (np.sort(p, axis=1) * (4 - np.arange(4)) < 0.05).any(axis=1)  # Holm rejects something
    for r in range(25):  # the vectorised Holm is the project's
        assert holm_any[r] == bool((adjust_pvalues(p[r], "holm") < 0.05).any())
    fwer = holm_any.mean()
    assert fwer <= 0.05, fwer
    # and the vectorised exact test is the one compare --by runs by default
    labels = np.repeat(np.array(["s0", "s1", "s2", "s3"], dtype=object), sizes)
    frames = [pd.DataFrame({"run": run, "source": "x", "harness": "table", "task": "t", "model": run, "metric": "m",
                            "item": [f"i{i}" for i in range(n)], "epoch": 1, "value": v[0].astype(float),
                            "raw": "1", "cluster": None, "item_hash": None, "error": None})
              for run, v in (("A", a), ("B", b))]
    df = finalize(pd.concat(frames, ignore_index=True))
    subs, _ = compare_by(df, np.tile(labels, 2), "s", [("A", "B")], pairing=PAIRING)
    np.testing.assert_allclose([s.comparison.comparison.p_value for s in subs], p[0], rtol=1e-9)


def _csv(tmp: Path, hostile: bool = False) -> Path:
    df, subj = _table()
    subj = np.where(pd.isna(subj), "", subj).astype(object)
    if hostile:
        subj[subj == "art"] = "<b>art</b>|\x1b[2J"
    out = pd.DataFrame({"model": df["run"], "task": "qa", "id": df["item"], "epoch": 1, "score": df["value"],
                        "subject": np.tile(subj, 2), "passage": [f"p{int(i[1:]) // 6}" for i in df["item"]]})
    path = tmp / "runs.csv"
    out.to_csv(path, index=False)
    return path


def test_cli_summarize_and_compare_by(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _csv(tmp_path, hostile=True)
    code, out, _ = cli("compare", path, "--by", "subject", "--cluster", "passage")
    out = " ".join(out.split())  # the interaction line wraps at the terminal's width
    assert code == 0 and "by subject" in out and "(all)" in out and "small (n < 30)" in out
    assert "does the effect differ across subject?" in out and "cluster-robust Wald" in out
    assert "\x1b" not in out
    code, md, _ = cli("compare", path, "--by", "subject", "--markdown", "--adjust", "bh")
    assert code == 0 and "<b>" not in md and "\\<b\\>art\\</b\\>\\|" in md
    code, js, _ = cli("compare", path, "--by", "subject", "--json")
    recs = json.loads(js)["results"]
    subs = [r for r in recs if r.get("record") == "subgroup"]
    (inter,) = [r for r in recs if r.get("record") == "interaction"]
    assert len(subs) == 4 and {r["adjust_method"] for r in subs} == {"holm over subgroups"}
    assert sum(r["n"] for r in subs) == 240 and inter["n_groups"] == 4 and inter["p_value"] < 0.05
    overall = [r for r in recs if "record" not in r]
    assert len(overall) == 1 and overall[0]["n"] == 240  # the overall comparison is kept beside them
    code, js, _ = cli("summarize", path, "--by", "subject", "--min-size", "100", "--json")
    recs = json.loads(js)["results"]
    subs = [r for r in recs if r.get("record") == "subgroup"]
    assert len(subs) == 8 and all(r["small"] for r in subs if r["n_items"] < 100)
    assert len([r for r in recs if r.get("record") == "interaction"]) == 2
    code, out, _ = cli("summarize", path, "--by", "subject")
    out = " ".join(out.split())
    assert code == 0 and "does the mean differ across subject?" in out


def test_cli_by_errors_and_routes(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from evaladdon.analysis.options import RoutePolicy

    path = _csv(tmp_path)
    code, _, err = cli("compare", path, "--by", "nosuch")
    assert code == 2 and "--by nosuch" in err and "Traceback" not in err
    code, _, err = cli("summarize", path, "--by", "subject", "--min-size", "0")
    assert code == 2 and "--min-size 0" in err
    code, _, err = cli("compare", path, "--by", "subject", "--metric", "f1_macro")
    assert code == 2 and "--by" in err
    assert cli("ingest", path, "--store", tmp_path / "st")[0] == 0
    seen: list = []
    code, out, _ = cli("compare", "--store", tmp_path / "st", "--by", "subject", routes=RoutePolicy(observe=seen.append))
    assert code == 0 and seen[-1].route == "table" and "by subject" in out
    code, out, _ = cli("summarize", "--store", tmp_path / "st", "--by", "subject", routes=RoutePolicy(observe=seen.append))
    assert code == 0 and seen[-1].route == "table" and "store_groups" in dict(seen[-1].declined)


def test_real_lm_eval_doc_field_and_inspect_flips(cli, real_logs: Path) -> None:  # type: ignore[no-untyped-def]
    """lm-eval samples of two repeats of one task, split by the doc field ``slot``: three subgroups
    that add up to the 20 shared docs, each flagged small; the runs agree on every doc, so the
    interaction test is not computed and says why (never a number from a zero variance)."""
    d = real_logs / "lmeh_pr3936_negotiationtom_repeats" / "Qwen__Qwen3-8B"
    a, b = sorted(d.glob("samples_negotiationtom_belief_*.jsonl"))[:2]
    code, js, _ = cli("compare", a, b, "--by", "slot", "--json")
    recs = json.loads(js)["results"]
    subs = [r for r in recs if r.get("record") == "subgroup"]
    assert code == 0 and {r["subgroup"] for r in subs} == {"high", "medium", "low"}
    assert sum(r["n"] for r in subs) == 20 and all(r["small"] for r in subs)
    (inter,) = [r for r in recs if r.get("record") == "interaction"]
    assert inter["p_value"] is None and "undefined" in inter["note"]
    code, out, _ = cli("compare", a, b, "--by", "slot")
    out = " ".join(out.split())
    assert code == 0 and "high" in out and "not tested" in out


def test_a_field_with_more_values_than_subgroups_is_refused(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    """``--by`` on a field with a value per few items (a passage id: 5,000 values took 3 minutes
    and gave a 5,000-row table) is refused in one line naming the field and ``--cluster``; at the
    limit it is served."""
    from evaladdon.analysis.subgroups import MAX_SUBGROUPS

    rng = np.random.default_rng(1)
    for k, n_values in ((0, MAX_SUBGROUPS + 1), (1, MAX_SUBGROUPS)):
        n = 2 * n_values
        paths = []
        for run in ("A", "B"):
            f = tmp_path / f"{run}{k}.csv"
            pd.DataFrame({"run": run, "task": "t", "metric": "acc", "item": [f"i{i}" for i in range(n)],
                          "value": (rng.random(n) < 0.6).astype(float),
                          "passage": [f"p{i // 2}" for i in range(n)]}).to_csv(f, index=False)
            paths.append(f)
        for command in ("compare", "summarize"):
            code, out, err = cli(command, *paths, "--by", "passage", "--json")
            if k == 0:
                assert code == 2 and "Traceback" not in err, err
                assert f"--by passage has {MAX_SUBGROUPS + 1} values" in err and "--cluster passage" in err
                assert len(err.strip().splitlines()) == 1
            else:
                assert code == 0, err
                subgroups = {r["subgroup"] for r in json.loads(out)["results"] if r.get("record") == "subgroup"}
                assert len(subgroups) == MAX_SUBGROUPS
