"""Style-controlled ratings (``rank --control length,markdown``): Bradley–Terry with the two
answers' style differences as covariates (Chatbot Arena's style control,
:mod:`evaladdon.stats.ranking.style_bt`), beside the uncontrolled fit on the same battles.

Results in, nothing printed: :mod:`evaladdon.report.style_control` renders them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from evaladdon.stats.lc_winrate import LengthControlledWinRate
    from evaladdon.stats.ranking.bradley_terry import BradleyTerryResult
    from evaladdon.stats.ranking.style_bt import StyleControlResult

__all__ = ["CONTROLS", "StyleControl", "parse_controls", "style_control"]

CONTROLS: dict[str, tuple[str, ...]] = {
    "length": ("length",), "markdown": ("header", "list", "bold"),
    "header": ("header",), "list": ("list",), "bold": ("bold",),
}


@dataclass
class StyleControl:
    """The controlled fit (None when no battle logs the features), the raw fit on the same
    battles, the features used, the length unit, and the battles left out with their reasons."""

    controlled: "StyleControlResult | None"
    raw: "BradleyTerryResult | None"
    requested: tuple[str, ...]
    length_unit: str | None
    n_battles: int
    dropped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    lc: list[tuple[str, str, "LengthControlledWinRate"]] = field(default_factory=list)
    """AlpacaEval's length-controlled win rate per (model, baseline), for AlpacaEval annotations."""


def parse_controls(text: str) -> tuple[str, ...]:
    """``length,markdown`` -> the style features (``length``, ``header``, ``list``, ``bold``);
    a ValueError naming an unknown control."""
    feats: list[str] = []
    for part in (p.strip().lower() for p in text.split(",")):
        if part not in CONTROLS:
            raise ValueError(f"unknown --control {part!r} (choose from {', '.join(CONTROLS)})")
        feats.extend(f for f in CONTROLS[part] if f not in feats)
    return tuple(feats)


def _usable(bt: "pd.DataFrame", feats: tuple[str, ...], dropped: dict[str, int]) -> np.ndarray:
    """Battles whose requested features are all logged (the rest counted in ``dropped``)."""
    cols = [f"{f}_{s}" for f in feats for s in ("a", "b")]
    if not set(cols) <= set(bt.columns):
        keep = np.zeros(len(bt), bool)
    else:
        keep = bt[cols].notna().all(axis=1).to_numpy()
    missing = int((~keep).sum())
    if missing:
        dropped["style features not logged (answers' text or Arena conv_metadata absent)"] = missing
    return keep


def style_control(bt: "pd.DataFrame", feats: tuple[str, ...], cluster: np.ndarray | None, anchor: str | None,
                  n_boot: int, seed: int | None, level: float) -> StyleControl:
    """Fit both models on the battles ``bt`` (the battle table with style columns) that log every
    feature in ``feats``; ``cluster`` is the resampling unit per battle (None: each battle)."""
    from evaladdon.stats.ranking.bradley_terry import bradley_terry
    from evaladdon.stats.ranking.style_bt import arena_style_features, style_bradley_terry

    dropped: dict[str, int] = {}
    notes: list[str] = []
    keep = _usable(bt, feats, dropped)
    if not keep.any():
        notes.append("no battle logs the answers' " + "/".join(feats) + ": no controlled ratings (Arena battles "
                     "need conv_metadata; AlpacaEval needs output_1/output_2; MT-bench the judge prompt)")
        return StyleControl(None, None, feats, None, 0, dropped, notes)
    sub = bt[keep]
    xa = sub[[f"{f}_a" for f in feats]].to_numpy(dtype=float)
    xb = sub[[f"{f}_b" for f in feats]].to_numpy(dtype=float)
    z, varies = arena_style_features(xa, xb)
    differ = (xa != xb).sum(axis=0)
    for f, n_diff, v in zip(feats, differ, varies, strict=True):
        if v and n_diff < 10:
            notes.append(f"{f} differs between the two answers in only {int(n_diff)} battle(s): its coefficient "
                         "is poorly determined")
    used = tuple(f for f, v in zip(feats, varies, strict=True) if v)
    for f, v in zip(feats, varies, strict=True):
        if not v:
            notes.append(f"{f}: no difference between the two answers in any battle; left out of the control")
    units = sub["length_unit"].dropna().unique().tolist() if "length" in used else []
    cl = None if cluster is None else cluster[keep]
    a, b, y = sub["model_a"].to_numpy(), sub["model_b"].to_numpy(), sub["outcome"].to_numpy(dtype=float)
    try:
        res = style_bradley_terry(a, b, y, z[:, varies], used, cl, anchor=anchor, n_boot=n_boot, level=level,
                                  seed=seed)
        raw = bradley_terry(a, b, y, cl, ties="half", anchor=anchor, n_boot=n_boot, level=level, seed=seed,
                            interval="bootstrap" if n_boot else "sandwich")
    except ValueError as exc:  # not identifiable, not connected, a model that never loses: said, not raised
        notes.append(f"no controlled ratings: {exc}")
        return StyleControl(None, None, feats, None, int(keep.sum()), dropped, notes)
    out = StyleControl(res, raw, feats, " and ".join(sorted(units)) or None, int(keep.sum()), dropped, notes)
    if "length" in feats and "kind" in sub and (sub["kind"] == "alpaca_eval").any():
        out.lc = alpaca_lc(sub[(sub["kind"] == "alpaca_eval").to_numpy()], cl if cl is None else
                           cl[(sub["kind"] == "alpaca_eval").to_numpy()], n_boot, seed, level, notes)
    return out


def alpaca_lc(bt: "pd.DataFrame", cluster: np.ndarray | None, n_boot: int, seed: int | None, level: float,
              notes: list[str]) -> list[tuple[str, str, "LengthControlledWinRate"]]:
    """AlpacaEval's length-controlled win rate of every generator_2 against its generator_1
    (:func:`evaladdon.stats.lc_winrate.length_controlled_winrate`; one GLM per pair, as AlpacaEval
    fits one per model)."""
    from evaladdon.stats.lc_winrate import length_controlled_winrate

    out = []
    keys = bt["model_b"].astype(str) + "\x1f" + bt["model_a"].astype(str)
    for key, idx in bt.groupby(keys.to_numpy(), sort=True).indices.items():  # one fit per pair, not per row
        model, baseline = str(key).split("\x1f", 1)
        g = bt.iloc[idx]
        try:
            res = length_controlled_winrate(1.0 - g["outcome"].to_numpy(dtype=float), g["length_b"].to_numpy(dtype=float),
                                            g["length_a"].to_numpy(dtype=float), None if cluster is None else cluster[idx],
                                            n_boot=n_boot, level=level, seed=seed)
        except ValueError as exc:
            notes.append(f"length-controlled win rate of {model} vs {baseline}: {exc}")
            continue
        out.append((model, baseline, res))
    if out:
        notes.append("length-controlled win rate: AlpacaEval's GLM (length term tanh of the standardised length "
                     "difference) fitted by plain maximum likelihood on these annotations; AlpacaEval's leaderboard "
                     "adds an instruction-difficulty term and regularisation from its own data, so its number can "
                     "differ slightly")
    return out
