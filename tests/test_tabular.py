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


# -- xlsx files as other writers leave them -----------------------------------------------------

import re  # noqa: E402
import zipfile  # noqa: E402

import openpyxl  # noqa: E402
import pytest  # noqa: E402

from studio import tabular  # noqa: E402
from studio.agreement.reader import RatingTableError, read_rating_table  # noqa: E402
from studio.scoring import score_table  # noqa: E402
from studio.scoring.table import VerdictTableError, read_verdict_table  # noqa: E402
from studio.tabular import TableReadError  # noqa: E402

VERDICT_HEADER = ["project", "system", "scope", "criterion", "weight", "target", "dimension", "verdict"]
# Final rubric of 10 weight: C1 (4) passes, C2..C4 (2 each) fail -> 40. Without the last three rows: 100.
VERDICT_ROWS = [["P1", "A", "final", "C1", 4, "artifact", "correctness", "pass"],
                ["P1", "A", "final", "C2", 2, "artifact", "correctness", "fail"],
                ["P1", "A", "final", "C3", 2, "package", "usability", "fail"],
                ["P1", "A", "final", "C4", 2, "cross-file", "consistency", "fail"]]


def write_xlsx(path: Path, rows: list[list]) -> Path:
    workbook = openpyxl.Workbook()
    for row in rows:
        workbook.active.append(row)
    workbook.save(path)
    return path


def rewrite_member(path: Path, member: str, change) -> None:
    """Rewrite one member of the zip, as another spreadsheet writer would have written it."""
    with zipfile.ZipFile(path) as archive:
        contents = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    contents[member] = change(contents[member])
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


def stale_dimension(path: Path, rows: int) -> Path:
    rewrite_member(path, "xl/worksheets/sheet1.xml",
                   lambda xml: re.sub(rb'<dimension ref="[A-Z0-9:]+"', f'<dimension ref="A1:H{rows}"'.encode(), xml))
    return path


def test_a_stale_dimension_does_not_truncate_the_table(tmp_path: Path):
    path = stale_dimension(write_xlsx(tmp_path / "v.xlsx", [VERDICT_HEADER, *VERDICT_ROWS]), rows=2)
    truncated = openpyxl.load_workbook(path, read_only=True).worksheets[0]
    assert len(list(truncated.iter_rows(values_only=True))) == 2  # the fault: openpyxl trusts the stale ref
    rows = tabular.read_rows(path)
    assert len(rows) == 5 and rows[-1][3] == "C4"
    scores = score_table(path)
    assert scores.projects["P1"]["A"].final == 40.0  # not 100, as on the first data row alone


def test_a_stale_dimension_does_not_lose_decisions(tmp_path: Path):
    rows = [["criterion", "item", "rater", "verdict"]]
    rows += [[f"C{k}", "memo", r, "pass"] for k in range(2) for r in ("judge", "expert")]
    path = stale_dimension(write_xlsx(tmp_path / "r.xlsx", rows), rows=3)
    assert read_rating_table(path).n_decisions == 2


@pytest.mark.parametrize("column, formula", [(8, "=IF(TRUE,\"pass\",\"fail\")"), (5, "=2*2")])
def test_a_formula_without_a_saved_value_is_a_located_error(tmp_path: Path, column, formula):
    rows = [VERDICT_HEADER, *[list(r) for r in VERDICT_ROWS]]
    rows[3][column - 1] = formula  # openpyxl writes the formula and no cached value
    path = write_xlsx(tmp_path / "v.xlsx", rows)
    cell = f"{'HE'[column == 5]}4"
    with pytest.raises(TableReadError) as raised:
        tabular.read_rows(path)
    assert raised.value.cell == cell and raised.value.row == 4
    with pytest.raises(VerdictTableError) as raised_table:
        read_verdict_table(path)
    message = str(raised_table.value)
    assert f"row 4 (cell {cell})" in message and "no saved value" in message and str(path) in message


