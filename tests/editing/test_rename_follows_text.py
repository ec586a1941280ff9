"""A rename reaches the Markdown too: an instruction or the brief that names a material, a subtask or an
output path follows it; an output path renamed updates every SUBTASK:PATH, check and text; the preview
lists every change before anything is applied; and undo is one step back to every byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing.ids import IdError
from studio.editing.rename import rename, rename_output, rename_preview
from studio.editing.session import ProjectSession
from studio.validation.validate import validate_project
from tests.editing.edit_support import copy_sample, save_and_compare, snapshot
from tests.helpers import run_cli

OLD = "outputs/open_issues_register.md"
NEW = "outputs/issues_register.md"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


def _mentions(root: Path, text: str) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md") if text in p.read_text(encoding="utf-8")
                  and "evaluator" not in p.parts and "materials" not in p.parts)


def test_renaming_a_material_updates_the_instructions_that_name_it_and_undoes_in_one_step(sample: Path) -> None:
    before = snapshot(sample)
    named = _mentions(sample, "M12")
    assert named == ["subtasks/T06/instruction.md", "subtasks/T07/instruction.md", "subtasks/T08/instruction.md"]
    session = ProjectSession(sample)
    undo, _ = session.apply(rename(session.documents, "material", "M12", "M12R"))
    save_and_compare(session)
    assert _mentions(sample, "M12R") == named
    for rel in named:
        text = (sample / rel).read_text(encoding="utf-8")
        assert "M12R" in text and "M12 " not in text and "M12," not in text
    assert validate_project(sample) == []
    session.apply(undo)  # one undo step: the YAML and the three instructions
    save_and_compare(session)
    assert snapshot(sample) == before


def test_an_id_is_matched_as_a_whole_word(sample: Path) -> None:
    instruction = sample / "subtasks/T06/instruction.md"
    instruction.write_text(instruction.read_text(encoding="utf-8") + "\nRead M01, not M012 or XM01-B.\n",
                           encoding="utf-8")
    session = ProjectSession(sample)
    session.apply(rename(session.documents, "material", "M01", "M1"))
    save_and_compare(session)
    assert instruction.read_text(encoding="utf-8").endswith("\nRead M1, not M012 or XM01-B.\n")


def test_renaming_an_output_path_updates_every_reference_check_and_text(sample: Path) -> None:
    before = snapshot(sample)
    texts = _mentions(sample, OLD)
    assert len(texts) == 5
    rubric = sample / "subtasks/T09/rubric.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8") + f"""\
  - id: T09-C99
    text: The register is carried into the checklist.
    covers:
      - T09:outputs/signing_readiness_checklist.md
    target: checkpoint
    dimension: completeness
    weight: 1
    check:
      kind: file_exists
      path: {OLD}
""", encoding="utf-8")
    session = ProjectSession(sample)
    command = rename_output(session.documents, "T03", OLD, NEW)
    undo, _ = session.apply(command)
    save_and_compare(session)
    assert _mentions(sample, OLD) == []
    assert _mentions(sample, NEW) == texts
    yaml_text = "".join(p.read_text(encoding="utf-8") for p in sample.rglob("*.yaml"))
    assert f"T03:{OLD}" not in yaml_text and yaml_text.count(f"T03:{NEW}") >= 5  # handoffs, covers
    assert f"path: {NEW}" in rubric.read_text(encoding="utf-8")  # the check of a later checkpoint follows
    assert validate_project(sample) == []
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(sample) == before | {"subtasks/T09/rubric.yaml": rubric.read_bytes()}


def test_the_preview_lists_every_change_and_changes_nothing(sample: Path) -> None:
    before = snapshot(sample)
    session = ProjectSession(sample)
    command = rename_output(session.documents, "T03", OLD, NEW)
    changes = rename_preview(session.documents, command)
    assert changes[0].rel == "subtasks/T03/subtask.yaml" and (changes[0].before, changes[0].after) == (OLD, NEW)
    handoffs = [c for c in changes if c.rel == "dependencies.yaml"]
    assert handoffs and all(c.before == f"T03:{OLD}" and c.after == f"T03:{NEW}" for c in handoffs)
    lines = [c for c in changes if c.where.startswith("line ")]
    assert {c.rel for c in lines} == set(_mentions(sample, OLD))
    assert all(OLD in c.before and NEW in c.after for c in lines)
    assert not session.documents.dirty and snapshot(sample) == before


@pytest.mark.parametrize(("old", "new", "message"), [
    ("outputs/nothing.md", NEW, "subtask T03 has no output 'outputs/nothing.md'"),
    (OLD, "outputs/diligence_summary.md", "already has an output 'outputs/diligence_summary.md'"),
    (OLD, "../outside.md", "not a path inside the workspace"),
    (OLD, OLD, "already has the path"),
])
def test_a_bad_output_rename_is_refused(sample: Path, old: str, new: str, message: str) -> None:
    with pytest.raises(IdError, match=message):
        rename_output(ProjectSession(sample).documents, "T03", old, new)


def test_the_command_line_previews_then_renames(sample: Path, capsys) -> None:
    before = snapshot(sample)
    code, out, _ = run_cli(capsys, "rename", str(sample), "output", f"T03:{OLD}", NEW, "--dry-run")
    assert code == 0 and "(dry run, nothing written)" in out
    assert "subtasks/T04/instruction.md line " in out and snapshot(sample) == before
    code, out, _ = run_cli(capsys, "rename", str(sample), "output", f"T03:{OLD}", NEW)
    assert code == 0 and "subtasks/T09/instruction.md" in out
    assert _mentions(sample, OLD) == []
