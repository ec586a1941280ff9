"""The spreadsheet round-trip of rubrics (Qt-free): export every criterion to an xlsx an expert
edits in Excel, read it back as a checked diff, and apply that diff as one compound edit."""

from studio.sheets.apply import diff_to_command
from studio.sheets.diff import AddedCriterion, FieldChange, RemovedCriterion, SheetDiff
from studio.sheets.errors import CellError, SheetError, SheetFileError
from studio.sheets.export import export_rubrics
from studio.sheets.reader import read_rubric_sheet

__all__ = [
    "AddedCriterion", "CellError", "FieldChange", "RemovedCriterion", "SheetDiff", "SheetError", "SheetFileError",
    "diff_to_command", "export_rubrics", "read_rubric_sheet",
]
