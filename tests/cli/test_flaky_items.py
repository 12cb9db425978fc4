"""``summarize --flaky`` and ``compare --max-flaky`` end to end (issue 27 item 4): per item pass
rates over epochs counted from the logs themselves, the unstable items, pass@k beside pass^k, the
gate; a real 5-epoch Inspect log set."""

from __future__ import annotations

import json
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

import pytest

from evaladdon.stats.families.flaky import wilson_arrays
from evaladdon.stats.families.passk import pass_at_k_items, pass_hat_k_items
from route_cases import errored_log

Cli = Callable[..., tuple[int, str, str]]


def _outcomes(samples: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Item -> 0/1 outcome of each scored epoch, from the samples as logged."""
    out: dict[str, list[int]] = defaultdict(list)
    for s in samples:
        if s.get("scores") and not s.get("error"):
            out[str(s["id"])].append(int(s["scores"]["match"]["value"] == "C"))
    return out


def _check(flaky: dict[str, Any], outcomes: dict[str, list[int]]) -> None:
    repeated = {k: v for k, v in outcomes.items() if len(v) >= 2}
    unstable = {k: v for k, v in repeated.items() if 0 < sum(v) < len(v)}
    assert flaky["n_items_repeated"] == len(repeated) and flaky["n_unstable"] == len(unstable)
    assert flaky["share_unstable"] == pytest.approx(len(unstable) / len(repeated))
    flips = [2 * sum(v) * (len(v) - sum(v)) / (len(v) * (len(v) - 1)) for v in repeated.values()]
    assert flaky["mean_flip_rate"] == pytest.approx(sum(flips) / len(flips))
    rows = {r["item"]: r for r in flaky["unstable"]}
    assert set(rows) == set(unstable)
    for item, v in unstable.items():
        low, high = wilson_arrays([sum(v)], [len(v)])
        assert (rows[item]["passes"], rows[item]["n"]) == (sum(v), len(v))
        assert (rows[item]["ci_low"], rows[item]["ci_high"]) == pytest.approx((low[0], high[0]))
    k = flaky["k"]
    full = [v for v in repeated.values() if len(v) >= k]
    want_at = sum(pass_at_k_items([len(v)], [sum(v)], k)[0] for v in full) / len(full)
    want_hat = sum(pass_hat_k_items([len(v)], [sum(v)], k)[0] for v in full) / len(full)
    assert flaky[f"pass@{k}"]["estimate"] == pytest.approx(want_at)
    assert flaky[f"pass^{k}"]["estimate"] == pytest.approx(want_hat)
    assert flaky[f"pass^{k}"]["estimate"] <= flaky[f"pass@{k}"]["estimate"]


@pytest.fixture(scope="module")
def epochs_logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("flaky")
    return (errored_log(root / "a.json", "flakya", 4, 0.05, 0.9, n_items=40, epochs=4),
            errored_log(root / "b.json", "flakyb", 5, 0.05, 0.5, n_items=40, epochs=4))


def test_summarize_flaky_counts_what_the_log_holds(cli: Cli, epochs_logs: tuple[Path, Path]) -> None:
    rc, out, err = cli("summarize", *epochs_logs, "--flaky", "--json")
    assert rc == 0, err
    for record, path in zip(json.loads(out)["results"], epochs_logs, strict=True):
        _check(record["flaky"], _outcomes(json.loads(path.read_text())["samples"]))
    rc, out, err = cli("summarize", epochs_logs[1], "--flaky", "3")
    assert rc == 0 and "repeated item(s) unstable" in err and "pass@4" in err and "pass^4" in err
    assert "more (--json lists all)" in err  # about half the items flip: more than 3 to list
    rc, out, _ = cli("summarize", epochs_logs[1], "--flaky", "--markdown")
    assert rc == 0 and "flaky: unstable items" in out
    rc, out, _ = cli("summarize", *epochs_logs, "--json")  # without --flaky: no flaky key (output as before)
    assert "flaky" not in json.loads(out)["results"][0]


def test_max_flaky_gate(cli: Cli, epochs_logs: tuple[Path, Path]) -> None:
    rc, out, err = cli("compare", *epochs_logs, "--max-flaky", "0.1")
    assert rc == 1 and "too many flaky items" in err
    rc, out, err = cli("compare", *epochs_logs, "--max-flaky", "0.99")
    assert rc == 0, err
    rc, out, err = cli("compare", *epochs_logs, "--max-flaky", "0.1", "--json")
    assert rc == 1
    (record,) = json.loads(out)["results"]
    assert record["flaky_b"]["run"] == "flakyb" and record["flaky_b"]["share_unstable"] > 0.1
    rc, _, err = cli("compare", *epochs_logs, "--max-flaky", "5")
    assert rc == 2 and "give a share in [0, 1)" in err


def test_real_five_epoch_log_set(cli: Cli, real_logs: Path) -> None:
    """Inspect's own log sets (three of 5 epochs of 10 samples; the one-epoch runs have no flaky
    record): every number counted from the log."""
    logs = sorted((real_logs / "inspect_ai_logsets").rglob("*.eval"))
    if not logs:
        pytest.skip("no Inspect log sets with epochs in the real-log corpus")
    seen_unstable, with_epochs = 0, 0
    for path in logs:
        rc, out, err = cli("summarize", path, "--flaky", "--json")
        assert rc == 0, err
        (record,) = json.loads(out)["results"]
        with zipfile.ZipFile(path) as zf:
            samples = [json.loads(zf.read(n)) for n in zf.namelist() if n.startswith("samples/")]
        if record["n_epochs"] == 1:
            assert record["flaky"] is None
            continue
        assert record["flaky"]["k"] == 5
        _check(record["flaky"], _outcomes(samples))
        seen_unstable += record["flaky"]["n_unstable"]
        with_epochs += 1
    assert with_epochs >= 1 and seen_unstable > 0  # some real items do flip between epochs


def test_item_ids_from_the_log_are_escaped(cli: Cli, tmp_path: Path) -> None:
    """An item id with a terminal escape and markdown table syntax reaches no output raw."""
    path = errored_log(tmp_path / "h.json", "hostile", 6, 0.0, 0.5, n_items=6, epochs=4)
    doc = json.loads(path.read_text())
    for s in doc["samples"]:
        s["id"] = "\x1b[31m|evil|" + s["id"]
    path.write_text(json.dumps(doc))
    rc, out, err = cli("summarize", path, "--flaky")
    assert rc == 0 and "unstable items" in err and "\x1b" not in err + out
    rc, out, _ = cli("summarize", path, "--flaky", "--markdown")
    assert rc == 0 and "unstable items" in out and "\x1b" not in out and "|evil|" not in out


def test_max_flaky_with_a_metric_family_is_refused(cli: Cli, epochs_logs: tuple[Path, Path]) -> None:
    rc, _, err = cli("compare", *epochs_logs, "--metric", "pass@2", "--max-flaky", "0.1")
    assert rc == 2 and "--max-flaky reads the items of a mean of item scores" in err
