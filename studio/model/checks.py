"""A criterion's programmatic check: a file exists, a text or a cell contains (or not) a value, a cell equals one.

Only the shape lives here (the rubric files hold it); studio/judging/checks.py runs it on a submission."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Self, cast

from pydantic import ConfigDict, Field, StringConstraints, model_validator
from pydantic.config import JsonDict

from studio.model.base import StrictModel, WorkspacePath

__all__ = ["CellRef", "CheckKind", "CheckUse", "CriterionCheck", "WORKBOOK_SUFFIXES"]

WORKBOOK_SUFFIXES = (".xlsx", ".xlsm")

# "Debt!B4", "'Cash Flow'!B4" (a quote inside a quoted name is doubled), "$B$4" allowed.
CellRef = Annotated[str, StringConstraints(pattern=r"^(?:'(?:[^']|'')+'|[^'!]+)!\$?[A-Za-z]{1,3}\$?[0-9]+$")]


class CheckKind(str, Enum):
    FILE_EXISTS = "file_exists"
    CONTAINS = "contains"
    NOT_CONTAINS = "not_contains"
    CELL_EQUALS = "cell_equals"


class CheckUse(str, Enum):
    """criterion: the check's result IS the verdict; evidence: the result is shown to the judge."""

    CRITERION = "criterion"
    EVIDENCE = "evidence"


class CriterionCheck(StrictModel):
    """`check: {kind: not_contains, path: outputs/model.xlsx, value: 4471, sheet: Summary}`."""

    # The schema says which keys each kind needs, so an editor flags a check without its value;
    # the validator below says the rest (and why) in the author's words.
    model_config = ConfigDict(json_schema_extra=cast(JsonDict, {"allOf": [
        {"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]}, "then": {"required": needed}}
        for kind, needed in (("contains", ["value"]), ("not_contains", ["value"]), ("cell_equals", ["cell", "value"]))
    ]}))

    kind: CheckKind = Field(description="file_exists, contains, not_contains or cell_equals.")
    path: WorkspacePath = Field(description="The file checked, relative to the submission (the workspace or the final package).")
    value: bool | int | float | str | None = Field(
        default=None,
        description="contains/not_contains/cell_equals: the value; a number (or a text that is one, like '4,471') "
                    "is matched as a number.",
    )
    sheet: str | None = Field(default=None, min_length=1, description="contains/not_contains in a workbook: only this sheet.")
    cell: CellRef | None = Field(default=None, description="'Sheet!A1': the cell cell_equals compares (or contains/not_contains looks in).")
    use: CheckUse = Field(default=CheckUse.CRITERION, alias="as",
                          description="criterion (default): the check is the verdict; evidence: its result is given to the judge.")

    @model_validator(mode="after")
    def _check_shape(self) -> Self:
        kind = self.kind.value
        workbook = self.path.lower().endswith(WORKBOOK_SUFFIXES)
        if self.kind is CheckKind.FILE_EXISTS:
            extra = [name for name in ("value", "sheet", "cell") if getattr(self, name) is not None]
            if extra:
                raise ValueError(f"a file_exists check takes only 'path' (and 'as'): remove {', '.join(extra)}")
            return self
        if self.value is None or (isinstance(self.value, str) and not self.value.strip()):
            raise ValueError(f"a {kind} check needs a 'value' (the text or number to look for)")
        if self.kind is CheckKind.CELL_EQUALS and self.cell is None:
            raise ValueError("a cell_equals check needs a 'cell', e.g. cell: \"Debt!B4\"")
        if self.kind is CheckKind.CELL_EQUALS and self.sheet is not None:
            raise ValueError("a cell_equals check names its sheet in 'cell' (Sheet!A1): remove 'sheet'")
        if self.sheet is not None and self.cell is not None:
            raise ValueError(f"a {kind} check looks in one 'cell' or in one 'sheet', not both")
        if (self.sheet is not None or self.cell is not None) and not workbook:
            which = "sheet" if self.sheet is not None else "cell"
            raise ValueError(f"'{which}' is for a workbook (.xlsx, .xlsm); {self.path} is not one")
        return self
