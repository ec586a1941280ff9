"""Export -> edit cells with openpyxl -> import gives exactly the edits as a diff; applied as one
compound edit, the rubric files hold exactly those changes, with their comments, and one undo
gives back the same bytes."""

from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook
from openpyxl.worksheet.worksheet import Worksheet

from studio.editing.rubric import set_criterion_field
from studio.editing.session import ProjectSession
from studio.sheets import (
    AddedCriterion,
    FieldChange,
    RemovedCriterion,
    SheetDiff,
    diff_to_command,
    export_rubrics,
    read_rubric_sheet,
)
from studio.store.yamlfile import YamlDocument, plain
from studio.validation import validate_project
from tests.sheets.conftest import FINAL, T01, cell, edit_sheet, file_hashes, put, put_row, row_of

NEW_TEXT = "The earnings note names the EUR 2.9m Duisburg gain and shows FY2025 EBITDA without it (EUR 38.9m)."
NEW_ROW = {"rubric": "T01", "id": "T01-C99", "text": "The baseline states its cut-off date and currency.",
           "covers": "T01:outputs/net_debt_baseline.xlsx", "target": "checkpoint", "dimension": "usability",
           "weight": 2, "gate": "no", "status": "draft", "note": "Added in the workshop."}


def _criteria(root: Path, rel: str) -> list[dict]:
    return plain(YamlDocument.load(root / rel).data)["criteria"]


def _add_hand_comments(root: Path) -> None:
    """Comments an expert wrote by hand, on an edited criterion and beside an untouched one."""
    path = root / T01
    text = path.read_text(encoding="utf-8")
    text = text.replace("    weight: -6\n", "    weight: -6  # agreed with the lender's counsel\n", 1)
    text = text.replace("  - id: T01-C05\n", "  # C05 was discussed with Marta on 3 March\n  - id: T01-C05\n", 1)
    path.write_text(text, encoding="utf-8")


def _edit(sheet: Worksheet) -> None:
    put(sheet, cell(sheet, "T01", "T01-C02", "weight"), -7)
    put(sheet, cell(sheet, "T01", "T01-C03", "text"), NEW_TEXT)
    put(sheet, cell(sheet, "T01", "T01-C04", "requires"), "T01-C01\nT01-C02")
    sheet.delete_rows(row_of(sheet, "T01", "T01-C06"))
    after = row_of(sheet, "T01", "T01-C03") + 1
    sheet.insert_rows(after)
    put_row(sheet, after, NEW_ROW)


def test_edited_cells_give_exactly_their_diff_and_the_files_exactly_those_changes(sample: Path, exported: Path):
    _add_hand_comments(sample)
    export_rubrics(sample, exported)
    before_files = file_hashes(sample)
    before_t01 = _criteria(sample, T01)
    edit_sheet(exported, _edit)

    session = ProjectSession(sample)
    diff = read_rubric_sheet(session.documents, exported)

    sheet = load_workbook(exported)["Rubrics"]
    old_text = before_t01[2]["text"]
    assert diff.changed == [
        FieldChange("T01", "T01-C02", "weight", -6, -7, "Rubrics!" + cell(sheet, "T01", "T01-C02", "weight")),
        FieldChange("T01", "T01-C03", "text", old_text, NEW_TEXT, "Rubrics!" + cell(sheet, "T01", "T01-C03", "text")),
        FieldChange("T01", "T01-C04", "requires", [], ["T01-C01", "T01-C02"],
                    "Rubrics!" + cell(sheet, "T01", "T01-C04", "requires")),
    ]
    assert diff.added == [AddedCriterion("T01", "T01-C99", {
        "id": "T01-C99", "text": NEW_ROW["text"], "covers": ["T01:outputs/net_debt_baseline.xlsx"],
        "target": "checkpoint", "dimension": "usability", "weight": 2, "review.status": "draft",
        "review.note": "Added in the workshop."}, row_of(sheet, "T01", "T01-C99"), after="T01-C03")]
    assert diff.removed == [RemovedCriterion("T01", "T01-C06")]

    session.apply(diff_to_command(session.documents, diff))
    assert session.save() == [T01]

    after_files = file_hashes(sample)
    assert {rel for rel in before_files if before_files[rel] != after_files.get(rel)} == {T01}
    assert set(after_files) == set(before_files)
    expected = [dict(c) for c in before_t01]
    expected[1]["weight"] = -7
    expected[2]["text"] = NEW_TEXT
    expected[3]["requires"] = ["T01-C01", "T01-C02"]
    new = {"id": "T01-C99", "text": NEW_ROW["text"], "covers": ["T01:outputs/net_debt_baseline.xlsx"],
           "target": "checkpoint", "dimension": "usability", "weight": 2,
           "review": {"status": "draft", "note": "Added in the workshop."}}
    expected.insert(3, new)
    expected = [c for c in expected if c["id"] != "T01-C06"]
    assert _criteria(sample, T01) == expected
    text = (sample / T01).read_text(encoding="utf-8")
    assert text.startswith("# Checkpoint rubric of T01.\n")
    assert "    weight: -7  # agreed with the lender's counsel\n" in text
    assert "  # C05 was discussed with Marta on 3 March\n  - id: T01-C05\n" in text
    assert validate_project(sample) == []


