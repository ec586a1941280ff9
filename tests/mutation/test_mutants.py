"""Mutants are planted where the dependency map says each failure can occur, and each changes exactly what
it says it changes (real workbooks and Markdown files, read back)."""

from __future__ import annotations

import shutil
from pathlib import Path

from openpyxl import load_workbook

from studio.model.artifacts import downstream_of
from studio.mutation.edits import apply_edit, figure_places, markdown_sections
from studio.mutation.mutants import MutantKind
from studio.mutation.runner import planned_mutants
from studio.store.loader import load_project

REF = "evaluator/reference"


def _append(project: Path, rel: str, text: str) -> None:
    path = project / REF / rel
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _of(mutants: list, kind: MutantKind) -> list:
    return [m for m in mutants if m.kind is kind]


def test_the_dependency_map_decides_what_is_downstream(referenced: Path) -> None:
    project = load_project(referenced).project
    reached = downstream_of(project, ["T06:outputs/financing_model.xlsx"])
    # T06's model hands off to T07, T08, T09 and T10 (dependencies.yaml), and becomes F1
    assert {"T07:outputs/lender_presentation.md", "T08:outputs/syndication_update.md",
            "T09:outputs/signing_readiness_checklist.md", "T10:outputs/handover_note.md", "F1"} <= set(reached)
    assert not [ref for ref in reached if ref.split(":")[0] in ("T01", "T02", "T03", "T04", "T05", "T06")]
    # T02's findings reach T03 and T05 and, through them, everything after; not T01
    assert "T01:outputs/net_debt_baseline.xlsx" not in downstream_of(project, ["T02:outputs/fleet_and_permit_findings.md"])


def test_a_correction_is_left_unapplied_only_downstream_of_the_material(referenced: Path) -> None:
    # the corrected figure also written upstream of M12's release (T02) and far downstream (T09)
    _append(referenced, "T02/outputs/fleet_and_permit_findings.md", "\nEBITDA of 38.9 as a later note.\n")
    _append(referenced, "T09/outputs/signing_readiness_checklist.md", "\nCovenant test on EBITDA of 38.9.\n")
    mutants = _of(planned_mutants(referenced), MutantKind.CORRECTION_NOT_APPLIED)
    places = {m.artifact.ref for m in mutants}
    # M12 is an input of T06; T06's outputs hand off to T07..T10; F1..F4 hold the figure in the reference
    assert places == {"T06:outputs/financing_model.xlsx", "T07:outputs/lender_presentation.md",
                      "T09:outputs/signing_readiness_checklist.md", "F1", "F2", "F3", "F4"}
    assert "T02:outputs/fleet_and_permit_findings.md" not in places  # before the correction: not a place
    t06 = next(m for m in mutants if m.scope == "T06")
    assert t06.id == "corr-T06-01"
    assert "M12" in t06.because and "41.8" in t06.broke and "38.9" in t06.suggestion
    assert "outputs/financing_model.xlsx!Summary!B2" in t06.where


def test_statuses_roll_back_along_handoffs_and_settled_items_reopen(referenced: Path) -> None:
    # T02 is not linked to T09: its register must not be the source of a rollback there (it is for T03)
    _append(referenced, "T02/outputs/fleet_and_permit_findings.md",
            "\n## Register\n\n| ID | Item | Status |\n| --- | --- | --- |\n| OI-01 | Venlo | Escalated |\n")
    mutants = _of(planned_mutants(referenced), MutantKind.STATUS_ROLLED_BACK)
    rollbacks = {(m.scope, m.edit.was, m.edit.value) for m in mutants}
    assert ("T09", "Condition subsequent agreed", "Open") in rollbacks  # T03's register hands off to T09
    assert ("T09", "Received", "Requested") in rollbacks
    assert not [m for m in mutants if m.scope == "T09" and m.edit.value == "Escalated"]
    # T02 does hand its findings to T03: there, T02's status is the stale one
    t03 = next(m for m in mutants if m.scope == "T03" and m.edit.value == "Escalated")
    assert "T02:outputs/fleet_and_permit_findings.md hands off to T03" in t03.because
    assert ("T06", "Superseded", "Active") in rollbacks  # a superseded decision left active (P04)
    assert ("final", "Received", "Pending") in rollbacks
    assert all(m.because for m in mutants)
    t09 = next(m for m in mutants if m.scope == "T09" and m.edit.value == "Open")
    assert "T03:outputs/open_issues_register.md hands off to T09" in t09.because


