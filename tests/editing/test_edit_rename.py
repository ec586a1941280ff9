"""Renaming every kind of id in the sample: every reference follows, validation stays clean, no old
id is left in any YAML file, the subtask folder moves, and undo gives back every byte."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from studio.editing import ProjectDocuments
from studio.editing.fields import UnknownObjectError
from studio.editing.ids import IdError
from studio.editing.rename import rename
from studio.editing.rubric import RenameError
from studio.editing.session import ProjectSession
from studio.store.yamlfile import YamlDocument
from studio.validation.validate import validate_project
from tests.editing.edit_support import copy_sample, save_and_compare, snapshot


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


def _scalars(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [s for value in data.values() for s in _scalars(value)]
    if isinstance(data, list):
        return [s for value in data for s in _scalars(value)]
    return [data] if isinstance(data, str) else []


def _names(root: Path, ident: str) -> list[str]:
    """Every YAML text that names `ident`, whole or as the SUBTASK of SUBTASK:PATH, as file: text."""
    found = []
    for path in sorted(root.rglob("*.yaml")):
        for text in _scalars(YamlDocument.load(path).data):
            if text == ident or text.startswith(ident + ":"):
                found.append(f"{path.relative_to(root)}: {text}")
    return found


@pytest.mark.parametrize("kind, old, new, least", [
    ("subtask", "T06", "T06R", 20),  # stage, releases, generated from, handoffs, deliverables, covers, reference for
    ("material", "M12", "M12-RESTATED", 3),  # inputs, corrects and propagates
    ("material", "M02", "M2", 3),
    ("deliverable", "F3", "F-PRESENTATION", 2),
    ("stage", "S2", "S-MODEL", 0),
    ("reference", "R02", "R-NOTES", 0),
    ("criterion", "T06-C02", "T06-LEVERAGE", 1),
    ("project", "kestrel-refinancing", "kestrel-2026", 0),
])
def test_renaming_any_id_carries_every_reference_and_undoes_exactly(sample: Path, kind, old, new, least):
    before = snapshot(sample)
    assert len(_names(sample, old)) >= least + (kind != "subtask")  # the sample exercises the references
    session = ProjectSession(sample)
    undo, changes = session.apply(rename(session.documents, kind, old, new))
    assert changes.ids >= {old, new}
    save_and_compare(session)
    assert validate_project(sample) == []
    assert _names(sample, old) == []
    assert len(_names(sample, new)) >= least
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(sample) == before


def test_a_renamed_subtask_moves_its_folder_and_keeps_its_comments(sample: Path):
    rubric = (sample / "subtasks/T06/rubric.yaml").read_text(encoding="utf-8")
    instruction = (sample / "subtasks/T06/instruction.md").read_bytes()
    session = ProjectSession(sample)
    session.apply(rename(session.documents, "subtask", "T06", "T06R"))
    assert "T06" not in session.loaded.project.subtasks and "T06R" in session.loaded.project.subtasks
    assert session.loaded.project.timeline()[5] == "T06R"
    session.save()
    assert not (sample / "subtasks/T06").exists()
    # the instruction moves, and where it names the subtask it names it by its new id
    renamed = re.sub(rb"(?<![\w-])T06(?![\w-])", b"T06R", instruction)
    assert renamed != instruction and (sample / "subtasks/T06R/instruction.md").read_bytes() == renamed
    moved = (sample / "subtasks/T06R/rubric.yaml").read_text(encoding="utf-8")
    assert moved == rubric.replace("- T06:outputs/", "- T06R:outputs/")
    assert "id: T06-C02" in moved  # criteria keep their ids for life


@pytest.mark.parametrize("kind, old, new, error, message", [
    ("subtask", "T06", "T07", IdError, r"'T07' is already the id of the subtask in subtasks/T07/subtask.yaml"),
    ("material", "M12", "R01", IdError, "'R01' is already the id of an evaluator reference"),
    ("reference", "R01", "M01", IdError, "'M01' is already the id of a material in materials.yaml"),
    ("deliverable", "F1", "F2", IdError, "'F2' is already the id of a final deliverable in project.yaml"),
    ("stage", "S1", "S2", IdError, "'S2' is already the id of a stage in stages.yaml"),
    ("stage", "S1", "bad id", IdError, "'bad id' is not a valid stage id"),
    ("material", "M01", "M01", IdError, "material M01 already has the id 'M01'"),
    ("subtask", "T99", "T100", UnknownObjectError, "there is no subtask 'T99'"),
    ("criterion", "T06-C02", "T06-C03", RenameError, "'T06-C03' is already the id of a criterion"),
    ("handoff", "1", "2", IdError, "'handoff' objects have no id to rename"),
])
def test_a_bad_rename_is_refused_by_name_with_nothing_changed(sample: Path, kind, old, new, error, message):
    documents = ProjectDocuments(sample)
    with pytest.raises(error, match=message):
        rename(documents, kind, old, new)
    assert documents.dirty == set()


def test_a_subtask_cannot_move_onto_a_folder_with_files(sample: Path):
    (sample / "subtasks/T11").mkdir()
    (sample / "subtasks/T11/draft.md").write_text("draft\n", encoding="utf-8")
    with pytest.raises(IdError, match="the folder subtasks/T11 already holds files"):
        rename(ProjectDocuments(sample), "subtask", "T06", "T11")
