"""An instruction written in Word, brought in as Markdown (headings, emphasis, lists, a table) in one undo
step; a damaged file named with the fix; the command line's dry run."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from studio.editing.session import ProjectSession
from studio.editing.word_import import WordImportError, instruction_from_word, word_to_markdown
from tests.editing.edit_support import copy_sample, save_and_compare, snapshot
from tests.helpers import run_cli


def word_file(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Fleet and permit diligence", level=1)
    paragraph = document.add_paragraph("Separate the ")
    paragraph.add_run("owned").bold = True
    paragraph.add_run(" units from the ")
    paragraph.add_run("leased").italic = True
    paragraph.add_run(" ones.")
    document.add_heading("What to deliver", level=2)
    document.add_paragraph("outputs/fleet_and_permit_findings.md", style="List Bullet")
    document.add_paragraph("A note on the | Venlo permit", style="List Bullet")
    document.add_paragraph("Read M03.", style="List Number")
    document.add_paragraph("Read M06.", style="List Number")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Item", "Deadline"
    table.cell(1, 0).text, table.cell(1, 1).text = "Condition 7", "30 June 2026"
    document.save(path)
    return path


def test_the_markdown_keeps_structure_and_emphasis(tmp_path: Path) -> None:
    text = word_to_markdown(word_file(tmp_path / "brief.docx"))
    assert text == (
        "# Fleet and permit diligence\n\n"
        "Separate the **owned** units from the *leased* ones.\n\n"
        "## What to deliver\n\n"
        "- outputs/fleet_and_permit_findings.md\n"
        "- A note on the | Venlo permit\n"
        "1. Read M03.\n"
        "2. Read M06.\n\n"
        "| Item | Deadline |\n| --- | --- |\n| Condition 7 | 30 June 2026 |\n")


def test_an_instruction_is_replaced_in_one_undo_step(tmp_path: Path) -> None:
    sample = copy_sample(tmp_path / "kestrel")
    before = snapshot(sample)
    session = ProjectSession(sample)
    undo, _ = session.apply(instruction_from_word(session.documents, "T02", word_file(tmp_path / "i.docx")))
    save_and_compare(session)
    assert (sample / "subtasks/T02/instruction.md").read_text(encoding="utf-8").startswith(
        "# Fleet and permit diligence\n")
    session.apply(undo)
    save_and_compare(session)
    assert snapshot(sample) == before


def test_a_file_that_is_no_word_document_is_named(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "notes.docx"
    bad.write_text("plain text, renamed", encoding="utf-8")
    with pytest.raises(WordImportError, match=r"notes.docx: is not a Word document .*: save it from Word as a .docx"):
        word_to_markdown(bad)
    code, out, _ = run_cli(capsys, "import-word", str(tmp_path), str(word_file(tmp_path / "ok.docx")), "--brief",
                           "--dry-run")
    assert code == 0 and out.startswith("# Fleet and permit diligence")