def test_cross_file_figures_come_from_what_the_handoff_carries(referenced: Path) -> None:
    project = load_project(referenced).project
    mutants = _of(planned_mutants(referenced), MutantKind.CROSS_FILE_MISMATCH)
    assert mutants
    carried = {(h.artifact, h.to): h.carries or "" for h in project.dependencies.handoffs}
    for mutant in mutants:
        figure = mutant.edit.old
        if mutant.scope == "final":
            assert figure in mutant.because  # a cross-file criterion names it
            continue
        source = mutant.because.split(" hands ", 1)[0]
        assert figure in carried[(source, mutant.scope)], (mutant.id, figure)
        scope, _, path = source.partition(":")
        assert figure_places(referenced / REF / scope / path, path, figure)  # the upstream file holds it too
        assert figure_places(referenced / REF / mutant.scope / mutant.artifact.path, mutant.artifact.path, figure)
    t04 = {m.edit.old for m in mutants if m.scope == "T04"}
    assert t04 == {"120.0", "22.0"}  # Term Loan A 120.0 and RCF 22.0, carried from T01 to T04


def test_every_required_file_and_section_is_a_place(referenced: Path) -> None:
    project = load_project(referenced).project
    mutants = planned_mutants(referenced)
    removed = _of(mutants, MutantKind.FILE_REMOVED)
    outputs = sum(len(project.subtasks[sid].outputs) for sid in project.timeline())
    assert len(removed) == outputs + len(project.info.delivery.final_deliverables)
    sections = _of(mutants, MutantKind.SECTION_DROPPED)
    memo = referenced / REF / "T06/outputs/assumptions_memo.md"
    expected = len(markdown_sections(memo.read_text(encoding="utf-8").splitlines()))
    assert len([m for m in sections if m.scope == "T06" and m.artifact.path == "outputs/assumptions_memo.md"]) == expected
    # a workbook of two sheets: each sheet left out once
    assert {m.edit.sheet for m in sections if m.scope == "T06" and m.artifact.path.endswith(".xlsx")} == \
        {"Summary", "Notes"}


def test_each_edit_changes_the_file_as_it_says(referenced: Path, tmp_path: Path) -> None:
    mutants = {m.id: m for m in planned_mutants(referenced)}
    work = referenced / ".dbstudio/mutation/reference"

    def fresh(scope: str) -> Path:
        target = tmp_path / scope
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(work / scope, target)
        return target

    folder = fresh("T06")
    apply_edit(mutants["corr-T06-01"].edit, folder)
    sheet = load_workbook(folder / "outputs/financing_model.xlsx")["Summary"]
    assert sheet["B2"].value == 41.8
    assert 38.9 not in [cell.value for row in sheet.iter_rows() for cell in row]

    status = next(m for m in mutants.values() if m.kind is MutantKind.STATUS_ROLLED_BACK and m.scope == "T09")
    folder = fresh("T09")
    apply_edit(status.edit, folder)
    line = (folder / status.artifact.path).read_text(encoding="utf-8").splitlines()[status.edit.line]
    assert line.startswith("| OI-") and f"| {status.edit.value} |" in line

    section = next(m for m in mutants.values() if m.kind is MutantKind.SECTION_DROPPED and m.scope == "T02")
    folder = fresh("T02")
    before = (folder / section.artifact.path).read_text(encoding="utf-8")
    apply_edit(section.edit, folder)
    after = (folder / section.artifact.path).read_text(encoding="utf-8")
    heading = before.splitlines()[section.edit.start]
    assert heading in before and heading not in after
    assert len(after.splitlines()) == len(before.splitlines()) - (section.edit.end - section.edit.start)

    removed = next(m for m in mutants.values() if m.kind is MutantKind.FILE_REMOVED and m.scope == "final")
    folder = fresh("final")
    apply_edit(removed.edit, folder)
    assert not (folder / removed.artifact.path).exists()
