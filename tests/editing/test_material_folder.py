"""A folder of materials at once: each file proposed (id, title, kind, release) from its name, in date
order; imported as one undoable edit; the command line lists the proposals first."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing.material_folder import import_proposals, propose_materials
from studio.editing.materials import MaterialError
from studio.editing.session import ProjectSession
from studio.store.loader import load_project
from studio.validation.validate import validate_project
from tests.editing.edit_support import copy_sample, save_and_compare, snapshot
from tests.helpers import run_cli


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, text in (("2026-05-02_lender-comments.md", "Comments"), ("board-minutes-2025.pdf", "%PDF-1.4"),
                       ("T09-signing-checklist-template.md", "| item |"), ("2026-04-21_rate-update.csv", "a,b\n"),
                       (".DS_Store", "x"), ("~$open.xlsx", "lock")):
        (inbox / name).write_text(text, encoding="utf-8")
    (inbox / "sub").mkdir()
    return inbox


def test_each_file_is_proposed_from_its_name(sample: Path, folder: Path) -> None:
    session = ProjectSession(sample)
    proposals = propose_materials(session.documents, folder, session.loaded.project.timeline())
    assert [p.source.name for p in proposals] == ["2026-04-21_rate-update.csv", "2026-05-02_lender-comments.md",
                                                  "board-minutes-2025.pdf", "T09-signing-checklist-template.md"]
    assert [p.material_id for p in proposals] == ["M19", "M20", "M21", "M22"]  # after the sample's M18
    assert [(p.kind, p.before) for p in proposals] == [("new_evidence", None), ("client_feedback", None),
                                                       ("source_record", None), ("template", "T09")]
    assert proposals[1].title == "Lender comments" and "dated 2026-05-02" in proposals[1].why
    assert "the name names T09" in proposals[3].why


def test_the_proposals_import_as_one_undoable_edit(sample: Path, folder: Path) -> None:
    before = snapshot(sample)
    session = ProjectSession(sample)
    proposals = propose_materials(session.documents, folder, session.loaded.project.timeline())
    proposals[2] = proposals[2].with_choice(kind="new_evidence", before="T02")  # the expert's correction
    undo, _ = session.apply(import_proposals(session.documents, proposals))
    save_and_compare(session)
    project = load_project(sample).project
    assert project.material("M21").kind.value == "new_evidence" and project.material("M21").release.subtask == "T02"
    assert (sample / "materials/board-minutes-2025.pdf").is_file()
    assert validate_project(sample) == []
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(sample) == before


def test_bad_folders_and_clashing_ids_are_refused(sample: Path, folder: Path, tmp_path: Path) -> None:
    session = ProjectSession(sample)
    with pytest.raises(MaterialError, match="not a folder"):
        propose_materials(session.documents, tmp_path / "nowhere", [])
    (tmp_path / "empty").mkdir()
    with pytest.raises(MaterialError, match="no file to import"):
        propose_materials(session.documents, tmp_path / "empty", [])
    proposals = propose_materials(session.documents, folder, [])
    clash = [proposals[0], proposals[1].with_choice(material_id=proposals[0].material_id)]
    with pytest.raises(MaterialError, match="is given to two files"):
        import_proposals(session.documents, clash)


def test_the_command_line_lists_then_imports(sample: Path, folder: Path, capsys) -> None:
    before = snapshot(sample)
    code, out, err = run_cli(capsys, "material", "import-folder", str(sample), str(folder), "--dry-run")
    assert code == 0 and "M19" in out and "before T09" in out and "dry run, nothing imported" in err
    assert snapshot(sample) == before
    code, out, _ = run_cli(capsys, "material", "import-folder", str(sample), str(folder))
    assert code == 0 and "Import 4 materials" in out
    assert load_project(sample).project.material("M22").release.subtask == "T09"
