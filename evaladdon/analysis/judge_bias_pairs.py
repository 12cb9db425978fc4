"""Judge-bias diagnostics on pairwise verdicts (MT-bench pair judgments, Arena battles, AlpacaEval
annotations): position, length, markdown and self-preference in one regression.

Per file kind, a least-squares fit (:func:`evaladdon.stats.robust_ols.robust_ols`, CR2 SEs over
the prompts) of the first-shown answer's score ``y`` (1 win, 0.5 tie, 0 loss, as the file records
it, the first-shown answer being ``model_a`` / ``model_1`` / ``output_1``) on

* one strength per model (+1 for the first-shown model, -1 for the other; the first model is the
  reference), a linear-probability Bradley–Terry, so the biases are measured *between answers of
  models of given strength*;
* ``position``: the intercept (the score is centred at 1/2) -- the first-shown answer's advantage
  over an even chance; identified because each model is shown in both places.  MT-bench judges
  every pair in both orders (``g1``, ``g2``): both verdicts enter, so the same two answers are seen
  in both places (FastChat's merged verdict would average the position away);
* ``length``: log2 of the length ratio (first / second, +1 each; tokens for Arena, characters
  for AlpacaEval and MT-bench) -- the change in the first answer's score per doubling of its
  relative length;
* ``headers``, ``lists``, ``bold``: whether the first answer has the element minus whether the
  second has (FastChat's markdown counts, :mod:`evaladdon.adapters.preference_style`);
* ``self-preference``: the first answer's model is of the judge's family minus the second's
  (:func:`evaladdon.analysis.judge_bias.model_family`), with the judge named in the file (MT-bench, AlpacaEval
  annotator) or ``judge_model``; with one judge this is a function of the model strengths and is
  not identified (said in a note): it needs several judges, or human labels.

Holm across the biases reported.  Battles whose answers' features are not logged are left out of
the style terms' fit and counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evaladdon.analysis.judge_bias import BiasReport, model_family
from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["pairwise_bias"]


def _strengths(b: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    models = sorted(set(b["model_a"].astype(str)) | set(b["model_b"].astype(str)))
    a, bb = b["model_a"].astype(str).to_numpy(), b["model_b"].astype(str).to_numpy()
    cols = [(a == m).astype(float) - (bb == m).astype(float) for m in models[1:]]
    return (np.column_stack(cols) if cols else np.zeros((len(b), 0))), [f"model {m}" for m in models[1:]]


def _style(b: pd.DataFrame) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    if "length_a" in b.columns:
        la, lb = b["length_a"].to_numpy(dtype=float), b["length_b"].to_numpy(dtype=float)
        out["length"] = np.log2((la + 1.0) / (lb + 1.0))
        for feat, name in (("header", "headers"), ("list", "lists"), ("bold", "bold")):
            out[name] = (b[f"{feat}_a"].to_numpy(dtype=float) > 0).astype(float) - \
                (b[f"{feat}_b"].to_numpy(dtype=float) > 0).astype(float)
            out[name][np.isnan(b[f"{feat}_a"].to_numpy(dtype=float))] = np.nan
    return out


def _families(names: pd.Series) -> np.ndarray:
    """Each name's :func:`model_family`, one call per distinct name (not per battle)."""
    codes, uniques = names.astype(str).factorize()
    return np.asarray([model_family(u) for u in uniques], dtype=object)[codes]


def _self_preference(b: pd.DataFrame, judge_model: str | None, notes: list[str]) -> np.ndarray | None:
    if judge_model is None and b["judge"].isna().all():
        return None
    fam_of_judge = (np.full(len(b), model_family(judge_model), dtype=object) if judge_model is not None
                    else _families(b["judge"]))
    x = (_families(b["model_a"]) == fam_of_judge).astype(float) - (_families(b["model_b"]) == fam_of_judge).astype(float)
    if len(set(fam_of_judge)) < 2:
        notes.append("self-preference: one judge, so a judge's preference for its own family cannot be told from "
                     "its family's strength (it needs several judges or human labels)")
        return None
    return x


