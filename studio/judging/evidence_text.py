"""Evidence from text files: Markdown, plain text, CSV and JSON, in blocks of lines cited as `path#Lm-Ln`."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

from studio.judging.evidence_budget import Budget, EvidenceLimits, ReadError

BLOCK_LINES = 30
"""Lines per excerpt: short enough to cite a place, long enough to keep a paragraph or a table together."""
JSON_LINE = 1_000
"""A JSON file with a longer line is minified: it is shown indented (and cited as the whole file)."""


def read_bytes(path: Path, limits: EvidenceLimits) -> tuple[bytes, int]:
    """The file's first bytes (enough for any limit) and its size; a huge log is never read whole."""
    cap = max(limits.file_chars * 4, 1 << 20)
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            return handle.read(cap if cap < size else -1), size
    except OSError as error:
        raise ReadError(f"cannot be read ({error.strerror})") from error


def decode(data: bytes, size: int) -> tuple[str, str | None]:
    """The text and, when the bytes are not valid UTF-8, an error saying where (the text keeps the rest)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace"), None
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        if len(data) < size and error.start >= len(data) - 3:  # a character split by the read cap
            return data[: error.start].decode("utf-8-sig", errors="replace"), None
        bad = data[error.start: error.start + 4]
        return (data.decode("utf-8-sig", errors="replace"),
                f"not valid UTF-8 (at byte {error.start:,}: {bad!r}); the undecodable bytes are shown as \ufffd")


def _whole(text: str, data: bytes, size: int) -> str:
    return f"{len(text):,} characters" if len(data) == size else f"{size:,} bytes"


def _blocks(lines: list[str], markdown: bool) -> Iterator[tuple[int, int]]:
    """(first, last) 0-based line ranges: a Markdown heading starts a block; a blank line ends a long one."""
    start = 0
    for number, line in enumerate(lines):
        length = number - start
        if length and ((markdown and line.startswith("#")) or length >= BLOCK_LINES
                       or (not line.strip() and length >= BLOCK_LINES // 2)):
            yield start, number - 1
            start = number
    if start < len(lines):
        yield start, len(lines) - 1


def _add_lines(rel: str, lines: list[str], budget: Budget, markdown: bool, prefix: str = "") -> None:
    for first, last in _blocks(lines, markdown):
        block = "\n".join(lines[first: last + 1]).strip("\n")
        if not block.strip():
            continue
        ref = f"{rel}#L{first + 1}" if first == last else f"{rel}#L{first + 1}-L{last + 1}"
        if not budget.add(ref, (prefix if first else "") + block):
            return


def read_text(path: Path, rel: str, budget: Budget, limits: EvidenceLimits, markdown: bool = False
              ) -> tuple[str | None, str | None]:
    """(cut note, error) of a Markdown or text file."""
    data, size = read_bytes(path, limits)
    text, error = decode(data, size)
    _add_lines(rel, text.splitlines(), budget, markdown)
    cut = budget.cut_note(_whole(text, data, size)) if budget.full or len(data) < size else None
    return cut, error


def read_markdown(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    return read_text(path, rel, budget, limits, markdown=True)


def read_csv(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """A CSV as its lines; blocks after the first repeat the header so each one can be read alone."""
    data, size = read_bytes(path, limits)
    text, error = decode(data, size)
    lines = text.splitlines()
    dialect: type[csv.Dialect] | csv.Dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
    reader = csv.reader(lines, dialect, strict=True)  # strict: an unclosed quote is an error, not a silent merge
    try:
        for _ in reader:
            pass
    except csv.Error as problem:
        error = error or f"the CSV is malformed at line {reader.line_num:,}: {problem}"
    prefix = f"(columns: {lines[0].strip()})\n" if lines else ""
    _add_lines(rel, lines, budget, markdown=False, prefix=prefix)
    cut = budget.cut_note(_whole(text, data, size)) if budget.full or len(data) < size else None
    return cut, error


def read_json(path: Path, rel: str, budget: Budget, limits: EvidenceLimits) -> tuple[str | None, str | None]:
    """A JSON file as its lines, or indented when it is minified; malformed JSON is shown and named."""
    data, size = read_bytes(path, limits)
    text, error = decode(data, size)
    lines = text.splitlines()
    value: object = None
    if len(data) == size:
        try:
            value = json.loads(text)
        except ValueError as problem:
            where = (f" at line {problem.lineno:,} column {problem.colno:,}"
                     if isinstance(problem, json.JSONDecodeError) else "")
            error = error or f"the JSON is malformed{where}: {getattr(problem, 'msg', problem)}"
        else:
            if any(len(line) > JSON_LINE for line in lines):  # minified: indented lines, cited as the file
                pretty = json.dumps(value, indent=1, ensure_ascii=False).splitlines()
                for first in range(0, len(pretty), BLOCK_LINES):
                    if not budget.add(rel, "\n".join(pretty[first: first + BLOCK_LINES])):
                        break
                whole = f"{len(text):,} characters ({len(pretty):,} lines indented)"
                return (budget.cut_note(whole) if budget.full else None), error
    _add_lines(rel, lines, budget, markdown=False)
    cut = budget.cut_note(_whole(text, data, size)) if budget.full or len(data) < size else None
    return cut, error
