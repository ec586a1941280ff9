"""The bundled project templates (issue 28): a truly blank one, listed first, and domain templates.
Each one made into a project loads, validates and reviews with no error; its description is read
from template.yaml, which the new project does not get."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.model import Dimension, Target
from studio.review.runner import review_project
from studio.store import layout
from studio.store.loader import load_project
from studio.store.workspace import (
    DEFAULT_TEMPLATE,
    TEMPLATE_FILE,
    TEMPLATES_DIR,
    WorkspaceError,
    create_project,
    project_templates,
    templates,
)
from studio.validation.findings import Severity
from studio.validation.validate import validate_project
from tests.helpers import isolate_git

DOMAIN_TEMPLATES = ["clinical-safety-case", "data-operations", "finance-transaction", "it-audit", "legal-drafting"]


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_git(tmp_path / "home", monkeypatch, "Template Author", "templates@example.com")


def test_blank_comes_first_then_the_domain_templates_by_name():
    assert templates() == [DEFAULT_TEMPLATE, *DOMAIN_TEMPLATES]
    assert DEFAULT_TEMPLATE == "blank"


def test_every_template_has_a_one_line_description_of_its_own():
    described = {template.name: template.description for template in project_templates()}
    assert all(described.values()), described
    assert len(set(described.values())) == len(described)  # none copied from another
    assert all("\n" not in text and "  " not in text for text in described.values())
    assert "IT general controls" not in described["blank"]
    assert "audit" in described["it-audit"].lower()


@pytest.mark.parametrize("name", templates())
def test_a_project_from_each_template_validates_and_reviews_with_no_error(tmp_path: Path, name: str):
    root = create_project(tmp_path / name, f"new-{name}", f"New {name}", template=name).root
    assert not (root / TEMPLATE_FILE).exists()  # the description is the template's, not the project's
    assert (TEMPLATES_DIR / name / TEMPLATE_FILE).is_file()
    loaded = load_project(root)
    assert loaded.project.info is not None and loaded.project.info.id == f"new-{name}"
    assert validate_project(root) == []
    findings = review_project(root).findings
    assert [f.render() for f in findings if f.severity is Severity.ERROR] == []
    # What is left for the author: the draft criteria an expert must review.
    assert {f.code for f in findings if f.severity is Severity.WARNING} == {"weights.draft"}


def test_the_blank_template_is_the_least_a_project_needs(tmp_path: Path):
    root = create_project(tmp_path / "plain", "plain", "Plain").root  # the default template
    project = load_project(root).project
    assert project.timeline() == ["T01"]
    assert [o.path for o in project.subtasks["T01"].outputs] == ["outputs/deliverable.md"]
    assert [(d.id, d.produced_by) for d in project.info.delivery.final_deliverables] == [
        ("F1", "T01:outputs/deliverable.md")]
    assert project.materials.materials == [] and project.dependencies.handoffs == []
    assert project.references is None and not (root / layout.MATERIALS_DIR).exists()
    criteria = [criterion for _, criterion in project.all_criteria()]
    # One placeholder per thing review asks for: the output, the deliverable, the package.
    assert [(c.key, c.target) for c in criteria] == [
        ("T01-C01", Target.CHECKPOINT), ("A-01", Target.ARTIFACT), ("PKG-01", Target.PACKAGE)]
    assert all(c.review.status.value == "draft" for c in criteria)


@pytest.mark.parametrize("name", [n for n in DOMAIN_TEMPLATES if n != "finance-transaction"])
def test_a_domain_template_is_a_rubric_skeleton_an_expert_edits(name: str):
    loaded = load_project(TEMPLATES_DIR / name)
    project = loaded.project
    assert project.info.domain not in ("", "Finance")
    assert len(project.stages.stages) >= 3 and len(project.timeline()) >= 3
    for subtask_id, subtask in project.subtasks.items():
        instruction = (TEMPLATES_DIR / name / "subtasks" / subtask_id / subtask.instruction).read_text(encoding="utf-8")
        assert instruction.startswith(f"# {subtask_id}: ") and len(instruction) > 200, subtask_id
    assert len(project.dependencies.handoffs) >= 2
    deliverables = project.info.delivery.final_deliverables
    assert len(deliverables) >= 2 and {d.produced_by.split(":")[0] for d in deliverables} <= set(project.timeline())
    criteria = [project.resolve_reuse(scope, c)[1] if c.reuse_of else c for scope, c in project.all_criteria()]
    assert {c.target for c in criteria} == set(Target)
    assert {c.dimension for c in criteria} == set(Dimension)
    assert any(c.weight < 0 for c in criteria) and any(c.requires for c in criteria)
    assert any(c.reuse_of for c in project.final_rubric.criteria)
    gates = [c for c in criteria if c.gate]
    assert gates and all(c.weight == 0 for c in gates)
    assert all(c.review.status.value == "draft" for _, c in project.all_criteria())
    # A deliverable that must open (a workbook, a CSV the pipeline loads) has a fatal gate on it.
    for deliverable in deliverables:
        if deliverable.path.endswith((".xlsx", ".csv")):
            assert any(deliverable.id in c.covers for c in gates), deliverable.id


def test_an_unknown_template_is_refused_naming_the_ones_there_are(tmp_path: Path):
    with pytest.raises(WorkspaceError) as refused:
        create_project(tmp_path / "x", "x", "X", template="tax-return")
    message = str(refused.value)
    assert "\n" not in message and "'tax-return'" in message
    assert f"available: {', '.join(templates())}" in message
    assert not (tmp_path / "x").exists()
