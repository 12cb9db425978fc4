"""Agreement between judges (and humans) on the same items: ``evaladdon judge agree FILES...``.

Each rater is one (run, metric) of the canonical table (an Inspect model-graded scorer, a judge's
run, a table of human labels ...); their verdicts are aligned on the item id into an items x
raters matrix (NaN where a rater did not score an item) and handed to
:func:`evaladdon.stats.agreement.agreement_coefficients` (kappas, AC1, Krippendorff's alpha with bootstrap
intervals over items, or over clusters of items when the table has them).  Results in, nothing
printed: :mod:`evaladdon.report.agreement` renders them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from evaladdon.stats.agreement import AgreementCoefficient

__all__ = ["AgreementReport", "rater_agreement"]


@dataclass
class AgreementReport:
    """The coefficients, the raters, the items seen, the rows left out (by rater) and notes."""

    coefficients: list["AgreementCoefficient"]
    raters: list[str]
    n_items: int
    categories: list[float]
    clustered: bool
    dropped: dict[str, dict[str, int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def records(self) -> list[dict[str, Any]]:
        """One JSON record per coefficient."""
        return [{"coefficient": c.name, "raters": list(c.raters), "estimate": c.estimate, "ci_low": c.ci_low,
                 "ci_high": c.ci_high, "level": c.level, "n_items": c.n_items, "n_clusters": c.n_clusters,
                 "n_boot": c.n_boot, "n_boot_undefined": c.n_boot_undefined,
                 "interval": "BCa cluster bootstrap over " + ("clusters" if self.clustered else "items")}
                for c in self.coefficients]


def _rater_names(keys: list[tuple[str, str]], labels: dict[str, str]) -> list[str]:
    """A run's label, with ``/metric`` when a run brings more than one metric."""
    runs = [r for r, _ in keys]
    return [labels.get(r, r) if runs.count(r) == 1 else f"{labels.get(r, r)}/{m}" for r, m in keys]


def _raters(table: "pd.DataFrame", labels: dict[str, str]
            ) -> tuple[list["pd.DataFrame"], list[tuple[str, str]], dict[str, dict[str, int]]]:
    """The usable rows of every (run, metric), its key, and the rows left out by rater (an error
    for epochs or an item scored twice)."""
    from evaladdon.table.usable import usable_rows

    good, keys, dropped_all = [], [], {}
    for (run, metric), group in table.groupby(["run", "metric"], sort=False):
        ok, dropped = usable_rows(group)
        name = f"{labels.get(str(run), str(run))}/{metric}"
        if dropped:
            dropped_all[name] = dict(dropped)
        if (ok["epoch"] > 1).any():
            raise EvalAddonError(f"{name}: agreement needs one verdict per item; this run has epochs")
        if ok["item"].duplicated().any():
            raise EvalAddonError(f"{name}: item {ok['item'][ok['item'].duplicated()].iloc[0]!r} is scored twice "
                                 "(several tasks share item ids? give one task per file)")
        keys.append((str(run), str(metric)))
        good.append(ok)
    return good, keys, dropped_all


def _item_clusters(table: "pd.DataFrame", items: "pd.Index") -> "pd.Series | None":
    """The cluster of every item (None when the table has no clusters; an error when some item has none)."""
    if "cluster" not in table or not table["cluster"].notna().any():
        return None
    known = table.dropna(subset=["cluster"])
    cluster = known.groupby(known["item"].astype(str))["cluster"].first().reindex(items)
    if cluster.isna().any():
        raise EvalAddonError(f"{int(cluster.isna().sum())} item(s) have no cluster id")
    return cluster


def rater_agreement(table: "pd.DataFrame", *, extra: "pd.Series | None" = None, extra_name: str = "human",
                    n_boot: int = 1000, level: float = 0.95, seed: int | None = 0) -> AgreementReport:
    """Agreement of every (run, metric) of ``table`` (and ``extra``, e.g. human labels by item id)
    on their shared items.  An error names what is wrong: fewer than two raters, epochs, no item
    scored by two raters."""
    import numpy as np
    import pandas as pd

    from evaladdon.stats.agreement import agreement_coefficients
    from evaladdon.table import run_labels

    labels = run_labels(table)
    good, keys, dropped_all = _raters(table, labels)
    names = _rater_names(keys, labels)
    cols = [pd.Series(g["value"].to_numpy(dtype=float), index=g["item"].astype(str).to_numpy()) for g in good]
    if extra is not None:
        cols.append(extra.astype(float))
        names.append(extra_name)
    if len(cols) < 2:
        raise EvalAddonError(f"agreement needs at least two raters; found {len(cols)} (runs x metrics"
                             f"{' + labels' if extra is not None else ''})")
    mat = pd.concat(cols, axis=1, keys=range(len(cols)))
    shared = mat.notna().sum(axis=1) >= 2
    notes: list[str] = []
    if not shared.any():
        raise EvalAddonError("no item is scored by two raters: are the item ids the same in every file?")
    if (~shared).any():
        notes.append(f"{int((~shared).sum())} item(s) scored by one rater only are not used")
    mat = mat[shared]
    cluster = _item_clusters(table, mat.index)
    try:
        coefs = agreement_coefficients(mat.to_numpy(), names, None if cluster is None else cluster.astype(str).to_numpy(),
                          n_boot=n_boot, level=level, seed=seed)
    except ValueError as exc:
        raise EvalAddonError(str(exc)) from None
    cats = sorted(float(v) for v in np.unique(mat.to_numpy()[~np.isnan(mat.to_numpy())]))
    return AgreementReport(coefs, names, int(len(mat)), cats, cluster is not None, dropped_all, notes)
