"""Random sequences of edits in the domain's words: the model rebuilt after each equals a fresh
load of the saved folder, a refused edit changes nothing, and undoing all of them in reverse gives
back every byte of the project."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.editing.catalog import timeline
from studio.editing.commands import Command
from studio.editing.delivery import add_acceptance, remove_acceptance
from studio.editing.dependencies import add_handoff, remove_handoff
from studio.editing.fields import ids_in, set_field, set_instruction
from studio.editing.materials import import_material, move_material, remove_material, set_release
from studio.editing.references import add_reference, remove_reference
from studio.editing.rename import rename
from studio.editing.session import ProjectSession
from studio.editing.timeline import add_stage, add_subtask, move_stage, move_subtask, next_id, remove_subtask
from studio.errors import StudioError
from studio.store import layout
from tests.editing.edit_support import save_and_compare, snapshot

OPERATIONS = ["add_stage", "add_subtask", "remove_subtask", "move_subtask", "move_stage", "set_release",
              "add_handoff", "remove_handoff", "set_title", "import", "remove_material", "move_material",
              "rename_subtask", "rename_material", "instruction", "rename_criterion", "acceptance",
              "reference", "remove_reference", "rename_deliverable"]


def _pick(items: list[Any], seed: int) -> Any:
    return items[seed % len(items)] if items else None


def _command(session: ProjectSession, operation: str, a: int, b: int, source: Path) -> Command | None:
    d = session.documents
    order = timeline(d)
    stages = ids_in(d, layout.STAGES_FILE, ("stages",))
    materials = ids_in(d, layout.MATERIALS_FILE, ("materials",))
    subtask, stage, material = _pick(order, a), _pick(stages, b), _pick(materials, a)
    if operation == "add_stage":
        return add_stage(d, next_id(stages, "S"), f"Stage {a}", b % (len(stages) + 1))
    if operation == "add_subtask":
        return add_subtask(d, stage, next_id(d.subtask_ids(), "T"), f"Subtask {a}", 0)
    if operation == "remove_subtask":
        return remove_subtask(d, subtask, force=bool(b % 2))
    if operation == "move_subtask":
        return move_subtask(d, subtask, stage, 0)
    if operation == "move_stage":
        return move_stage(d, stage, a % len(stages))
    if operation == "set_release":
        return set_release(d, material, None if b % 3 == 0 else _pick(order, b))
    if operation == "add_handoff":
        return add_handoff(d, f"{subtask}:outputs/{subtask}.md", _pick(order, b), "What it carries.")
    if operation == "remove_handoff":
        return remove_handoff(d, a % 30)
    if operation == "set_title":
        return set_field(d, "material", material, "title", f"Title {b}")
    if operation == "import":
        return import_material(d, source, next_id(materials, "M"), "Imported", "new_evidence", "original_record",
                               _pick(order, b) if b % 2 else None)
    if operation == "remove_material":
        return remove_material(d, material, force=True)
    if operation == "move_material":
        return move_material(d, material, b % len(materials))
    if operation == "rename_subtask":
        return rename(d, "subtask", subtask, f"{subtask}x")
    if operation == "rename_material":
        return rename(d, "material", material, f"{material}x")
    if operation == "rename_criterion":
        return rename(d, "criterion", f"{subtask}-C0{1 + b % 3}", f"{subtask}-K{b}")
    if operation == "acceptance":
        return add_acceptance(d, f"Requirement {a}.", b % 3) if a % 2 else remove_acceptance(d, b % 6)
    if operation == "reference":
        return add_reference(d, {"id": f"R{10 + a}", "file": "new-reference.md", "title": "A reference",
                                 "for": [subtask]}, source=source)
    if operation == "remove_reference":
        return remove_reference(d, f"R0{1 + a % 4}")
    if operation == "rename_deliverable":
        return rename(d, "deliverable", f"F{1 + a % 6}", f"F{1 + a % 6}-{b}")
    return set_instruction(d, subtask, f"# {subtask}\n\nDo step {b}.\n")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(OPERATIONS), st.integers(0, 40), st.integers(0, 40)), min_size=1,
                max_size=8))
def test_any_sequence_of_edits_rebuilds_like_a_load_and_undoes_to_the_same_bytes(tmp_path_factory, plan):
    from studio.store.workspace import sample_project

    root = Path(shutil.copytree(sample_project(), tmp_path_factory.mktemp("seq") / "kestrel"))
    source = root.parent / "term sheet.pdf"
    source.write_bytes(b"%PDF-1.4 bytes\x00\xff\n")
    before = snapshot(root)
    session = ProjectSession(root)
    undos: list[Command] = []
    for operation, a, b in plan:
        texts = {rel: session.documents.read_bytes(rel) for rel in session.documents.dirty}
        try:
            command = _command(session, operation, a, b, source)
            if command is None:
                continue
            undo, _ = session.apply(command)
        except StudioError:
            # a refused edit leaves every edited file as it was
            assert {rel: session.documents.read_bytes(rel) for rel in texts} == texts
            continue
        undos.append(undo)
    save_and_compare(session)
    for undo in reversed(undos):
        session.apply(undo)
    save_and_compare(session)
    assert snapshot(root) == before
