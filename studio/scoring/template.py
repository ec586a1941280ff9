"""A blank verdict table for a project (`dbstudio verdicts template`): one row per system and
criterion, every column of the interchange filled from the project, the verdict left empty.

The extra `text` column (the criterion's requirement) is for whoever fills in the verdicts;
`dbstudio score` ignores it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from studio.scoring.project_rubrics import ProjectRubrics
from studio.scoring.table import OPTIONAL, REQUIRED
from studio.tabular import write_value

COLUMNS = REQUIRED + OPTIONAL + ("text",)
VERDICT_CHOICES = ("pass", "fail")
WIDTHS = {"project": 22, "system": 16, "scope": 8, "criterion": 11, "weight": 8, "target": 11, "dimension": 15,
          "verdict": 9, "gate": 7, "requires": 16, "text": 100}
NOTES = {
    "verdict": "pass or fail (1/0, true/false, yes/no are read too). Leave it empty where the criterion was "
               "not judged: a missing verdict gives the score a range, never 0 or 1.",
    "gate": "true for a fatal gate: its verdict pass means the failure condition is met and the rubric scores 0.",
    "requires": "Criteria of the same rubric that must hold for this one to be credited, separated by ';'.",
    "text": "The criterion's requirement (for a negative weight, its failure condition). Not read by the scorer.",
}


def template_rows(project_id: str, rubrics: ProjectRubrics, systems: Sequence[str]) -> list[list[str | int]]:
    """The table's rows after its header: each system in turn, every rubric in project order."""
    rows: list[list[str | int]] = []
    for system in systems:
        for scope, entries in rubrics.items():
            for entry in entries.values():
                rows.append([project_id, system, scope, entry.id, entry.weight, entry.target, entry.dimension, "",
                             "true" if entry.gate else "", ";".join(entry.requires), entry.text])
    return rows


def template_csv(rows: list[list[str | int]]) -> bytes:
    """UTF-8 with a byte-order mark, so that Excel opens accented text correctly."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8-sig")


def template_xlsx(rows: list[list[str | int]]) -> bytes:
    """One sheet, `Verdicts`: the header in view, a pass/fail drop-down on every verdict cell."""
    from openpyxl import Workbook
    from openpyxl.comments import Comment
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.datavalidation import DataValidation

    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Verdicts"
    for number, name in enumerate(COLUMNS, start=1):
        cell = sheet.cell(row=1, column=number, value=name)
        cell.font, cell.fill = Font(bold=True, color="FFFFFF"), PatternFill("solid", fgColor="1F4E78")
        if name in NOTES:
            cell.comment = Comment(NOTES[name], "DeliverBench Studio", width=300, height=110)
        sheet.column_dimensions[get_column_letter(number)].width = WIDTHS[name]
    for row_number, row in enumerate(rows, start=2):
        for number, value in enumerate(row, start=1):
            if value != "":
                write_value(sheet.cell(row=row_number, column=number), value)
        sheet.cell(row=row_number, column=len(COLUMNS)).alignment = Alignment(wrap_text=True, vertical="top")
    last = len(rows) + 1
    verdict = get_column_letter(COLUMNS.index("verdict") + 1)
    choice = DataValidation(type="list", formula1='"' + ",".join(VERDICT_CHOICES) + '"', allow_blank=True,
                            showErrorMessage=True, errorTitle="Not a verdict",
                            error="Pick pass or fail, or leave the cell empty for a missing verdict.")
    choice.add(f"{verdict}2:{verdict}{max(last, 2)}")
    sheet.add_data_validation(choice)
    sheet.freeze_panes = "E2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(COLUMNS))}{last}"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()
