"""Functions the example task's YAML references with ``!function``."""

from evaladdon.lm_eval import accuracy_with_clusters, clustered_mean, clustered_se  # noqa: F401


def process_results(doc, results):  # type: ignore[no-untyped-def]
    return accuracy_with_clusters(doc, results, gold_key="answer", cluster_field="passage_id")
