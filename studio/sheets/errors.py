"""What can be wrong with a rubric spreadsheet: located cell errors, gathered and raised together."""

from __future__ import annotations

from dataclasses import dataclass

from studio.errors import StudioError


@dataclass(frozen=True, order=True)
class CellError:
    """One bad cell: `Sheet!C7: message and how to fix it`."""

    row: int
    column: int
    sheet: str
    cell: str
    message: str

    def render(self) -> str:
        return f"{self.sheet}!{self.cell}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {"sheet": self.sheet, "cell": self.cell, "row": self.row, "message": self.message}


class SheetError(StudioError):
    """The sheet has bad cells; nothing was read into the project. Carries every error found."""

    def __init__(self, errors: list[CellError]) -> None:
        self.errors = sorted(errors)
        super().__init__("\n".join(error.render() for error in self.errors))


class SheetFileError(StudioError):
    """The file cannot be used as a rubric sheet at all (missing, not a workbook, no rubric sheet)."""
