"""Opt-in: the harness's own acc_clustered_stderr slot gets the clustered SE.

Importing this module (lm-eval does when it resolves the YAML's !function) enables it.
"""

from evaladdon.lm_eval import accuracy_with_clusters, clustered_mean, enable_clustered_stderr  # noqa: F401

enable_clustered_stderr()


def process_results(doc, results):  # type: ignore[no-untyped-def]
    scores = accuracy_with_clusters(doc, results, gold_key="answer", cluster_field="passage_id")
    del scores["acc_clustered_se"]  # the SE goes into acc_clustered's own _stderr slot here
    return scores