def test_a_formula_with_a_saved_value_is_read_as_its_value(tmp_path: Path):
    rows = [VERDICT_HEADER, *[list(r) for r in VERDICT_ROWS]]
    rows[3][7] = "=\"fail\""
    path = write_xlsx(tmp_path / "v.xlsx", rows)
    # Store the cached value as a calculating writer would: <c ...><f>...</f><v>fail</v></c>.
    rewrite_member(path, "xl/worksheets/sheet1.xml",
                   lambda xml: re.sub(rb'(<c r="H4"[^>]*)>(<f>[^<]*</f>)(?:<v\s*/>|<v>\s*</v>)',  # <v></v> with lxml
                                      rb'\1 t="str">\2<v>fail</v>', xml))
    assert tabular.read_rows(path)[3][7] == "fail"
    assert score_table(path).projects["P1"]["A"].final == 40.0


def test_a_formula_in_a_rating_table_is_a_located_error(tmp_path: Path):
    rows = [["criterion", "item", "rater", "verdict"], ["C1", "memo", "judge", "pass"],
            ["C1", "memo", "expert", "=\"pass\""]]
    path = write_xlsx(tmp_path / "r.xlsx", rows)
    with pytest.raises(RatingTableError, match=r"row 3, cell D3: the formula"):
        read_rating_table(path)


@pytest.mark.parametrize("suffix", [".xlsx", ".csv"])
def test_a_column_named_twice_is_an_error(tmp_path: Path, suffix):
    header = VERDICT_HEADER + ["verdict"]
    rows = [header] + [row + ["pass"] for row in VERDICT_ROWS]
    if suffix == ".xlsx":
        path = write_xlsx(tmp_path / "v.xlsx", rows)
    else:
        path = tmp_path / "v.csv"
        path.write_text("\n".join(",".join(map(str, row)) for row in rows) + "\n")
    with pytest.raises(VerdictTableError,
                       match="names a column more than once .'verdict' in (H1, I1|column 8, column 9)"):
        score_table(path)
    ratings = [["criterion", "item", "rater", "verdict", "Verdict"], ["C1", "memo", "judge", "pass", "fail"]]
    if suffix == ".xlsx":
        path = write_xlsx(tmp_path / "r.xlsx", ratings)
    else:
        path.write_text("\n".join(",".join(row) for row in ratings) + "\n")
    with pytest.raises(RatingTableError, match="names 'verdict' .(D1, E1|column 4, column 5). more than once"):
        read_rating_table(path)


def test_a_zip_bomb_is_refused_before_openpyxl_reads_it(tmp_path: Path, monkeypatch):
    path = write_xlsx(tmp_path / "bomb.xlsx", [VERDICT_HEADER, *VERDICT_ROWS])
    # 8 MB of blanks between two elements: valid XML, compressed about 1000:1.
    rewrite_member(path, "xl/worksheets/sheet1.xml",
                   lambda xml: xml.replace(b"<sheetData>", b"<sheetData>" + b" " * 8_000_000, 1))
    assert path.stat().st_size < 100_000

    def must_not_load(*args, **kwargs):
        raise AssertionError("openpyxl opened a zip bomb")

    monkeypatch.setattr(openpyxl, "load_workbook", must_not_load)
    with pytest.raises(TableReadError, match=r"unzips to 8 MiB .*save the sheet as CSV"):
        tabular.read_rows(path)
    with pytest.raises(VerdictTableError, match=str(path)):
        score_table(path)
    with pytest.raises(RatingTableError, match="unzips to"):
        read_rating_table(path)


def test_a_big_but_ordinary_workbook_is_not_a_bomb(tmp_path: Path):
    rows = [VERDICT_HEADER]
    rows += [["P1", "A", "final", f"C{k}", 1 + k % 9, "artifact", "correctness", "pass"] for k in range(20_000)]
    path = write_xlsx(tmp_path / "big.xlsx", rows)
    tabular.check_zip_size(path)  # does not raise
    assert len(tabular.read_rows(path)) == 20_001
