"""What a user names and what a table holds (issue 25 item 15): a ``--metric`` no row has is
refused with the metrics that exist and the closest, in every command (Inspect's own metric names,
``accuracy``, point to the scorer); a table of predictions and labels needs no value column."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from evaladdon.adapters.long_table import read_long_table

from conftest import REPO

Cli = Callable[..., tuple[int, str, str]]
INSPECT = REPO / "sample_logs" / "inspect"


@pytest.mark.parametrize("command", [
    ("summarize", INSPECT),
    ("compare", INSPECT / "baseline.eval", INSPECT / "candidate.eval"),
    ("metrics", INSPECT / "baseline.eval"),
    ("power", "--pilot", INSPECT / "baseline.eval", INSPECT / "candidate.eval"),
])
def test_a_metric_no_row_has_lists_what_exists(cli: Cli, command: tuple[object, ...]) -> None:
    code, _, err = cli(*command, "--metric", "mach")
    assert code == 2 and "did you mean 'match'?" in err and "available: match" in err, err
    assert len(err.strip().splitlines()) == 1


def test_inspects_metric_name_points_to_the_scorer(cli: Cli) -> None:
    code, _, err = cli("summarize", INSPECT, "--metric", "accuracy")
    assert code == 2 and "available: match, model_graded_qa" in err
    assert "'accuracy' is a metric Inspect computes from a scorer's values: name the scorer instead" in err


def test_predictions_and_labels_need_no_value_column(tmp_path: Path, cli: Cli) -> None:
    path = tmp_path / "preds.csv"
    path.write_text("id,prediction,label,model\nq1,A,A,m1\nq2,B,A,m1\nq3,C,C,m1\nq4,,A,m1\n"
                    "q1,A,A,m2\nq2,A,A,m2\nq3,B,C,m2\nq4,A,A,m2\n")
    table = read_long_table(path)
    assert set(table["metric"].astype(str)) == {"correct"}
    m1 = table[table["run"].astype(str) == "m1"].sort_values("item")
    assert m1["value"].tolist()[:3] == [1.0, 0.0, 1.0] and m1["value"].isna().tolist() == [False, False, False, True]
    code, out, err = cli("summarize", path)
    assert code == 0 and "default/correct  0.667" in out and "1 missing value" in err
    code, out, _ = cli("metrics", path)
    assert code == 0 and "accuracy" in out


def test_a_value_column_still_wins(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("id,value,prediction,label\nq1,0.5,A,B\nq2,0.25,A,A\n")
    assert read_long_table(path)["value"].tolist() == [0.5, 0.25]
