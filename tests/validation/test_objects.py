"""Which object and field a finding is about, and the file an object lives in (studio.validation.objects):
what a click on a finding, or on an explorer row, opens in the app, decided without a screen."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.editing.documents import ProjectDocuments
from studio.editing.timeline import stages_in_text
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from studio.validation.findings import Finding, Severity
from studio.validation.objects import field_at, history_file, object_of_finding


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


def finding(file: str, object_id: str | None = None) -> Finding:
    return Finding(file, 1, 1, "a problem", "some-code", Severity.ERROR, object_id=object_id)


def test_the_object_of_a_finding_is_the_one_it_names_else_the_file_it_is_in(root: Path):
    project = load_project(root).project
    assert object_of_finding(project, finding("subtasks/T01/rubric.yaml", "T01-C02")) == ("criterion", "T01-C02")
    assert object_of_finding(project, finding("materials.yaml", "M07")) == ("material", "M07")
    assert object_of_finding(project, finding("stages.yaml", "T02")) == ("subtask", "T02")
    assert object_of_finding(project, finding("subtasks/T03/rubric.yaml")) == ("rubric", "T03")
    assert object_of_finding(project, finding("subtasks/T03/instruction.md")) == ("subtask", "T03")
    assert object_of_finding(project, finding("final/rubric.yaml")) == ("rubric", "final")
    assert object_of_finding(project, finding("brief.md")) == ("project", "kestrel-refinancing")


def test_an_objects_history_is_that_of_its_file(root: Path):
    project = load_project(root).project
    assert history_file(project, "rubric", "T01") == "subtasks/T01/rubric.yaml"
    assert history_file(project, "rubric", "final") == "final/rubric.yaml"
    assert history_file(project, "material", "M07") == "materials/venlo-permit-letter.pdf"
    assert history_file(project, "material", "M99") == "materials.yaml"
    assert history_file(project, "stage", "S1") == "stages.yaml"
    assert history_file(project, "subtask", "T01") is None


def test_stages_are_read_from_the_text_even_when_it_does_not_load(root: Path):
    documents = ProjectDocuments(root)
    stages = stages_in_text(documents)
    assert stages[0][2][0] == "T01" and all(stage_id for stage_id, _, _ in stages)
    (root / "stages.yaml").write_text("stages:\n  - id: S1\n    subtasks: [T01, T02]\n  - not a stage\n",
                                      encoding="utf-8")
    assert stages_in_text(ProjectDocuments(root)) == [("S1", "", ["T01", "T02"])]


def test_the_field_at_fault_is_the_key_at_the_findings_line(tmp_path: Path):
    root = Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))
    documents = ProjectDocuments(root)
    text = (root / "subtasks" / "T02" / "subtask.yaml").read_text().splitlines()
    inputs_line = next(n for n, line in enumerate(text, 1) if line.startswith("inputs:"))
    assert field_at(documents, "subtask", "T02", "subtasks/T02/subtask.yaml", inputs_line + 1) == "inputs"
    assert field_at(documents, "subtask", "T02", "subtasks/T02/subtask.yaml", 1) in ("id", None)
    assert field_at(documents, "subtask", "T02", "materials.yaml", inputs_line) is None
    materials = (root / "materials.yaml").read_text().splitlines()
    m07_title = next(n for n, line in enumerate(materials, 1) if "Venlo depot environmental permit" in line)
    assert field_at(documents, "material", "M07", "materials.yaml", m07_title) == "title"
    assert field_at(documents, "material", "M99", "materials.yaml", m07_title) is None
