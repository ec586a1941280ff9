"""`dbstudio new --domain --role`: the new project says so, and the finance-transaction template shows
every feature an author needs (each with a comment) and validates and reviews with 0 errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.model import MaterialKind
from studio.store.loader import load_project
from studio.store.yamlfile import YamlDocument
from tests.helpers import SCAFFOLD_TEMPLATE, git, isolate_git, run_cli


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_git(tmp_path / "home", monkeypatch, "Cli Author", "cli@example.com")


@pytest.fixture
def created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = tmp_path / "lease-review"
    code, _, err = run_cli(capsys, "new", str(root), "--id", "lease-review", "--title", "Lease portfolio review",
                       "--domain", "Law", "--role", "Junior  real-estate associate",
                       "--template", "finance-transaction")
    assert (code, err) == (0, "")
    return root


def test_domain_and_role_land_in_project_yaml_with_its_comments(created: Path) -> None:
    data = YamlDocument.load(created / "project.yaml").data
    assert (data["id"], data["domain"], data["role"]) == ("lease-review", "Law", "Junior real-estate associate")
    assert "# DeliverBench project definition" in (created / "project.yaml").read_text(encoding="utf-8")
    assert git(created, "status", "--porcelain") == ""  # committed with the rest


def test_without_them_the_template_keeps_its_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "plain"
    assert run_cli(capsys, "new", str(root), "--id", "plain", "--title", "Plain",
                   "--template", "finance-transaction")[0] == 0
    data = YamlDocument.load(root / "project.yaml").data
    template = YamlDocument.load(SCAFFOLD_TEMPLATE / "project.yaml").data
    assert (data["domain"], data["role"]) == (template["domain"], template["role"])


@pytest.mark.parametrize("option", ["--domain", "--role"])
def test_a_blank_domain_or_role_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["new", str(tmp_path / "x"), "--id", "x", "--title", "X", option, "  "])
    assert exit_.value.code == 2
    assert "give a non-empty text" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_the_new_project_validates_and_reviews_with_no_error(created: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "validate", str(created))
    assert code == 0 and out.startswith("OK: 2 subtasks")
    code, out, _ = run_cli(capsys, "review", str(created), "--format", "json")
    findings = json.loads(out)["findings"]
    assert code == 0
    assert [f for f in findings if f["severity"] == "error"] == []
    # What is left is what an author must do anyway: have the draft criteria reviewed.
    assert {f["code"] for f in findings if f["severity"] == "warning"} <= {"weights.draft"}


def test_the_template_shows_every_feature_each_with_a_comment(created: Path) -> None:
    project = load_project(created).project
    criteria = [criterion for _, criterion in project.all_criteria()]
    gate = next(c for c in criteria if c.gate)
    negative = next(c for c in criteria if c.weight is not None and c.weight < 0)
    requiring = next(c for c in criteria if c.requires)
    propagating = next(c for c in criteria if c.propagates)
    materials = project.materials.materials
    generated = next(m for m in materials if m.generated is not None)
    correction = next(m for m in materials if m.corrects)
    assert generated.kind is MaterialKind.SCRIPTED_FEEDBACK and (created / generated.generated.script).is_file()
    assert correction.id in propagating.propagates
    assert project.references is not None and project.references.references
    assert any(c.reuse_of for c in project.final_rubric.criteria)

    def comment_before(rel: str, marker: str) -> str:
        """The comment lines just above the line holding `marker`, joined."""
        lines = (created / rel).read_text(encoding="utf-8").splitlines()
        at = next(i for i, line in enumerate(lines) if marker in line)
        block: list[str] = []
        while at > 0 and lines[at - 1].strip().startswith("#"):
            at -= 1
            block.insert(0, lines[at].strip())
        return " ".join(block)

    for rel, marker in [("subtasks/T02/rubric.yaml", f"id: {gate.key}"),
                        ("subtasks/T02/rubric.yaml", f"id: {negative.key}"),
                        ("subtasks/T02/rubric.yaml", f"id: {requiring.key}"),
                        ("subtasks/T02/rubric.yaml", f"id: {propagating.key}"),
                        ("materials.yaml", f"id: {generated.id}"),
                        ("materials.yaml", f"id: {correction.id}"),
                        ("evaluator/references.yaml", f"id: {project.references.references[0].id}")]:
        assert comment_before(rel, marker).startswith("#"), (rel, marker)
    assert "gate" in comment_before("subtasks/T02/rubric.yaml", f"id: {gate.key}")
    assert "negative" in comment_before("subtasks/T02/rubric.yaml", f"id: {negative.key}")
    assert "requires" in comment_before("subtasks/T02/rubric.yaml", f"id: {requiring.key}")
    assert "propagates" in comment_before("subtasks/T02/rubric.yaml", f"id: {propagating.key}")
    assert "generated" in comment_before("materials.yaml", f"id: {generated.id}")
