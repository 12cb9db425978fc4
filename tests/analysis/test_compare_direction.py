"""Comparisons, the gate, the gate policy, ranks and flips follow each metric's direction
(evaladdon.table.direction): for a metric where lower is better, B clearly lower passes the gate
and B clearly higher fails it; the difference stays B - A; the mirror for higher-is-better is as
before.  Oracles: the sign of the simulated shift, the gate of the negated interval, the
ranking of the negated scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaladdon.analysis.compare_table import compare_table
from evaladdon.analysis.flips import find_flips
from evaladdon.analysis.gate_policy import GO, NO_GO, judge
from evaladdon.analysis.policy import parse_policy
from evaladdon.analysis.rank import score_rankings
from evaladdon.errors import EvalAddonError
from evaladdon.stats.paired.gate import NO_REGRESSION, REGRESSION
from evaladdon.stats.ranking.ranking import rank_models
from evaladdon.table import finalize
from evaladdon.table.direction import ATTR


def table(metric: str, shift: float, declared: dict | None = None, n: int = 200, seed: int = 0) -> pd.DataFrame:
    """Two runs of ``metric`` on ``n`` items, B = A + ``shift`` + noise (continuous, not in [0, 1])."""
    rng = np.random.default_rng(seed)
    a = rng.normal(20.0, 3.0, n)
    b = a + shift + rng.normal(0.0, 0.5, n)
    rows = [pd.DataFrame({"run": run, "source": f"{run}.csv", "harness": "table", "task": "lm", "model": run,
                          "metric": metric, "item": [f"q{i}" for i in range(n)], "epoch": 1, "value": v,
                          "raw": [str(x) for x in v], "cluster": None, "item_hash": None, "error": None})
            for run, v in (("A", a), ("B", b))]
    df = finalize(pd.concat(rows, ignore_index=True))
    if declared is not None:
        df.attrs[ATTR] = declared
    return df


def one(df: pd.DataFrame, **kw: object) -> object:
    (r,) = compare_table(df, [("A", "B")], margin=0.0, **kw)  # type: ignore[arg-type]
    return r


@pytest.mark.parametrize("metric,declared,better", [
    ("word_perplexity,none", None, None),  # a built-in name
    ("loss", {"lm": {"loss": True}}, None),  # the log declares it (lm-eval: higher_is_better false)
    ("loss", None, "lower"),  # the user's word (--better lower)
])
def test_lower_is_better_gate(metric: str, declared: dict | None, better: str | None) -> None:
    down = one(table(metric, -2.0, declared), better=better)  # B clearly lower: better
    up = one(table(metric, +2.0, declared), better=better)  # B clearly higher: worse
    assert down.lower_is_better and up.lower_is_better
    assert down.comparison.delta < -1.5 and up.comparison.delta > 1.5  # B - A itself, never negated
    assert down.gate.decision == NO_REGRESSION
    assert up.gate.decision == REGRESSION
    assert down.flat()["lower_is_better"] is True and down.flat()["delta"] == down.comparison.delta


def test_higher_is_better_unchanged() -> None:
    down, up = one(table("loss", -2.0)), one(table("loss", +2.0))
    assert not down.lower_is_better and "lower_is_better" not in down.flat()
    assert down.gate.decision == REGRESSION and up.gate.decision == NO_REGRESSION


def test_declared_direction_beats_the_built_in_name() -> None:
    r = one(table("perplexity", -2.0, {"lm": {"perplexity": False}}))
    assert not r.lower_is_better and r.gate.decision == REGRESSION


def test_contradicting_the_log_is_refused() -> None:
    with pytest.raises(EvalAddonError, match="contradicts the log"):
        one(table("loss", -2.0, {"lm": {"loss": True}}), better="higher")


def test_declarations_survive_a_metric_selection() -> None:
    (r,) = compare_table(table("loss", 2.0, {"lm": {"loss": True}}), [("A", "B")], "loss", margin=0.0)
    assert r.lower_is_better and r.gate.decision == REGRESSION


# -- the gate policy ---------------------------------------------------------------------------------

def policy(**extra: object) -> object:
    return parse_policy({"benchmarks": [{"task": "lm", "tier": "critical", "max_drop": "0.5", **extra}]}, "p.yaml")


def verdict(df: pd.DataFrame, pol: object) -> object:
    results = compare_table(df, [("A", "B")], adjust="none")
    return judge(pol, {"auto": results}).benchmarks[0]  # type: ignore[arg-type]


def test_policy_lower_is_better_where_nothing_is_declared() -> None:
    down, up = table("loss", -2.0), table("loss", +2.0)
    assert verdict(down, policy()).verdict == NO_GO  # default: higher is better
    assert verdict(up, policy()).verdict == GO
    got_down, got_up = verdict(down, policy(lower_is_better=True)), verdict(up, policy(lower_is_better=True))
    assert (got_down.verdict, got_up.verdict) == (GO, NO_GO)
    assert "a rise beyond" in got_up.why and "lower is better" in got_up.why


def test_policy_follows_a_declaration_and_refuses_a_contradiction() -> None:
    declared = {"lm": {"loss": True}}
    assert verdict(table("loss", +2.0, declared), policy()).verdict == NO_GO
    assert verdict(table("loss", +2.0, declared), policy(lower_is_better=True)).verdict == NO_GO
    with pytest.raises(EvalAddonError, match=r"benchmarks\[0\]\.lower_is_better"):
        verdict(table("loss", +2.0, declared), policy(lower_is_better=False))


def test_policy_field_is_a_boolean() -> None:
    with pytest.raises(EvalAddonError, match="lower_is_better"):
        policy(lower_is_better="yes")


def test_policy_equivalence_mirrors_the_gain_check() -> None:
    # lower is better, B far lower: a gain beyond the margin, so not equivalent (NO-GO in equivalence mode)
    got = verdict(table("loss", -2.0), policy(lower_is_better=True, mode="equivalence"))
    assert got.verdict == NO_GO and "a gain beyond" in got.why


# -- rank and flips ------------------------------------------------------------------------------------

def test_rank_orders_lowest_first_where_lower_is_better() -> None:
    rng = np.random.default_rng(3)
    n = 120
    runs = {"best": 10.0, "mid": 12.0, "worst": 14.0}  # perplexities: lower is better
    frames = [pd.DataFrame({"run": r, "source": f"{r}.csv", "harness": "table", "task": "lm", "model": r,
                            "metric": "perplexity", "item": [f"q{i}" for i in range(n)], "epoch": 1,
                            "value": mu + rng.normal(0, 1, n), "raw": "x", "cluster": None, "item_hash": None,
                            "error": None}) for r, mu in runs.items()]
    df = finalize(pd.concat(frames, ignore_index=True))
    (sr,) = score_rankings(df, n_boot=200)
    r = sr.result
    order = [r.models[i] for i in np.argsort(r.rank, kind="stable")]
    assert order == ["best", "mid", "worst"] and r.lower_is_better
    assert r.top_model == "best" and r.top_score == pytest.approx(float(r.mean[r.models.index("best")]))
    assert np.all(r.ci_low <= r.mean) and np.all(r.mean <= r.ci_high)
    mat = np.column_stack([df.loc[df["run"] == m, "value"].to_numpy() for m in r.models])
    neg = rank_models(-mat, list(r.models), n_boot=200, seed=0)  # the oracle: the ranking of -scores
    assert np.array_equal(neg.rank, r.rank) and np.allclose(-neg.mean, r.mean)
    (higher,) = score_rankings(df, n_boot=200, better="higher")
    assert [higher.result.models[i] for i in np.argsort(higher.result.rank, kind="stable")] == ["worst", "mid", "best"]


def test_flips_worse_is_a_rise_where_lower_is_better() -> None:
    df = table("perplexity", 0.0, n=40, seed=5)
    (fs,) = find_flips(df, [("A", "B")])
    delta = fs.flips[0].delta
    assert fs.lower_is_better and delta > 0 and fs.flips[0].kind == "rise"  # worst first: the largest rise
    assert fs.n_worse == sum(f.delta > 0 for f in fs.flips) and fs.summary()["lower_is_better"] is True
    (up,) = find_flips(df, [("A", "B")], better="higher")
    assert up.flips[0].delta < 0 and up.flips[0].kind == "drop" and "lower_is_better" not in up.summary()
