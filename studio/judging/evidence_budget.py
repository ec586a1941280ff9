"""What every file reader of the evidence shares: the excerpt and the character budget that cuts a file.

A reader adds excerpts until its budget is spent; the budget remembers that it cut the file so the
cut is always stated, never silent."""

from __future__ import annotations

from dataclasses import dataclass

from studio.judging.errors import JudgingError


@dataclass(frozen=True)
class EvidenceLimits:
    """How much of a submission the evidence holds; what goes past a limit is cut with a stated note."""

    file_chars: int = 60_000  # per file
    total_chars: int = 400_000  # over all files
    cells: int = 20_000  # per workbook
    pages: int = 200  # per PDF


@dataclass(frozen=True, slots=True)
class Excerpt:
    """A citable place of a file and what it holds."""

    ref: str  # "outputs/model.xlsx!Debt!B4", "outputs/memo.pdf#page=3", "outputs/notes.md#L12-L30"
    text: str


class ReadError(JudgingError):
    """A file cannot be read as its kind; the message says why in the judge's and the expert's words.

    The evidence readers raise it; extract_evidence turns it into FileEvidence.error and run_check
    into a failed check, so it never reaches a caller."""


def line_cost(ref: str, text: str) -> int:
    """The characters an excerpt takes in the rendered evidence: "[ref] text" and a line break."""
    return len(ref) + len(text) + 4


class Budget:
    """The characters one file may still take (the smaller of its own limit and what the total leaves)."""

    def __init__(self, limit: int, reason: str) -> None:
        self.limit = max(limit, 0)
        self.reason = reason  # why the limit is what it is, for the cut note
        self.used = 0
        self.excerpts: list[Excerpt] = []
        self.full = False

    def add(self, ref: str, text: str) -> bool:
        """Add an excerpt; False (and the file counts as cut) when it no longer fits.

        An excerpt that overflows is kept in part when a useful part fits, so one huge line or page
        still shows its beginning."""
        cost = line_cost(ref, text)
        if self.used + cost <= self.limit:
            self.excerpts.append(Excerpt(ref, text))
            self.used += cost
            return True
        room = self.limit - self.used - line_cost(ref, "")
        if room >= 80:
            self.excerpts.append(Excerpt(ref, text[:room]))
            self.used += line_cost(ref, text[:room])
        self.full = True
        return False

    def cut_note(self, whole: str) -> str:
        """`whole` says how much the file holds, e.g. "143,000 characters" or "about 100,000 cells"."""
        return f"cut at {self.limit:,} characters ({self.reason}) of {whole}"


