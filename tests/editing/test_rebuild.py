"""After an edit the project is rebuilt from the edited documents (only the touched files are
read again), and the result equals loading the saved folder afresh: models, problems, findings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.editing import Compound, InsertItem, ProjectDocuments, RemoveItem, SetValue
from studio.editing.rubric import add_criterion, set_criterion_field
from studio.store.loader import LoadedProject, load_project, reload_files
from studio.store.workspace import sample_project
from studio.validation.validate import validate_loaded

T01 = "subtasks/T01/rubric.yaml"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


def _parts(loaded: LoadedProject) -> dict[str, object]:
    project = loaded.project
    dump = {name: getattr(project, name).model_dump() if getattr(project, name) is not None else None
            for name in ("info", "stages", "materials", "dependencies", "final_rubric", "references")}
    dump["subtasks"] = [(key, value.model_dump()) for key, value in project.subtasks.items()]
    dump["checkpoint_rubrics"] = [(key, value.model_dump()) for key, value in project.checkpoint_rubrics.items()]
    dump["problems"] = sorted((p.file, p.loc, p.message, p.code) for p in loaded.problems)
    return dump


def _same_as_saved(sample: Path, documents: ProjectDocuments, before: LoadedProject, files) -> LoadedProject:
    rebuilt = reload_files(before, documents.texts(files))
    documents.save()
    fresh = load_project(sample)
    assert _parts(rebuilt) == _parts(fresh)
    assert validate_loaded(rebuilt) == validate_loaded(fresh)
    return rebuilt


@pytest.mark.parametrize("edit", [
    # valid edits in two files
    lambda d: Compound("two files", [set_criterion_field(d, "T01", "T01-C02", "weight", -9),
                                     SetValue("stages.yaml", ("stages", 0, "title"), "Diligence")]),
    # an edit that breaks the schema of one file: its model goes, its problems come
    lambda d: set_criterion_field(d, "T01", "T01-C01", "weight", "eleven"),
    # an edit that breaks a reference elsewhere: cross-file problems computed on the result
    lambda d: add_criterion(d, "final", {"id": "F-NEW", "text": "Reuses nothing real.", "reuse_of": "T01-C77",
                                         "target": "artifact", "dimension": "correctness", "weight": 3}),
    # three files at once: a title with '&' after a blank (libyaml's reader hands such text to ruamel),
    # a new first stage, a removed criterion
    lambda d: Compound("odd", [SetValue("materials.yaml", ("materials", 0, "title"), "Baseline &bank pack"),
                               InsertItem("stages.yaml", ("stages",), 0, {"id": "S0", "title": "Kick-off",
                                                                         "subtasks": []}),
                               RemoveItem(T01, ("criteria",), 2)]),
])
def test_rebuilding_from_edited_documents_equals_loading_the_saved_folder(sample: Path, edit):
    before = load_project(sample)
    before_parts = _parts(before)
    documents = ProjectDocuments(sample)
    _, changes = edit(documents).apply(documents)
    rebuilt = _same_as_saved(sample, documents, before, changes.files)
    assert _parts(before) == before_parts  # the project the window held is not changed underneath it
    assert rebuilt.project is not before.project


def test_a_file_that_is_not_part_of_the_project_is_refused(sample: Path):
    with pytest.raises(ValueError, match="brief.md is not a project YAML file"):
        reload_files(load_project(sample), {"brief.md": "# Brief\n"})


def test_the_index_answers_for_the_rebuilt_project(sample: Path):
    before = load_project(sample)
    assert before.project.checkpoint_criterion("T01-C02")[1].weight == -6
    documents = ProjectDocuments(sample)
    _, changes = set_criterion_field(documents, "T01", "T01-C02", "weight", -2).apply(documents)
    rebuilt = reload_files(before, documents.texts(changes.files))
    assert rebuilt.project.checkpoint_criterion("T01-C02")[1].weight == -2
    assert before.project.checkpoint_criterion("T01-C02")[1].weight == -6