def _both_orders(b: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """MT-bench: each pair judged in both orders (g1: model_1 first; g2: model_2 first, its verdict
    given for model_1) as two rows, each with the first-shown answer as ``a`` -- the same answers
    in both places, so the position term is measured within a pair."""
    import pandas as pd

    first = b.assign(outcome=games["g1"].to_numpy(dtype=float))
    swap = {"model_a": "model_b", "model_b": "model_a"}
    for feat in ("length", "header", "list", "bold"):
        if f"{feat}_a" in b.columns:
            swap.update({f"{feat}_a": f"{feat}_b", f"{feat}_b": f"{feat}_a"})
    second = b.rename(columns=swap).assign(outcome=1.0 - games["g2"].to_numpy(dtype=float))
    return pd.concat([first, second[first.columns]], ignore_index=True)


def _usable_style(b: pd.DataFrame, notes: list[str]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    feats = {n: x for n, x in _style(b).items() if not np.isnan(x).all()}
    if not feats:
        notes.append("the file logs no answers' features (lengths, markdown): only position is estimated")
    keep = np.ones(len(b), dtype=bool)
    for x in feats.values():
        keep &= ~np.isnan(x)
    if not keep.all():
        notes.append(f"{int((~keep).sum())} battle(s) without the answers' features logged: left out")
    return feats, keep


def _fit(b: pd.DataFrame, kind: str, judge_model: str | None, level: float) -> BiasReport:
    from evaladdon.stats import adjust_pvalues
    from evaladdon.stats.robust_ols import robust_ols

    notes: list[str] = []
    strengths, names = _strengths(b)
    feats, keep = _usable_style(b, notes)
    sp = _self_preference(b, judge_model, notes)
    if sp is not None:
        feats["self-preference"] = sp
    biases = [n for n, x in feats.items() if keep.any() and np.ptp(x[keep]) > 0]
    X = np.column_stack([np.ones(int(keep.sum())), strengths[keep]] + [feats[n][keep] for n in biases])
    y = b["outcome"].to_numpy(dtype=float)[keep] - 0.5  # the intercept is the first position's advantage
    clusters = b["item"].astype(str).to_numpy()[keep]
    if keep.sum() <= X.shape[1] + 1:
        raise EvalAddonError(f"{kind}: {int(keep.sum())} battles are too few for {X.shape[1]} regressors")
    coefs = robust_ols(y, X, ["position", *names, *biases], clusters, level)
    found = list(coefs[1 + len(names):])
    rank = np.linalg.matrix_rank(X)
    if np.linalg.matrix_rank(X[:, 1:]) < rank:  # the intercept is not a combination of the strengths
        found.insert(0, coefs[0])
    else:
        notes.append("position: each model is shown in one place only, so the first place's advantage cannot be "
                     "told from the models' strengths (not estimated)")
    if rank < X.shape[1] and len(found) > 0:
        notes.append("some regressors are collinear with the models' strengths; their effects are not identified")
    p = adjust_pvalues(np.array([c.p_value for c in found]), "holm", nan_policy="omit").tolist() if found else []
    return BiasReport(kind, "pairwise verdict", "first-shown answer's score - 1/2", int(keep.sum()),
                      len(set(clusters)), list(zip(found, map(float, p), strict=True)), notes)


def pairwise_bias(paths: list[str], *, judge_model: str | None = None, level: float = 0.95,
                  notes: list[str] | None = None) -> tuple[list[BiasReport], dict[str, int]]:
    """One :class:`BiasReport` per kind of preference file among ``paths``, and the battles left out;
    the reader's notes (files not read, draws, inconsistent orders) are appended to ``notes``."""
    from evaladdon.adapters.preferences import read_preferences

    prefs = read_preferences(paths, style=True)
    if notes is not None:
        notes.extend(prefs.notes)
    battles = prefs.battles
    if battles.empty:
        raise EvalAddonError("no pairwise verdicts in these files")
    kinds = battles["kind"].astype(str) if "kind" in battles.columns else None
    groups = [("preferences", battles)] if kinds is None else list(battles.groupby(kinds, sort=True))
    reports = []
    for kind, b in groups:
        if kind == "mtbench" and len(prefs.games) == len(b):  # both position orders logged: one row each
            b = _both_orders(b.reset_index(drop=True), prefs.games.reset_index(drop=True))
        reports.append(_fit(b, str(kind), judge_model, level))
    return reports, dict(prefs.dropped)
