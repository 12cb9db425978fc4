"""``analysis.sequential``: runs read in logged order, paired on items, decided as the gate decides.

Oracle: the same items taken by hand from the table in logged order and fed to
:func:`evaladdon.stats.paired_sequence` / :func:`evaladdon.stats.first_decision`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaladdon.analysis.options import Effect, InputOptions, SequentialOptions
from evaladdon.analysis.sequential import EPOCHS_RUNNING, NOT_IN_BASELINE, sequential_results
from evaladdon.errors import EvalAddonError
from evaladdon.stats.sequential.decide import first_decision, paired_sequence


def _table(n: int = 400, drop: float = 0.25, seed: int = 1, epochs: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = (rng.random(n) < 0.7).astype(float)
    cand = np.where(rng.random(n) < drop, 0.0, base)
    order = rng.permutation(n)  # the candidate finished its items in another order
    rows = []
    for run, vals, idx in (("A", base, np.arange(n)), ("B", cand, order)):
        for i in idx:
            for e in range(1, epochs + 1):
                rows.append({"run": run, "source": f"{run}.csv", "harness": "table", "task": "t", "model": run,
                             "metric": "acc", "item": f"q{i:04d}", "epoch": e, "value": vals[i], "raw": str(vals[i]),
                             "cluster": None, "item_hash": None, "error": None})
    return pd.DataFrame(rows)


def _opts(**kw: object) -> SequentialOptions:
    return SequentialOptions(InputOptions(paths=("x",)), **kw)  # type: ignore[arg-type]


def test_pair_in_the_candidates_logged_order_matches_the_stats_oracle() -> None:
    df = _table()
    (res,), notes = sequential_results(df, _opts(baseline="A", margin=Effect("2pt", 2, True)))
    b = df[df.run == "B"]
    a = df[df.run == "A"].set_index("item")["value"]
    x_b = b["value"].to_numpy()
    x_a = a.reindex(b["item"]).to_numpy()
    ref = first_decision(paired_sequence(x_a, x_b), margin=0.02)
    assert (res.decision, res.decided_at, res.saved) == (ref.decision, ref.t, ref.saved)
    assert res.decision == "regression" and res.saved > 0 and res.stop_high is not None and res.stop_high < -0.02
    assert res.n == 400 and res.points and notes == []
    assert res.estimate == pytest.approx(x_b.mean() - x_a.mean())


def test_live_reading_waits_for_every_epoch_and_counts_what_it_left_out() -> None:
    df = _table(n=50, epochs=2)
    cand = df[df.run == "B"]
    partial = pd.concat([df[df.run == "A"], cand.iloc[:-1]])  # the last item has one of its two epochs
    (res,), _ = sequential_results(partial, _opts(baseline="A", live=True))
    assert res.n == 49 and res.left_out == {EPOCHS_RUNNING: 1}
    (res,), _ = sequential_results(partial, _opts(baseline="A", live=False))
    assert res.n == 50


def test_items_missing_from_the_baseline_are_counted_and_one_run_has_no_decision() -> None:
    df = _table(n=60)
    df = df[~((df.run == "A") & df.item.isin(["q0001", "q0002"]))]
    (res,), _ = sequential_results(df, _opts(baseline="A"))
    assert res.left_out == {NOT_IN_BASELINE: 2} and res.n == 58
    (one,), _ = sequential_results(df[df.run == "B"], _opts())
    assert one.baseline is None and one.margin is None and one.decision == "undecided"
    assert one.ci_low <= df[df.run == "B"]["value"].mean() <= one.ci_high


def test_unbounded_scores_use_the_mixture_and_clusters_are_refused(tmp_path: Path) -> None:
    df = _table(n=80)
    df["value"] = df["value"] * 5 + 1
    (res,), notes = sequential_results(df, _opts(baseline="A"))
    assert res.method.startswith("normal mixture") and not res.points and "outside [0, 1]" in notes[0]
    with pytest.raises(EvalAddonError, match="--cluster"):
        sequential_results(df, SequentialOptions(InputOptions(paths=("x",), cluster="topic")))


def test_lower_is_better_reads_the_gate_on_the_mirrored_sequence() -> None:
    """B's error indicator rises (B worse when lower is better): with ``--better lower`` (or the
    log's declaration) the decision is the gate's on ``A - B``; oracle: the stats core fed the
    runs the other way round.  Higher-is-better stays as it was."""
    df = _table(drop=0.0)
    df.loc[df.run == "B", "value"] = np.where(np.random.default_rng(5).random(400) < 0.25, 1.0,
                                              df.loc[df.run == "B", "value"].to_numpy())  # B scores rise
    b = df[df.run == "B"]
    x_b = b["value"].to_numpy()
    x_a = df[df.run == "A"].set_index("item")["value"].reindex(b["item"]).to_numpy()
    margin = Effect("2pt", 2, True)
    (higher,), _ = sequential_results(df, _opts(baseline="A", margin=margin))
    assert higher.decision != "regression" and not higher.lower_is_better
    (lower,), _ = sequential_results(df, _opts(baseline="A", margin=margin, better="lower"))
    ref = first_decision(paired_sequence(x_b, x_a), margin=0.02)  # the runs the other way round
    assert (lower.decision, lower.decided_at, lower.saved) == (ref.decision, ref.t, ref.saved) == (
        "regression", ref.t, ref.saved)
    assert lower.lower_is_better and lower.stop_low == pytest.approx(-ref.high) and lower.stop_low > 0.02
    assert (lower.estimate, lower.ci_low, lower.ci_high) == (higher.estimate, higher.ci_low, higher.ci_high)
    declared = df.copy()
    declared.attrs["lower_is_better"] = {"t": {"acc": True}}
    (said,), _ = sequential_results(declared, _opts(baseline="A", margin=margin))
    assert (said.decision, said.decided_at) == (lower.decision, lower.decided_at)
    with pytest.raises(EvalAddonError, match="contradicts"):
        sequential_results(declared, _opts(baseline="A", margin=margin, better="higher"))
