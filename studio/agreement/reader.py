"""Reading a rating table (CSV or xlsx): criterion, item, rater, verdict[, target, dimension, project]."""

from __future__ import annotations

from pathlib import Path

from studio.agreement.ratings import (
    RatingConflict,
    Ratings,
    RatingsBuilder,
    normalise_label,
)
from studio.errors import StudioError
from studio.tabular import TableReadError, cell_name, is_xlsx, read_rows

REQUIRED = ("criterion", "item", "rater", "verdict")
OPTIONAL = ("target", "dimension", "project")
MAX_ERRORS = 50


class RatingTableError(StudioError):
    """Bad rows; nothing was computed. Each problem names its row and column."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = problems
        super().__init__("\n".join(f"{source}: {p}" for p in problems))


def read_rating_table(path: Path | str) -> Ratings:
    """The ratings of a CSV or xlsx table; RatingTableError naming every bad row.

    A clean plain CSV is read column-wise (studio.agreement.columns); anything else, and any
    table with a problem, row by row here, the authority that names the bad rows."""
    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise RatingTableError(source, ["no such file"])
    if not is_xlsx(path):
        from studio.agreement.columns import read_plain_ratings

        ratings = read_plain_ratings(path)
        if ratings is not None:
            return ratings
    return read_rows_checked(path)


def read_rows_checked(path: Path) -> Ratings:
    """The row-by-row reading: every problem, named by row and column."""
    source = str(path)
    try:
        rows = read_rows(path)
    except TableReadError as exc:
        raise RatingTableError(source, [str(exc)]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RatingTableError(source, [f"row 1: cannot read the table: {exc}"]) from None
    except Exception as exc:  # openpyxl raises several kinds for a file that is not a workbook
        raise RatingTableError(source, [f"row 1: not a readable table: {exc}"]) from None
    if not rows:
        raise RatingTableError(source, ["row 1: the table is empty: it needs a header row"])
    names = [h.strip().lower() for h in rows[0]]
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise RatingTableError(source, [f"row 1: header lacks column(s) {', '.join(missing)}; "
                                        f"required: {', '.join(REQUIRED)}; optional: {', '.join(OPTIONAL)}"])
    twice = [name for name in REQUIRED + OPTIONAL if names.count(name) > 1]
    if twice:
        raise RatingTableError(source, [f"row 1: {_named_twice(names, twice, is_xlsx(path))}"])
    col = {name: names.index(name) for name in REQUIRED + OPTIONAL if name in names}
    width = max(col.values()) + 1
    builder = RatingsBuilder()
    problems: list[str] = []
    xlsx = is_xlsx(path)
    for number, raw in enumerate(rows[1:], start=2):
        if not any(v.strip() for v in raw):
            continue
        if len(raw) < width:
            raw = raw + [""] * (width - len(raw))

        def get(name: str, raw: list[str] = raw) -> str:
            return raw[col[name]].strip() if name in col else ""

        try:
            builder.add(get("criterion"), get("item"), get("rater"), normalise_label(raw[col["verdict"]]),
                        get("target"), get("dimension"), get("project"))
        except RatingConflict as exc:
            if len(problems) < MAX_ERRORS:
                where = f"row {number}, column '{exc.column}'"
                if xlsx:
                    where += f" (cell {cell_name(col[exc.column], number)})"
                problems.append(f"{where}: {exc}")
    if problems:
        raise RatingTableError(source, problems)
    ratings = builder.build()
    if ratings.n_decisions == 0:
        raise RatingTableError(source, ["the table has a header but no ratings"])
    return ratings


def _named_twice(names: list[str], twice: list[str], xlsx: bool) -> str:
    """The message for header names given to more than one column (which one holds the data
    is unknowable, so neither is read)."""
    parts = []
    for name in twice:
        where = [cell_name(k, 1) if xlsx else f"column {k + 1}" for k, n in enumerate(names) if n == name]
        parts.append(f"'{name}' ({', '.join(where)})")
    return f"the header names {' and '.join(parts)} more than once; keep one column of each name"
