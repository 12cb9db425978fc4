"""``rank --control`` output: raw and style-controlled Bradley–Terry ratings side by side, the
style coefficients, and what was left out (``cell`` escapes everything from a log)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaladdon.report.units import interval

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.style_control import StyleControl

__all__ = ["lc_rows", "style_json", "style_lines", "style_rows"]


def _order(rank: Any) -> list[int]:
    return sorted(range(len(rank)), key=lambda i: (int(rank[i]), i))


def style_json(sc: "StyleControl") -> dict[str, Any]:
    """The JSON record of a style-controlled fit (``controlled``/``raw`` None when not fitted)."""
    out: dict[str, Any] = {"requested": list(sc.requested), "length_unit": sc.length_unit, "n_battles": sc.n_battles,
                           "n_dropped": sum(sc.dropped.values()), "dropped": dict(sc.dropped), "notes": list(sc.notes),
                           "features": [], "models": []}
    out["length_controlled"] = [
        {"model": m, "baseline": b, "n": x.n, "n_clusters": x.n_clusters, "win_rate": x.win_rate,
         "win_rate_low": x.win_rate_low, "win_rate_high": x.win_rate_high, "lc_win_rate": x.lc_win_rate,
         "lc_low": x.lc_low, "lc_high": x.lc_high, "intercept": x.intercept, "length_coef": x.length_coef,
         "length_coef_low": x.length_coef_low, "length_coef_high": x.length_coef_high,
         "n_boot": x.n_boot, "n_boot_degenerate": x.n_boot_degenerate, "level": x.level,
         "method": "AlpacaEval 2 length-controlled win rate (GLM length_controlled_v1 without the "
                   "instruction-difficulty term; plain MLE), percentile bootstrap"}
        for m, b, x in sc.lc]
    c, r = sc.controlled, sc.raw
    if c is None or r is None:
        return out
    out.update(method="bradley-terry with style covariates (Chatbot Arena style control; ties half), "
                      f"{c.interval} interval", level=c.level, n_clusters=c.n_clusters, n_boot=c.n_boot,
               n_boot_degenerate=c.n_boot_degenerate, seed=c.seed, anchor=c.anchor, scale=c.scale, base=c.base)
    out["features"] = [{"feature": f, "coef": c.coef[j], "coef_low": c.coef_low[j], "coef_high": c.coef_high[j],
                        "elo_per_sd": c.scale * c.coef[j]} for j, f in enumerate(c.features)]
    idx = {m: i for i, m in enumerate(r.models)}
    for i in _order(c.rank):
        j = idx[c.models[i]]
        out["models"].append({
            "model": c.models[i], "rating": c.rating[i], "ci_low": c.ci_low[i], "ci_high": c.ci_high[i],
            "rank": int(c.rank[i]), "rank_low": int(c.rank_low[i]), "rank_high": int(c.rank_high[i]),
            "raw_rating": r.rating[j], "raw_ci_low": r.ci_low[j], "raw_ci_high": r.ci_high[j],
            "raw_rank": int(r.rank[j]), "raw_rank_low": int(r.rank_low[j]), "raw_rank_high": int(r.rank_high[j]),
        })
    out["notes"] = list(sc.notes) + list(c.notes)
    return out


def style_rows(sc: "StyleControl", cell: Any) -> tuple[list[str], list[list[Any]]]:
    """One row per model (controlled rank order): raw rating, CI, rank range; controlled the same."""
    from evaladdon.report.text import fmt

    c, r = sc.controlled, sc.raw
    if c is None or r is None:
        return [], []
    pct = f"{c.level:.0%} CI"
    cols = ["rank", "model", "raw rating", f"raw {pct}", "raw ranks", "controlled", pct, "ranks", "change"]
    idx = {m: i for i, m in enumerate(r.models)}
    rows = []
    for i in _order(c.rank):
        j = idx[c.models[i]]
        rows.append([str(int(c.rank[i])), cell(c.models[i]), fmt(float(r.rating[j]), 1),
                     interval(float(r.ci_low[j]), float(r.ci_high[j]), digits=1),
                     interval(int(r.rank_low[j]), int(r.rank_high[j])), fmt(float(c.rating[i]), 1),
                     interval(float(c.ci_low[i]), float(c.ci_high[i]), digits=1),
                     interval(int(c.rank_low[i]), int(c.rank_high[i])), f"{c.rating[i] - r.rating[j]:+.1f}"])
    return cols, rows


def lc_rows(sc: "StyleControl", cell: Any) -> tuple[list[str], list[list[Any]]]:
    """AlpacaEval's length-controlled win rates (percent), one row per (model, baseline)."""
    from evaladdon.report.text import fmt

    if not sc.lc:
        return [], []
    pct = f"{sc.lc[0][2].level:.0%} CI"
    cols = ["model", "vs", "n", "win rate %", pct, "LC win rate %", f"LC {pct}", "length coef"]
    rows = [[cell(m), cell(b), str(x.n), fmt(x.win_rate, 1), interval(x.win_rate_low, x.win_rate_high, digits=1),
             fmt(x.lc_win_rate, 1), interval(x.lc_low, x.lc_high, digits=1), f"{x.length_coef:+.3f}"]
            for m, b, x in sc.lc]
    return cols, rows


def style_lines(sc: "StyleControl", cell: Any) -> list[str]:
    """The method line, one line per style coefficient, and the warnings (left out, notes)."""
    c = sc.controlled
    lines: list[str] = []
    if c is not None:
        unit = (f"{c.n_boot} bootstrap replicates over {c.n_clusters} clusters (seed {c.seed})"
                if c.interval == "bootstrap" else f"cluster-robust sandwich over {c.n_clusters} clusters")
        lu = f"; length in {sc.length_unit}" if sc.length_unit else ""
        lines.append(f"style control (Chatbot Arena): Bradley–Terry on {sc.n_battles} battles with the answers' "
                     f"normalised differences (a-b)/(a+b+1), standardised, as covariates{lu}; ties half; "
                     f"intervals: {unit}")
        for j, f in enumerate(c.features):
            lines.append(f"  {f}: {c.coef[j]:+.3f} log-odds per SD ({c.scale * c.coef[j]:+.1f} Elo), "
                         f"{c.level:.0%} CI {interval(float(c.coef_low[j]), float(c.coef_high[j]), digits=3)}")
    if sc.dropped:
        reasons = ", ".join(f"{v} {cell(k)}" for k, v in sc.dropped.items())
        lines.append(f"warning: style control: {sum(sc.dropped.values())} battle(s) left out ({reasons})")
    notes = list(sc.notes) + (list(c.notes) if c is not None else [])
    lines.extend(f"note: style control: {cell(n)}" for n in notes)
    return lines
