"""`dbstudio verdicts import PROJECT TABLE --submission NAME --rater RATER [--system NAME]` on a copy
of the sample: a filled template (tests/cli/test_score_project.py's alpha and beta) goes into the
verdict store, and the store then scores exactly as the table does; a table that does not check
against the project stores nothing and names the cell."""

from __future__ import annotations

import shutil
from pathlib import Path

import openpyxl
import pytest

from studio.judging.verdict_store import VerdictStore
from studio.store.workspace import sample_project
from tests.cli.test_score_project import PROJECT_ID, filled, score_json, template, verdict_for
from tests.helpers import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / PROJECT_ID))


def test_the_store_scores_as_the_table_does(project: Path, tmp_path: Path, capsys):
    table, _, rows = filled(project, tmp_path)
    code, out, err = run_cli(capsys, "verdicts", "import", str(project), str(table), "--system", "alpha",
                             "--submission", "upload-alpha", "--rater", "Marta Lindqvist")
    assert code == 0, err
    alpha_rows = [r for r in rows if r["system"] == "alpha"]
    assert f"stored {len(alpha_rows)} verdicts of alpha as Marta Lindqvist's on upload-alpha (0 blank" in out
    code, out, err = run_cli(capsys, "verdicts", "import", str(project), str(table), "--system", "beta",
                             "--submission", "upload-beta", "--rater", "judge:other-tool")
    assert code == 0, err and "(1 blank, left missing)" in out
    stored = VerdictStore(project).read("upload-beta", "judge:other-tool")
    assert len(stored) == len(alpha_rows) - 1 and {v.verdict for v in stored} == {"pass", "fail"}
    assert all(v.note == "imported from verdicts.csv (system beta)" for v in stored)

    code, from_table, err = score_json(capsys, str(table), "--project", str(project))
    assert code == 0, err
    code, from_store, err = score_json(capsys, "--project", str(project))
    assert code == 0, err
    renamed = {"upload-alpha": "alpha", "upload-beta": "beta"}
    in_store = {renamed[name]: value for name, value in from_store["projects"][PROJECT_ID].items()}
    in_table = from_table["projects"][PROJECT_ID]
    # the same numbers, key by key (a table also lists the rows it lacks: none here)
    assert all(in_table[system].pop("absent") == [] for system in in_table)
    assert in_store == in_table
    assert in_table["alpha"]["final"] == pytest.approx(90.21, abs=0.01)  # 129 / 143, by hand


def test_a_table_that_does_not_check_stores_nothing(project: Path, tmp_path: Path, capsys):
    out = template(project, tmp_path / "verdicts.xlsx", "alpha")
    book = openpyxl.load_workbook(out)
    sheet = book.active
    header = [cell.value for cell in sheet[1]]
    for row in sheet.iter_rows(min_row=2):
        values = dict(zip(header, [c.value for c in row], strict=True))
        row[header.index("verdict")].value = verdict_for({k: str(v) for k, v in values.items()})
    typo = sheet.cell(row=5, column=header.index("weight") + 1)
    typo.value = int(typo.value) + 1
    book.save(out)
    code, _, err = run_cli(capsys, "verdicts", "import", str(project), str(out), "--submission", "upload",
                           "--rater", "Anna")
    assert code == 1 and f"{typo.coordinate}" in err and "nothing was imported" in err
    assert VerdictStore(project).submissions() == []


@pytest.mark.parametrize("extra, message", [
    ([], "holds the verdicts of 2 systems (alpha, beta): choose one with --system"),
    (["--system", "gamma"], "has no rows of system 'gamma'"),
    (["--system", "alpha", "--rater", "adjudicated"], "settled verdicts are given by adjudicating"),
    (["--system", "alpha", "--submission", "../x"], "cannot name a folder of the verdict store"),
])
def test_bad_requests_are_refused_clearly(project: Path, tmp_path: Path, capsys, extra: list[str], message: str):
    table, _, _ = filled(project, tmp_path)
    args = ["verdicts", "import", str(project), str(table), "--submission", "upload", "--rater", "Anna", *extra]
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and message in err, err
    assert VerdictStore(project).submissions() == []


def test_missing_operands_say_what_import_takes(project: Path, capsys):
    code, _, err = run_cli(capsys, "verdicts", "import", str(project))
    assert code == 2 and "--submission NAME" in err and "--rater RATER" in err
