"""The ``raw`` text of integer and boolean scores in a large long table (issue 31 item 2) is
coded from the numbers, without a string a row: the same categorical (labels, their order and
dtype, codes) as coding their text (arrow's cast to ``large_string``) with ``_few_labels``, the
oracle; with too many labels both keep the text as ``str``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaladdon.adapters import long_table as table_reader


@pytest.mark.parametrize("typ,labels", [("int8", 3), ("int64", 3), ("uint16", 3), ("bool", 2), ("int32", 1000)])
def test_numeric_raw_is_coded_as_its_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typ: str,
                                          labels: int) -> None:
    monkeypatch.setattr(table_reader, "FEW_LABELS_MIN_ROWS", 2000 if labels > 256 else 1)  # 2000: first rows probed
    values = np.random.default_rng(labels).integers(0, labels, 3000).astype(typ)
    scores = pa.chunked_array([pa.array(values[:1200]), pa.array(values[1200:])])
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"id": [f"q{i}" for i in range(3000)], "score": scores}), path, row_group_size=1000)
    got = table_reader.read_long_table(path)["raw"]
    want = table_reader._few_labels(pd.Series(scores.cast(pa.large_string()).to_pandas()))
    assert got.dtype == want.dtype
    if labels > 256:  # too many labels among the first rows: the text as it is
        assert not isinstance(got.dtype, pd.CategoricalDtype) and got.tolist() == want.tolist()
        return
    assert isinstance(got.dtype, pd.CategoricalDtype)
    assert got.cat.categories.tolist() == want.cat.categories.tolist()
    assert got.cat.categories.dtype == want.cat.categories.dtype
    assert np.array_equal(got.cat.codes.to_numpy(), want.cat.codes.to_numpy())