def test_an_unchanged_export_imports_as_an_empty_diff_and_leaves_every_byte(sample: Path, exported: Path):
    before = file_hashes(sample)
    session = ProjectSession(sample)
    diff = read_rubric_sheet(session.documents, exported)
    assert diff == SheetDiff() and not diff
    command = diff_to_command(session.documents, diff)
    assert command.commands == []
    session.apply(command)
    assert session.save() == []
    assert file_hashes(sample) == before


def test_a_sheet_saved_again_by_openpyxl_still_imports_as_no_change(sample: Path, exported: Path):
    """Round-tripping the workbook itself (what Excel's save does to types) changes nothing."""
    edit_sheet(exported, lambda sheet: None)
    assert not read_rubric_sheet(sample, exported)


def test_one_undo_of_the_compound_gives_back_every_byte(sample: Path, exported: Path):
    edit_sheet(exported, _edit)
    before = {rel: (sample / rel).read_bytes() for rel in (T01, FINAL)}
    session = ProjectSession(sample)
    undo, changes = session.apply(diff_to_command(session.documents, read_rubric_sheet(session.documents, exported)))
    assert changes.files == {T01} and {"T01-C02", "T01-C99", "T01-C06"} <= changes.ids
    session.apply(undo)
    session.save()
    assert {rel: (sample / rel).read_bytes() for rel in (T01, FINAL)} == before


def test_review_cells_set_and_clear_keys_of_the_review(sample: Path, exported: Path):
    def edit(sheet: Worksheet) -> None:
        put(sheet, cell(sheet, "T01", "T01-C02", "note"), None)  # clears the note key
        put(sheet, cell(sheet, "T01", "T01-C01", "status"), "reviewed")
        put(sheet, cell(sheet, "T01", "T01-C01", "note"), "Checked against M02.")
        put(sheet, cell(sheet, "T01", "T01-C05", "status"), None)
        put(sheet, cell(sheet, "T01", "T01-C05", "reviewer"), None)  # nothing left: the review goes

    edit_sheet(exported, edit)
    session = ProjectSession(sample)
    diff = read_rubric_sheet(session.documents, exported)
    assert [(c.criterion, c.field, c.new) for c in diff.changed] == [
        ("T01-C01", "review.status", "reviewed"), ("T01-C01", "review.note", "Checked against M02."),
        ("T01-C02", "review.note", None), ("T01-C05", "review.status", None), ("T01-C05", "review.reviewer", None)]
    session.apply(diff_to_command(session.documents, diff))
    session.save()
    criteria = {c["id"]: c for c in _criteria(sample, T01)}
    assert criteria["T01-C01"]["review"] == {"status": "reviewed", "reviewer": "Marta Lindqvist",
                                             "note": "Checked against M02."}
    assert "note" not in criteria["T01-C02"]["review"]
    assert "review" not in criteria["T01-C05"]


def test_a_reused_criterion_takes_its_covers_and_new_and_removed_reuses(sample: Path, exported: Path):
    def edit(sheet: Worksheet) -> None:
        put(sheet, cell(sheet, "final", "T06-C02", "covers"), "F1\nF2")
        sheet.delete_rows(row_of(sheet, "final", "T07-C05"))
        row = sheet.max_row + 1
        put_row(sheet, row, {"rubric": "final", "reuse_of": "T05-C02", "covers": "F1"})

    edit_sheet(exported, edit)
    session = ProjectSession(sample)
    diff = read_rubric_sheet(session.documents, exported)
    assert [(c.rubric, c.criterion, c.field, c.old, c.new, c.reused) for c in diff.changed] == [
        ("final", "T06-C02", "covers", ["F1"], ["F1", "F2"], True)]
    assert [(a.criterion, a.values, a.reused) for a in diff.added] == [
        ("T05-C02", {"reuse_of": "T05-C02", "covers": ["F1"]}, True)]
    assert diff.removed == [RemovedCriterion("final", "T07-C05", reused=True)]
    session.apply(diff_to_command(session.documents, diff))
    session.save()
    final = _criteria(sample, FINAL)
    assert final[0] == {"reuse_of": "T06-C02", "covers": ["F1", "F2"]}
    assert {"reuse_of": "T07-C05", "covers": ["F3"]} not in final
    assert final[-1] == {"reuse_of": "T05-C02", "covers": ["F1"]}
    assert validate_project(sample) == []


