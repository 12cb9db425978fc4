"""Issue 11.8: the Inspect plug-ins say nothing false during ``inspect eval``, explain how to
name the cluster field under ``inspect score``, and name their values for what they are."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.scorer import SampleScore, Score  # noqa: E402

from evaladdon.integrations import inspect_plugin as plugin  # noqa: E402
from evaladdon.stats import clustered_se as oracle_se  # noqa: E402


def scores(n: int = 12) -> list[SampleScore]:
    return [SampleScore(score=Score(value=float(i % 3 == 0)), sample_id=f"s{i}",
                        sample_metadata={"topic": {"name": f"t{i % 4}"}}) for i in range(n)]


@pytest.fixture(autouse=True)
def fresh_warnings() -> None:
    plugin._WARNED.clear()


def test_interim_results_log_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    metric = plugin.clustered_se("topic.name")
    with caplog.at_level(logging.WARNING, logger="evaladdon"):
        assert all(math.isnan(v) for v in metric([]).values())  # the live display, before any sample
        assert all(math.isnan(v) for v in metric(scores()[:1]).values())  # one cluster so far
        full = metric(scores())
    assert not caplog.records
    values = np.array([float(i % 3 == 0) for i in range(12)])
    r = oracle_se(values, [f"t{i % 4}" for i in range(12)])
    assert full["clustered_se"] == pytest.approx(r.se_cr2) and full["clustered_se_cr1"] == pytest.approx(r.se_cr1)
    assert "se" not in full and full["n_clusters"] == 4


def test_missing_field_warns_once_with_counts(caplog: pytest.LogCaptureFixture) -> None:
    metric = plugin.clustered_se("nope")
    with caplog.at_level(logging.WARNING, logger="evaladdon"):
        metric(scores())
        metric(scores())
    assert len(caplog.records) == 1 and "12 of 12 sample(s) have no metadata field 'nope'" in caplog.text


def test_without_a_field_it_explains_or_reads_the_environment(caplog: pytest.LogCaptureFixture,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    metric = plugin.clustered_se()  # as `inspect score --metric evaladdon/clustered_se` creates it
    monkeypatch.delenv(plugin.CLUSTER_ENV, raising=False)
    with caplog.at_level(logging.WARNING, logger="evaladdon"):
        out = metric(scores())
    assert math.isnan(out["clustered_se"])
    (record,) = caplog.records
    assert "EVALADDON_CLUSTER=FIELD" in record.getMessage() and "\n" not in record.getMessage()
    monkeypatch.setenv(plugin.CLUSTER_ENV, "topic.name")
    assert metric(scores())["n_clusters"] == 4


def test_epoch_icc_is_named_apart_from_the_cluster_icc() -> None:
    assert "icc_epochs" in plugin.EPOCH_KEYS and "icc" not in plugin.EPOCH_KEYS
    assert "se" not in plugin.CLUSTER_KEYS and "se" not in plugin.JUDGE_KEYS
