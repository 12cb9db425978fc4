"""Pure statistics: arrays in, frozen result dataclasses out.  Knows nothing of files."""

from evaladdon.stats._result import Result, json_safe
from evaladdon.stats.bootstrap import BootstrapResult, bootstrap_mean, bootstrap_totals, ratio_of_totals
from evaladdon.stats.cluster import ClusteredSE, clustered_se, satterthwaite_df_intercept
from evaladdon.stats.epochs import EpochVariance, epoch_variance
from evaladdon.stats.intervals import (
    PROPORTION_METHODS,
    Interval,
    ProportionInterval,
    proportion_interval,
    t_interval,
)
from evaladdon.stats.gate import GateDecision, regression_gate
from evaladdon.stats.judge import (
    CorrectedDifference,
    CorrectedRate,
    JudgeAgreement,
    PPIResult,
    corrected_difference,
    judge_agreement,
    ppi_mean,
    rogan_gladen,
    rogan_gladen_bootstrap,
)
from evaladdon.stats.power import (
    PLAN_TESTS,
    PowerCurve,
    PowerPlan,
    Retrodesign,
    binary_unpaired_variance,
    epoch_item_variance,
    mcnemar_exact_power,
    plan,
    power_curve,
    power_normal,
    retrodesign,
)
from evaladdon.stats.mcnemar import Discordance, McNemarResult, discordance, mcnemar
from evaladdon.stats.mean import MEAN_METHODS, MeanEstimate, estimate_mean
from evaladdon.stats.multiple import ADJUST_METHODS, CochranQResult, adjust_pvalues, cochrans_q
from evaladdon.stats.paired import PAIRED_INTERVALS, PAIRED_TESTS, PairedComparison, compare_paired
from evaladdon.stats.paired_binary import PAIRED_BINARY_METHODS, paired_binary_interval
from evaladdon.stats.permutation import PermutationResult, sign_flip_test

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
