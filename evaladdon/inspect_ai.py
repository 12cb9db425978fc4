"""Inspect AI plug-ins (import needs ``pip install 'evaladdon[inspect]'``).

``from evaladdon.inspect_ai import clustered_se, epoch_variance, mde, paired_delta,
judge_corrected, mean_keep_epochs, epoch_tagged``; in Inspect's registry they are
``evaladdon/clustered_se`` and so on.  ``sequential_stop(...)`` is an early-stopping manager
(``Task(early_stopping=sequential_stop(width=0.1))``): stop on a confidence sequence.
"""

from evaladdon.integrations.inspect_plugin import (
    clustered_se,
    epoch_tagged,
    epoch_variance,
    judge_corrected,
    keep_epoch,
    mde,
    mean_keep_epochs,
    paired_delta,
)
from evaladdon.integrations.inspect_stopping import SequentialStop, sequential_stop

__all__ = [
    "clustered_se",
    "epoch_tagged",
    "epoch_variance",
    "judge_corrected",
    "keep_epoch",
    "mde",
    "mean_keep_epochs",
    "paired_delta",
    "SequentialStop",
    "sequential_stop",
]
