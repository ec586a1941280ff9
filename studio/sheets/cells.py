"""Read one cell of the rubric sheet as a criterion field's value, or say what is wrong with it
and how to fix it."""

from __future__ import annotations

import re
from typing import Any

from studio.errors import StudioError
from studio.model.base import ID_PATTERN
from studio.model.weights import weight_out_of_range
from studio.sheets.columns import LIST_SEPARATOR, NO, YES, Column, plain

_ID = re.compile(ID_PATTERN)
_ID_LIST_SEPARATORS = re.compile(r"[\s,;]+")
_INTEGER = re.compile(r"-?[0-9]+")
_TRUE_WORDS = {YES, "y", "true", "1"}
_FALSE_WORDS = {NO, "n", "false", "0"}
LONGEST_ID = 64


class CellProblem(StudioError):
    """A cell that cannot be read; the message says how to fix it. The reader turns each into a
    located CellError, so none leaves this package on its own."""


def refuse_formula(value: Any, data_type: str | None) -> None:
    """Formulas and Excel's error values are never read as a criterion's field."""
    if data_type == "f":
        text = value if isinstance(value, str) else "a formula"
        raise CellProblem(f"the cell holds a formula ({text}); rubric cells hold values: to keep this as text, "
                          f"type it with a leading apostrophe ('{text})")
    if data_type == "e":
        raise CellProblem(f"the cell shows the error {value}: type the value itself")


def read_id(value: Any, what: str = "id") -> str | None:
    text = plain(value)
    if text is None:
        return None
    if not _ID.fullmatch(text) or len(text) > LONGEST_ID:
        raise CellProblem(f"'{text}' is not a valid {what}: use letters, digits, '.', '-' and '_', starting with a "
                          f"letter or digit, at most {LONGEST_ID} characters")
    return text


def read_ids(value: Any, what: str) -> list[str]:
    text = plain(value)
    if text is None:
        return []
    return [read_id(item, what) or "" for item in _ID_LIST_SEPARATORS.split(text) if item]


def read_lines(value: Any) -> list[str]:
    text = plain(value)
    if text is None:
        return []
    return [line.strip() for line in text.split(LIST_SEPARATOR) if line.strip()]


def read_choice(value: Any, column: Column) -> str | None:
    text = plain(value)
    if text is None:
        return None
    if text.lower() not in column.choices:
        raise CellProblem(f"'{text}' is not a {column.header}: pick one of {', '.join(column.choices)}")
    return text.lower()


def read_weight(value: Any) -> int | None:
    if value is None or isinstance(value, str) and not value.strip():
        return None
    if isinstance(value, bool):
        raise CellProblem("a weight is a number, not TRUE/FALSE: write it in digits, 1 to 10 (-1 to -10 for a "
                          "deduction, 0 for a fatal gate)")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        raise CellProblem(f"'{plain(value)}' is not a whole number: write the weight in digits, 1 to 10 (-1 to -10 "
                          "for a deduction, 0 for a fatal gate)")
    if (problem := weight_out_of_range(number)) is not None:
        raise CellProblem(problem)
    return number


def read_gate(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = plain(value)
    if text is None:
        return False
    if text.lower() in _TRUE_WORDS:
        return True
    if text.lower() in _FALSE_WORDS:
        return False
    raise CellProblem(f"'{text}' is not yes or no: pick yes for a fatal gate, no (or leave it empty) otherwise")


def read_text(value: Any) -> str | None:
    return plain(value)
