"""lm-evaluation-harness plug-ins (``pip install 'evaladdon[lm-eval]'`` for the harness).

Use in a task's Python file referenced with ``!function`` from its YAML::

    from evaladdon.lm_eval import accuracy_with_clusters, clustered_mean, clustered_se

See ``examples/lm_eval/`` for a complete task.
"""

from evaladdon.integrations.lm_eval_plugin import (
    accuracy_with_clusters,
    cluster_of,
    clustered_mean,
    clustered_se,
    disable_clustered_stderr,
    enable_clustered_stderr,
    multiple_choice_accuracy,
    with_clusters,
)

__all__ = [
    "accuracy_with_clusters",
    "cluster_of",
    "clustered_mean",
    "clustered_se",
    "disable_clustered_stderr",
    "enable_clustered_stderr",
    "multiple_choice_accuracy",
    "with_clusters",
]
