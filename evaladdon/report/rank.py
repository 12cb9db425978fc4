"""``rank`` output: a Bradley–Terry leaderboard of preferences (with the win-rate matrix and
position bias) or score rankings per (task, metric), as JSON, markdown or terminal tables
(``cell`` escapes everything from a log: ``clean`` for a terminal, ``markdown_cell``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaladdon.report.units import interval, number

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.rank import PreferenceRanking, ScoreRanking

__all__ = ["preference_json", "score_json"]


def _order(rank: Any) -> list[int]:
    return sorted(range(len(rank)), key=lambda i: (int(rank[i]), i))


def preference_json(pr: PreferenceRanking) -> dict[str, Any]:
    r = pr.result
    models = []
    for i in _order(r.rank):
        models.append({
            "model": r.models[i], "rating": r.rating[i], "ci_low": r.ci_low[i], "ci_high": r.ci_high[i],
            "rank": int(r.rank[i]), "rank_low": int(r.rank_low[i]), "rank_high": int(r.rank_high[i]),
            "rank_ub": int(r.rank_ub[i]), "method": f"bradley-terry ({r.ties} ties), {r.interval} interval", "se": r.se[i],
            "sandwich_low": r.sandwich_low[i], "sandwich_high": r.sandwich_high[i], "battles": float(r.battles[i].sum()),
        })
    k = len(r.models)
    pairs = []
    for i in range(k):
        for j in range(k):
            if i != j and r.battles[i, j] > 0:
                pairs.append({"model_a": r.models[i], "model_b": r.models[j], "battles": float(r.battles[i, j]),
                              "win_rate": r.win_rate[i, j], "win_rate_low": r.win_rate_low[i, j],
                              "win_rate_high": r.win_rate_high[i, j], "predicted": r.predicted[i, j],
                              "predicted_low": r.predicted_low[i, j], "predicted_high": r.predicted_high[i, j]})
    return {
        "kind": "bradley_terry", "sources": pr.sources, "formats": sorted(set(pr.kinds)), "ties": r.ties,
        "tie_param": r.tie_param, "interval": r.interval, "level": r.level, "scale": r.scale, "base": r.base,
        "anchor": r.anchor, "n_battles": r.n_battles, "n_clusters": r.n_clusters, "n_boot": r.n_boot,
        "n_boot_degenerate": r.n_boot_degenerate, "seed": r.seed, "log_likelihood": r.log_likelihood,
        "models": models, "win_rates": pairs,
        "position_bias": None if pr.position is None else pr.position.to_dict(),
        "n_dropped": sum(pr.dropped.values()), "dropped": dict(pr.dropped), "notes": pr.notes + list(r.notes),
    }


def score_json(sr: ScoreRanking) -> dict[str, Any]:
    r = sr.result
    models = []
    for i in _order(r.rank):
        models.append({
            "model": r.models[i], "rating": r.mean[i], "ci_low": r.ci_low[i], "ci_high": r.ci_high[i],
            "rank": int(r.rank[i]), "rank_low": int(r.rank_low[i]), "rank_high": int(r.rank_high[i]),
            "method": "mean score; rank bounds from Holm-adjusted paired tests", "se": r.se[i],
            "boot_rank_low": int(r.boot_rank_low[i]), "boot_rank_high": int(r.boot_rank_high[i]),
            "tier": int(r.tier[i]),
        })
    return {
        "kind": "scores", "task": sr.task, "metric": sr.metric, "level": r.level, "n_items": r.n_items,
        "n_clusters": r.n_clusters, "n_boot": r.n_boot, "seed": r.seed, "method": r.method, "models": models,
        "winners_curse": {"top_model": r.top_model, "top_score": r.top_score, "optimism": r.optimism,
                          "top_corrected": r.top_corrected, "optimism_bound": r.optimism_bound},
        "n_dropped": sum(sr.dropped.values()), "dropped": dict(sr.dropped), "notes": sr.notes + list(r.notes),
        **({"lower_is_better": True} if r.lower_is_better else {}),  # present only then (records unchanged)
    }


def _rows_pref(pr: PreferenceRanking, cell: Any) -> tuple[list[str], list[list[Any]]]:
    from evaladdon.report.text import fmt

    r = pr.result
    cols = ["rank", "model", "rating", f"{r.level:.0%} CI", "rank range", "battles"]
    rows = []
    for i in _order(r.rank):
        rows.append([str(int(r.rank[i])), cell(r.models[i]), fmt(float(r.rating[i]), 1),
                     interval(float(r.ci_low[i]), float(r.ci_high[i]), digits=1),
                     interval(int(r.rank_low[i]), int(r.rank_high[i])), f"{r.battles[i].sum():g}"])
    return cols, rows


def _rows_pairs(pr: PreferenceRanking, cell: Any, limit: int = 30) -> tuple[list[str], list[list[Any]]]:
    """Pairs that met (better-ranked model first): observed and fitted win rates with intervals."""
    from evaladdon.report.text import fmt

    r = pr.result
    order = _order(r.rank)
    cols = ["model", "vs", "battles", "win rate", f"{r.level:.0%} CI", "BT fit"]
    rows = []
    for x, i in enumerate(order):
        for j in order[x + 1:]:
            if r.battles[i, j] > 0:
                rows.append([cell(r.models[i]), cell(r.models[j]), f"{r.battles[i, j]:g}", fmt(float(r.win_rate[i, j]), 3),
                             interval(float(r.win_rate_low[i, j]), float(r.win_rate_high[i, j])),
                             fmt(float(r.predicted[i, j]), 3)])
    return cols, rows if len(rows) <= limit else []


def _rows_score(sr: ScoreRanking, cell: Any) -> tuple[list[str], list[list[Any]]]:
    from evaladdon.report.text import fmt

    r = sr.result
    cols = ["rank", "model", "mean", f"{r.level:.0%} CI", "rank range", "tier"]
    rows = []
    for i in _order(r.rank):
        rows.append([str(int(r.rank[i])), cell(r.models[i]), fmt(float(r.mean[i]), 3),
                     interval(float(r.ci_low[i]), float(r.ci_high[i])),
                     interval(int(r.rank_low[i]), int(r.rank_high[i])), str(int(r.tier[i]))])
    return cols, rows


def _md_table(cols: list[str], rows: list[list[Any]]) -> str:
    head = "| " + " | ".join(cols) + " |"
    sep = "|" + "|".join("---:" if c not in ("model", "vs") else "---" for c in cols) + "|"
    return "\n".join([head, sep, *("| " + " | ".join(r) + " |" for r in rows)]) + "\n"


def _pref_lines(pr: PreferenceRanking, cell: Any) -> list[str]:
    r = pr.result
    ties = "ties split half/half" if r.ties == "half" else f"Davidson ties (nu = {r.tie_param:.3g})"
    anchor = f"{cell(r.anchor)} = {r.base:g}" if r.anchor else f"mean {r.base:g}"
    unit = (f"{r.n_boot} bootstrap replicates over {r.n_clusters} clusters (seed {r.seed})"
            if r.interval == "bootstrap" else f"cluster-robust sandwich over {r.n_clusters} clusters")
    lines = [f"Bradley–Terry on {r.n_battles:g} battles, {ties}; Elo scale (400/ln 10), {anchor}; "
             f"intervals: {unit}; rank range: {'bootstrap percentile' if r.interval == 'bootstrap' else 'Holm pairwise z'}"]
    if pr.position is not None:
        p = pr.position
        lines.append(f"position bias ({p.n_pairs} swapped pairs): agreement {p.agreement:.2f}, kappa {p.kappa:.2f}; "
                     f"first position wins {p.first_position_rate:.2f} of {p.n_decisive_games} decisive games "
                     f"(CI {interval(p.first_low, p.first_high, digits=2)}, p = {p.p_value:.3g})")
    return lines


def _score_lines(sr: ScoreRanking, cell: Any) -> list[str]:
    r = sr.result
    lower = " (lower is better: ranked lowest first)" if r.lower_is_better else ""
    return [f"{cell(sr.task)}/{cell(sr.metric)}{lower}: {r.n_items} shared items, {r.n_clusters} units; {r.method}",
            f"winner's curse: top score {number(r.top_score, 3)} ({cell(r.top_model)}) is optimistic by about "
            f"{number(r.optimism, 3)} (bootstrap; bound {number(r.optimism_bound, 3)}); "
            f"corrected {number(r.top_corrected, 3)}"]


def _warnings(dropped: dict[str, int], notes: list[str], cell: Any, what: str = "row(s)") -> list[str]:
    out = []
    if dropped:
        reasons = ", ".join(f"{v} {cell(k)}" for k, v in dropped.items())
        out.append(f"warning: {sum(dropped.values())} {what} left out ({reasons})")
    out.extend(f"note: {cell(n)}" for n in notes)
    return out
