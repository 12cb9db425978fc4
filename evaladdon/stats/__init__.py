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
from evaladdon.stats.mean import MEAN_METHODS, MeanEstimate, estimate_mean

__all__ = [
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
