"""No warnings about the project's own files and payloads (issue 25 item 17): the sidecar files
``lm-eval-stderr`` writes beside the results and evaladdon's lm-eval plug-in payload metrics
(``acc_clustered``, ``acc_clustered_se``) are counted in one note line, listed with ``--verbose``,
and always in ``--json``; the payload rows keep their own reason in the table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

from evaladdon.adapters import read_runs
from evaladdon.table.usable import PLUGIN_PAYLOAD

from conftest import REPO

Cli = Callable[..., tuple[int, str, str]]


def _logs_with_sidecars(tmp_path: Path, cli: Cli) -> Path:
    logs = tmp_path / "lm_eval"
    shutil.copytree(REPO / "sample_logs" / "lm_eval", logs)
    code, out, err = cli("lm-eval-stderr", logs)
    assert code == 0 and len(list(logs.rglob("*.evaladdon.json"))) == 2, out + err
    return logs


def test_sidecars_and_payloads_are_one_note(tmp_path: Path, cli: Cli) -> None:
    logs = _logs_with_sidecars(tmp_path, cli)
    code, out, err = cli("summarize", logs)
    assert code == 0 and "acc,none" in out
    assert "acc_clustered" not in err and ".evaladdon.json" not in err
    assert "note: 6 note(s) about evaladdon's own files and plug-in payloads (--verbose lists them)" in err
    code, _, err = cli("summarize", logs, "--verbose")
    assert err.count(".evaladdon.json") == 2 and err.count(PLUGIN_PAYLOAD) == 4
    code, out, _ = cli("summarize", logs, "--json")
    notes = json.loads(out)["notes"]
    assert sum(".evaladdon.json" in n for n in notes) == 2 and sum(PLUGIN_PAYLOAD in n for n in notes) == 4


def test_payload_rows_keep_their_reason() -> None:
    table = read_runs([REPO / "sample_logs" / "lm_eval"]).table
    payload = table[table["metric"].astype(str).str.contains("_clustered")]
    assert len(payload) == 480 and set(payload["error"]) == {PLUGIN_PAYLOAD}
    assert not table.loc[table["metric"].astype(str) == "acc,none", "error"].notna().any()


def test_a_users_corpus_metric_is_said(tmp_path: Path, cli: Cli) -> None:
    """Only the project's own payloads are counted away: a corpus-level metric of the user's is named,
    with where its estimate is (``metrics``; issue 25 item 13)."""
    folder = tmp_path / "run"
    folder.mkdir()
    rows = [{"doc_id": i, "doc": {"q": i}, "target": "a", "bleu": [["a"], "a"], "acc": float(i % 2),
             "filter": "none", "metrics": ["bleu", "acc"]} for i in range(6)]
    (folder / "samples_t_2026-01-01T00-00-00.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, _, err = cli("summarize", folder)
    assert code == 0 and "metric 'bleu,none': a corpus-level metric (6 per-item inputs, not scores): " \
        "`evaladdon metrics` estimates it" in err


def test_compare_and_metrics_count_the_payloads_in_one_line(cli: Cli) -> None:
    logs = REPO / "sample_logs" / "lm_eval"
    code, _, err = cli("compare", logs)
    assert code == 0 and "acc_clustered" not in err
    assert "note: 2 note(s) about evaladdon's own files and plug-in payloads (--verbose lists them)" in err
    code, _, err = cli("compare", logs, "--verbose")
    assert err.count("acc_clustered") == 2
    code, out, err = cli("metrics", logs)
    assert code == 0 and "acc_clustered" not in out + err
    assert "note: 4 group(s) of evaladdon's own lm-eval plug-in payloads left out (480 rows; --json lists them)" in out + err
    code, out, _ = cli("metrics", logs, "--json")
    assert out.count("acc_clustered") >= 4
