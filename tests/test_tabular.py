"""The quick CSV split gives exactly what the csv module gives, on any CSV."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.tabular import read_rows


csv_field = st.text(alphabet=st.sampled_from(list("ab ,;\"\r\n1-\t\x0b\xa0")), max_size=5)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(csv_field, min_size=1, max_size=4), min_size=1, max_size=6),
       terminator=st.sampled_from(["\n", "\r\n"]))
def test_quick_csv_split_matches_csv_module(rows, terminator, tmp_path_factory):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=terminator).writerows(rows)
    path: Path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))
    expected = list(csv.reader(io.StringIO(buffer.getvalue(), newline="")))
    assert read_rows(path) == expected