def test_new_rows_land_where_the_sheet_puts_them(sample: Path, exported: Path):
    def edit(sheet: Worksheet) -> None:
        first = row_of(sheet, "T02", "T02-C01")
        sheet.insert_rows(first, 2)
        for offset, criterion in enumerate(("T02-C90", "T02-C91")):
            put_row(sheet, first + offset, {**NEW_ROW, "rubric": "T02", "id": criterion,
                                            "covers": "T02:outputs/fleet_and_permit_findings.md"})

    edit_sheet(exported, edit)
    session = ProjectSession(sample)
    diff = read_rubric_sheet(session.documents, exported)
    assert [(a.criterion, a.after) for a in diff.added] == [("T02-C90", None), ("T02-C91", "T02-C90")]
    session.apply(diff_to_command(session.documents, diff))
    session.save()
    ids = [c["id"] for c in _criteria(sample, "subtasks/T02/rubric.yaml")]
    assert ids[:3] == ["T02-C90", "T02-C91", "T02-C01"]


def test_comments_over_criteria_stay_over_them_when_neighbours_are_added_removed_or_extended(sample: Path,
                                                                                              tmp_path: Path):
    path = sample / T01
    text = path.read_text(encoding="utf-8")
    text = text.replace("  - id: T01-C04\n", "  # C04 checks the covenant\n  - id: T01-C04\n", 1)
    text = text.replace("  - id: T01-C07\n", "\n  # C07 is the usability check\n  - id: T01-C07\n", 1)
    path.write_text(text, encoding="utf-8")
    original = path.read_bytes()
    out = tmp_path / "rubrics.xlsx"
    export_rubrics(sample, out)

    def edit(sheet: Worksheet) -> None:
        put(sheet, cell(sheet, "T01", "T01-C03", "note"), None)
        put(sheet, cell(sheet, "T01", "T01-C03", "requires"), "T01-C01")
        put(sheet, cell(sheet, "T01", "T01-C02", "note"), None)  # note was C02's last key, over C03
        sheet.delete_rows(row_of(sheet, "T01", "T01-C06"))
        after = row_of(sheet, "T01", "T01-C03") + 1
        sheet.insert_rows(after)
        put_row(sheet, after, NEW_ROW)

    edit_sheet(out, edit)
    session = ProjectSession(sample)
    undo, _ = session.apply(diff_to_command(session.documents, read_rubric_sheet(session.documents, out)))
    session.save()
    saved = path.read_text(encoding="utf-8")
    assert "  # C04 checks the covenant\n  - id: T01-C04\n" in saved
    assert "\n\n  # C07 is the usability check\n  - id: T01-C07\n" in saved
    assert saved.index("id: T01-C99") < saved.index("# C04 checks the covenant")
    assert saved.index("requires:\n      - T01-C01") < saved.index("id: T01-C99")  # C03's new key, before review
    assert _criteria(sample, T01)[2]["requires"] == ["T01-C01"]
    session.apply(undo)
    session.save()
    assert path.read_bytes() == original


def test_export_and_import_see_the_sessions_unsaved_edits(sample: Path, tmp_path: Path):
    """The window exports and compares against the project as edited, not as last saved."""
    session = ProjectSession(sample)
    session.apply(set_criterion_field(session.documents, "T01", "T01-C02", "weight", -8))
    out = tmp_path / "rubrics.xlsx"
    export_rubrics(session.documents, out)
    sheet = load_workbook(out)["Rubrics"]
    assert sheet[cell(sheet, "T01", "T01-C02", "weight")].value == -8
    assert not read_rubric_sheet(session.documents, out)
    on_disk = read_rubric_sheet(sample, out)  # the saved files still say -6
    assert [(c.criterion, c.old, c.new) for c in on_disk.changed] == [("T01-C02", -6, -8)]


def test_the_acceptance_items_a_criterion_tests_survive_an_import_that_edits_it(sample: Path, exported: Path):
    # The sheet has no tests column: editing a final criterion's cells leaves its `tests` as written.
    edit_sheet(exported, lambda sheet: put(sheet, cell(sheet, "final", "X-01", "weight"), 8))
    session = ProjectSession(sample)
    session.apply(diff_to_command(session.documents, read_rubric_sheet(session.documents, exported)))
    session.save()
    x01 = next(c for c in _criteria(sample, FINAL) if c.get("id") == "X-01")
    assert (x01["weight"], x01["tests"]) == (8, ["AC2"])
    assert validate_project(sample) == []
