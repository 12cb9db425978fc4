from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
REAL_LOGS = SHARED / "real_logs"


@pytest.fixture
def real_logs() -> Path:
    if not REAL_LOGS.is_dir():
        pytest.skip("../shared/real_logs is not present (a user's fresh clone)")
    return REAL_LOGS
