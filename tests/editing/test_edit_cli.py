"""`dbstudio rename` and `dbstudio material import`: the edit is written, the project validated,
and a refused edit leaves every file as it was (exit 2, a message, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli.main import main
from tests.editing.edit_support import copy_sample, snapshot


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


def test_rename_writes_every_reference_and_validates(sample: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["rename", str(sample), "material", "M12", "M12R"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Rename material M12 to M12R: ")
    assert "  materials.yaml\n" in out and "  subtasks/T06/subtask.yaml\n" in out
    assert "- M12R\n" in (sample / "subtasks/T06/subtask.yaml").read_text(encoding="utf-8")


def test_a_refused_rename_changes_nothing(sample: Path, capsys: pytest.CaptureFixture[str]):
    before = snapshot(sample)
    assert main(["rename", str(sample), "subtask", "T03", "T04"]) == 2
    err = capsys.readouterr().err
    assert err == "dbstudio rename: 'T04' is already the id of the subtask in subtasks/T04/subtask.yaml: " \
                  "pick another subtask id\n"
    assert snapshot(sample) == before


def test_material_import_copies_schedules_and_validates(sample: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]):
    source = tmp_path / "rating-letter.pdf"
    source.write_bytes(b"%PDF-1.7\nrating\n")
    code = main(["material", "import", str(sample), str(source), "--id", "M19", "--title", "Rating agency letter",
                 "--kind", "new_evidence", "--before", "T08"])
    assert code == 0, capsys.readouterr()
    assert (sample / "materials/rating-letter.pdf").read_bytes() == source.read_bytes()
    text = (sample / "materials.yaml").read_text(encoding="utf-8")
    assert "  - id: M19\n    file: rating-letter.pdf\n    title: Rating agency letter\n    kind: new_evidence\n" \
           "    provenance: original_record\n    release:\n      at: before\n      subtask: T08\n" in text


def test_an_import_that_leaves_findings_exits_1(sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    (sample / "subtasks/T02/subtask.yaml").write_text(
        (sample / "subtasks/T02/subtask.yaml").read_text(encoding="utf-8").replace("  - M06\n", "  - M99\n"),
        encoding="utf-8")
    source = tmp_path / "a.csv"
    source.write_text("a,b\n", encoding="utf-8")
    assert main(["material", "import", str(sample), str(source), "--id", "M19", "--title", "A table",
                 "--kind", "source_record"]) == 1
    captured = capsys.readouterr()
    assert "unknown material 'M99'" in captured.out and "1 problem found after the edit" in captured.err


def test_not_a_project_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["rename", str(tmp_path), "stage", "S1", "S9"]) == 2
    assert f"{tmp_path}: not a project folder" in capsys.readouterr().err
