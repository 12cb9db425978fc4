"""Pure statistics: arrays in, frozen result dataclasses out.  Knows nothing of files.

Names are imported lazily (PEP 562 module ``__getattr__``): ``from evaladdon.stats import X``
loads only the module that defines ``X``, so a command that needs one interval does not pay
for scipy.stats, the bootstrap and the rest at start-up.  Every name in :data:`__all__` is
available as before; add a new one to :data:`_WHERE` (name -> module).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

_WHERE: dict[str, str] = {
    "Result": "evaladdon.stats._base.result",
    "json_safe": "evaladdon.stats._base.result",
    "BootstrapResult": "evaladdon.stats.bootstrap",
    "bootstrap_mean": "evaladdon.stats.bootstrap",
    "bootstrap_totals": "evaladdon.stats.bootstrap",
    "ratio_of_totals": "evaladdon.stats.bootstrap",
    "ClusteredSE": "evaladdon.stats.cluster",
    "clustered_se": "evaladdon.stats.cluster",
    "satterthwaite_df_intercept": "evaladdon.stats.cluster",
    "EpochVariance": "evaladdon.stats.epochs",
    "epoch_variance": "evaladdon.stats.epochs",
    "PROPORTION_METHODS": "evaladdon.stats.intervals",
    "Interval": "evaladdon.stats.intervals",
    "ProportionInterval": "evaladdon.stats.intervals",
    "proportion_interval": "evaladdon.stats.intervals",
    "t_interval": "evaladdon.stats.intervals",
    "GateDecision": "evaladdon.stats.paired.gate",
    "regression_gate": "evaladdon.stats.paired.gate",
    "CorrectedDifference": "evaladdon.stats.judge",
    "CorrectedRate": "evaladdon.stats.judge",
    "JudgeAgreement": "evaladdon.stats.judge",
    "PPIResult": "evaladdon.stats.judge",
    "corrected_difference": "evaladdon.stats.judge",
    "judge_agreement": "evaladdon.stats.judge",
    "ppi_mean": "evaladdon.stats.judge",
    "rogan_gladen": "evaladdon.stats.judge",
    "rogan_gladen_bootstrap": "evaladdon.stats.judge",
    "PLAN_TESTS": "evaladdon.stats.power",
    "PowerCurve": "evaladdon.stats.power",
    "PowerPlan": "evaladdon.stats.power",
    "Retrodesign": "evaladdon.stats.power",
    "binary_unpaired_variance": "evaladdon.stats.power",
    "epoch_item_variance": "evaladdon.stats.power",
    "mcnemar_exact_power": "evaladdon.stats.power",
    "plan": "evaladdon.stats.power",
    "power_curve": "evaladdon.stats.power",
    "power_normal": "evaladdon.stats.power",
    "retrodesign": "evaladdon.stats.power",
    "Discordance": "evaladdon.stats.paired.mcnemar",
    "McNemarResult": "evaladdon.stats.paired.mcnemar",
    "discordance": "evaladdon.stats.paired.mcnemar",
    "mcnemar": "evaladdon.stats.paired.mcnemar",
    "MEAN_METHODS": "evaladdon.stats.mean",
    "MeanEstimate": "evaladdon.stats.mean",
    "estimate_mean": "evaladdon.stats.mean",
    "ADJUST_METHODS": "evaladdon.stats.paired.multiple",
    "CochranQResult": "evaladdon.stats.paired.multiple",
    "adjust_pvalues": "evaladdon.stats.paired.multiple",
    "cochrans_q": "evaladdon.stats.paired.multiple",
    "PAIRED_INTERVALS": "evaladdon.stats.paired.paired",
    "PAIRED_TESTS": "evaladdon.stats.paired.paired",
    "PairedComparison": "evaladdon.stats.paired.paired",
    "compare_paired": "evaladdon.stats.paired.paired",
    "PAIRED_BINARY_METHODS": "evaladdon.stats.paired.paired_binary",
    "paired_binary_interval": "evaladdon.stats.paired.paired_binary",
    "PermutationResult": "evaladdon.stats.paired.permutation",
    "sign_flip_test": "evaladdon.stats.paired.permutation",
}

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.stats._base.result import Result  # noqa: F401
    from evaladdon.stats._base.result import json_safe  # noqa: F401
    from evaladdon.stats.bootstrap import BootstrapResult  # noqa: F401
    from evaladdon.stats.bootstrap import bootstrap_mean  # noqa: F401
    from evaladdon.stats.bootstrap import bootstrap_totals  # noqa: F401
    from evaladdon.stats.bootstrap import ratio_of_totals  # noqa: F401
    from evaladdon.stats.cluster import ClusteredSE  # noqa: F401
    from evaladdon.stats.cluster import clustered_se  # noqa: F401
    from evaladdon.stats.cluster import satterthwaite_df_intercept  # noqa: F401
    from evaladdon.stats.epochs import EpochVariance  # noqa: F401
    from evaladdon.stats.epochs import epoch_variance  # noqa: F401
    from evaladdon.stats.intervals import PROPORTION_METHODS  # noqa: F401
    from evaladdon.stats.intervals import Interval  # noqa: F401
    from evaladdon.stats.intervals import ProportionInterval  # noqa: F401
    from evaladdon.stats.intervals import proportion_interval  # noqa: F401
    from evaladdon.stats.intervals import t_interval  # noqa: F401
    from evaladdon.stats.paired.gate import GateDecision  # noqa: F401
    from evaladdon.stats.paired.gate import regression_gate  # noqa: F401
    from evaladdon.stats.judge import CorrectedDifference  # noqa: F401
    from evaladdon.stats.judge import CorrectedRate  # noqa: F401
    from evaladdon.stats.judge import JudgeAgreement  # noqa: F401
    from evaladdon.stats.judge import PPIResult  # noqa: F401
    from evaladdon.stats.judge import corrected_difference  # noqa: F401
    from evaladdon.stats.judge import judge_agreement  # noqa: F401
    from evaladdon.stats.judge import ppi_mean  # noqa: F401
    from evaladdon.stats.judge import rogan_gladen  # noqa: F401
    from evaladdon.stats.judge import rogan_gladen_bootstrap  # noqa: F401
    from evaladdon.stats.power import PLAN_TESTS  # noqa: F401
    from evaladdon.stats.power import PowerCurve  # noqa: F401
    from evaladdon.stats.power import PowerPlan  # noqa: F401
    from evaladdon.stats.power import Retrodesign  # noqa: F401
    from evaladdon.stats.power import binary_unpaired_variance  # noqa: F401
    from evaladdon.stats.power import epoch_item_variance  # noqa: F401
    from evaladdon.stats.power import mcnemar_exact_power  # noqa: F401
    from evaladdon.stats.power import plan  # noqa: F401
    from evaladdon.stats.power import power_curve  # noqa: F401
    from evaladdon.stats.power import power_normal  # noqa: F401
    from evaladdon.stats.power import retrodesign  # noqa: F401
    from evaladdon.stats.paired.mcnemar import Discordance  # noqa: F401
    from evaladdon.stats.paired.mcnemar import McNemarResult  # noqa: F401
    from evaladdon.stats.paired.mcnemar import discordance  # noqa: F401
    from evaladdon.stats.paired.mcnemar import mcnemar  # noqa: F401
    from evaladdon.stats.mean import MEAN_METHODS  # noqa: F401
    from evaladdon.stats.mean import MeanEstimate  # noqa: F401
    from evaladdon.stats.mean import estimate_mean  # noqa: F401
    from evaladdon.stats.paired.multiple import ADJUST_METHODS  # noqa: F401
    from evaladdon.stats.paired.multiple import CochranQResult  # noqa: F401
    from evaladdon.stats.paired.multiple import adjust_pvalues  # noqa: F401
    from evaladdon.stats.paired.multiple import cochrans_q  # noqa: F401
    from evaladdon.stats.paired.paired import PAIRED_INTERVALS  # noqa: F401
    from evaladdon.stats.paired.paired import PAIRED_TESTS  # noqa: F401
    from evaladdon.stats.paired.paired import PairedComparison  # noqa: F401
    from evaladdon.stats.paired.paired import compare_paired  # noqa: F401
    from evaladdon.stats.paired.paired_binary import PAIRED_BINARY_METHODS  # noqa: F401
    from evaladdon.stats.paired.paired_binary import paired_binary_interval  # noqa: F401
    from evaladdon.stats.paired.permutation import PermutationResult  # noqa: F401
    from evaladdon.stats.paired.permutation import sign_flip_test  # noqa: F401


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'evaladdon.stats' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


class _Package(types.ModuleType):
    """Keeps exported names that share a submodule's name (``mcnemar``) bound to the function.

    Importing a submodule binds it on its package; eagerly, ``from .mcnemar import mcnemar``
    then rebound the name to the function.  Lazily the submodule may be imported later (by
    another stats module), so that binding is declined here and the name resolves through
    :func:`__getattr__` to the exported object, as before.  The old path
    ``evaladdon.stats.mcnemar`` is an alias of ``evaladdon.stats.paired.mcnemar``, so the module
    bound under an exported name may carry another ``__name__``: any module is declined there.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in _WHERE:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "CorrectedDifference",
    "CorrectedRate",
    "JudgeAgreement",
    "PPIResult",
    "PowerCurve",
    "PowerPlan",
    "Retrodesign",
    "binary_unpaired_variance",
    "corrected_difference",
    "epoch_item_variance",
    "judge_agreement",
    "mcnemar_exact_power",
    "plan",
    "PLAN_TESTS",
    "power_curve",
    "power_normal",
    "ppi_mean",
    "retrodesign",
    "rogan_gladen",
    "rogan_gladen_bootstrap",
    "ADJUST_METHODS",
    "PAIRED_BINARY_METHODS",
    "PAIRED_INTERVALS",
    "PAIRED_TESTS",
    "CochranQResult",
    "Discordance",
    "GateDecision",
    "McNemarResult",
    "PairedComparison",
    "PermutationResult",
    "adjust_pvalues",
    "cochrans_q",
    "compare_paired",
    "discordance",
    "mcnemar",
    "paired_binary_interval",
    "regression_gate",
    "sign_flip_test",
    "MEAN_METHODS",
    "PROPORTION_METHODS",
    "BootstrapResult",
    "ClusteredSE",
    "EpochVariance",
    "Interval",
    "MeanEstimate",
    "ProportionInterval",
    "Result",
    "bootstrap_mean",
    "bootstrap_totals",
    "clustered_se",
    "epoch_variance",
    "estimate_mean",
    "json_safe",
    "proportion_interval",
    "ratio_of_totals",
    "satterthwaite_df_intercept",
    "t_interval",
]
