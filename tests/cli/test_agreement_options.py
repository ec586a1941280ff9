"""`dbstudio agreement` refuses unusable options with a message and exit 2, before reading the
table and without writing anything (they used to end in tracebacks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from studio.cli.exit_codes import ExitCode
from studio.cli.main import main
from tests.helpers import REPO_ROOT

RATINGS = ("criterion,item,rater,verdict\n"
           "C1,run-1,judge,pass\nC1,run-1,alice,pass\n"
           "C2,run-1,judge,pass\nC2,run-1,alice,fail\n")


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "ratings.csv"
    path.write_text(RATINGS, encoding="utf-8")
    return path


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["agreement", *argv]) == ExitCode.UNUSABLE
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    return err


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("option", ["--xlsx", "--plot"])
def test_an_output_that_is_a_folder(option: str, table: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "reports"
    out.mkdir()
    err = refused(capsys, str(table), option, str(out))
    assert f"{option} {out}: is a folder; give a file name, e.g. {out}/agreement." in err
    assert files_under(out) == []


@pytest.mark.parametrize("option", ["--xlsx", "--plot"])
def test_an_output_under_a_file(option: str, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, str(table), option, str(table / "report.out"))
    assert f"{table} is a file, not a folder" in err
    assert table.read_text(encoding="utf-8") == RATINGS


def test_a_good_xlsx_is_not_written_when_the_plot_path_is_bad(table: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, str(table), "--xlsx", str(tmp_path / "ok.xlsx"), "--plot", str(tmp_path))
    assert not (tmp_path / "ok.xlsx").exists()


def test_the_same_file_for_both_outputs(table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    same = str(tmp_path / "report.out")
    assert "name the same file" in refused(capsys, str(table), "--xlsx", same, "--plot", same)
    assert not Path(same).exists()


@pytest.mark.parametrize("resamples", ["1000000000", "100001", "-1"])
def test_a_bootstrap_out_of_range(resamples: str, table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, str(table), "--bootstrap", resamples)
    assert "--bootstrap takes a number of resamples from 0 to 100,000" in err and f"{int(resamples):,}" in err


def test_a_negative_seed(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "--seed takes a number >= 0 (got -3)" in refused(capsys, str(table), "--bootstrap", "10", "--seed", "-3")


def test_the_limit_itself_is_accepted(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 100,000 resamples of 1 item is small: the limit itself is allowed and computes.
    assert main(["agreement", str(table), "--bootstrap", "100000", "--json"]) == ExitCode.OK
    assert '"resamples": 100000' in capsys.readouterr().out


def test_an_unknown_judge(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "no rater named 'gpt' (raters: judge, alice)" in refused(capsys, str(table), "--judge", "gpt")


def test_the_huge_bootstrap_in_a_real_process(table: Path, tmp_path: Path) -> None:
    xlsx = tmp_path / "report.xlsx"
    proc = subprocess.run([sys.executable, "-m", "studio.cli.main", "agreement", str(table),
                           "--bootstrap", "1000000000", "--xlsx", str(xlsx)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("dbstudio agreement: --bootstrap") and "Traceback" not in proc.stderr
    assert not xlsx.exists()
