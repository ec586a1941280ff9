"""A located problem in a project folder, printable as file:line:column: message."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum


class Severity(str, Enum):  # noqa: UP042 (StrEnum would change str(severity) for callers)
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """0 for the most severe: error, warning, info (not the names' alphabetical order)."""
        return _RANKS[self]


_RANKS = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True, order=True)
class Finding:
    file: str
    line: int
    column: int
    message: str
    code: str = "invalid"
    severity: Severity = Severity.ERROR
    object_id: str | None = None

    def render(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"

    @property
    def place(self) -> str:
        """`file:line`, as a list of findings shows where each is."""
        return f"{self.file}:{self.line}"

    def to_json(self) -> dict:
        data = asdict(self)
        data["severity"] = self.severity.value
        return data
