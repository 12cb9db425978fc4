"""Regenerate ``sample_logs/lm_eval/``: real ``lm_eval`` runs, offline.

Runs the harness's own command with the ``dummy`` model (random log-likelihoods, made
reproducible and different by ``--seed``) on the local-json tasks of ``examples/lm_eval``:
``evaladdon_clustered_example`` (multiple choice, docs carry ``passage_id``; reports ``acc``
beside evaladdon's ``acc_clustered``/``acc_clustered_se``) and
``evaladdon_repeats_example`` (``repeats: 3``).  Two runs, seeds 1 and 2, for pairing.

    python scripts/make_lm_eval_logs.py [OUT_DIR]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TASKS = "evaladdon_clustered_example,evaladdon_repeats_example"


def run(out_dir: Path, seeds: tuple[int, ...] = (1, 2)) -> list[Path]:
    """Run ``lm_eval`` once per seed; return the folders holding results and samples."""
    out_dir.mkdir(parents=True, exist_ok=True)
    folders = []
    for seed in seeds:
        name = f"dummy-seed{seed}"
        shutil.rmtree(out_dir / name, ignore_errors=True)
        cmd = [
            sys.executable, "-m", "lm_eval", "--model", "dummy", "--model_args", f"pretrained={name}",
            "--tasks", TASKS, "--include_path", "examples/lm_eval", "--output_path", str(out_dir),
            "--log_samples", "--seed", str(seed),
        ]
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"lm_eval failed ({proc.returncode}): {proc.stderr[-2000:]}")
        folders.append(out_dir / name)
    return folders


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "sample_logs" / "lm_eval"
    for folder in run(target):
        print(f"wrote {folder}")
