"""The agent judge's tools over one submission: list its files, read lines, a sheet range, PDF pages, an image.

Every file is reached through studio.untrusted (never through a link out of the submission, never a
device or a file hard-linked outside it), and read by the evidence readers. A call the tools cannot
serve (an unknown tool, arguments that are no JSON object of the declared fields, a path outside the
tree, a file too large or of another kind) gives a `ToolResult` whose `error` says what was wrong and
what to do instead, for the model to read: a tool never raises.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.judging.errors import JudgingError
from studio.judging.evidence import SUBMISSION, kind_of, submission_files
from studio.judging.evidence_budget import Budget, EvidenceLimits, ReadError
from studio.untrusted import Limits, UntrustedFileError, shown
from studio.untrusted.limits import size_text
from studio.untrusted.tree import open_reached, reach, read_bytes

# What one tool result may hold: a page of a file, not the file (the model asks for the next part).
MAX_RESULT_CHARS = 20_000
MAX_LINES = 400
MAX_CELLS = 2_000
MAX_PAGES = 5
MAX_HITS = 20
# A text file is read up to this size for a range of its lines; a larger one is refused as too large.
MAX_TEXT_BYTES = 64 << 20
MAX_IMAGE_BYTES = 4 << 20


def _function(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    """A function tool as the chat-completions API documents it, strict (every field required, no other)."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(properties),
                           "additionalProperties": False},
            "strict": True,
        },
    }


_PATH = {"type": "string", "description": "the file's path in the submission, as list_files gives it"}
TOOLS: list[dict[str, Any]] = [
    _function("list_files", "List every file of the submission with its kind and size in bytes.", {}),
    _function("read_lines", "Read lines FIRST to LAST (1-based, inclusive) of a text, Markdown, CSV or JSON file; "
              f"at most {MAX_LINES} lines or {MAX_RESULT_CHARS:,} characters per call.",
              {"path": _PATH, "first": {"type": "integer"}, "last": {"type": "integer"}}),
    _function("read_sheet", "Read a range of cells of a sheet of an xlsx workbook, each with its saved value and "
              f"its formula; at most {MAX_CELLS:,} cells per call. An empty sheet name reads the first sheet.",
              {"path": _PATH, "sheet": {"type": "string"},
               "range": {"type": "string", "description": "cells in A1 notation, such as A1:F40"}}),
    _function("search_pdf", f"Search a PDF's text for a phrase (case-insensitive); the first {MAX_HITS} pages that "
              "hold it, with the lines around it.", {"path": _PATH, "query": {"type": "string"}}),
    _function("read_pdf_pages", f"Read the text of pages FIRST to LAST (1-based) of a PDF; at most {MAX_PAGES} pages "
              "per call.", {"path": _PATH, "first": {"type": "integer"}, "last": {"type": "integer"}}),
    _function("open_image", "Open an image of the submission: shown to a model that reads images, else described.",
              {"path": _PATH}),
]
TOOL_NAMES = tuple(tool["function"]["name"] for tool in TOOLS)
TOOLS_TOKENS = len(json.dumps(TOOLS)) // 4
"""What the tools' definitions add to every request's prompt, estimated as request_shape estimates text."""


@dataclass(frozen=True)
class ToolResult:
    text: str  # what the model reads (the error's words when `error`)
    error: bool = False
    image_url: str | None = None  # a data: URL of an opened image, for a model that reads images


class BadCall(JudgingError):
    """A call the tools refuse; the message is the tool result the model reads (never raised out of
    `SubmissionTools.call`)."""


class SubmissionTools:
    """The tools over the files of `folder`; `images`: whether an opened image is given as an image."""

    def __init__(self, folder: Path, images: bool = False) -> None:
        self.folder = Path(folder)
        self.images = images
        self._tools: dict[str, Callable[[dict[str, Any]], ToolResult]] = {
            "list_files": self._list_files, "read_lines": self._read_lines, "read_sheet": self._read_sheet,
            "search_pdf": self._search_pdf, "read_pdf_pages": self._read_pdf_pages, "open_image": self._open_image,
        }

    def call(self, name: str, arguments: str) -> ToolResult:
        """The result of one call; an error result, never an exception, for a call that cannot be served."""
        tool = self._tools.get(name)
        if tool is None:
            return ToolResult(f"error: there is no tool {shown(name)!r}; the tools are {', '.join(TOOL_NAMES)}", True)
        try:
            return tool(_arguments(name, arguments))
        except BadCall as problem:
            return ToolResult(f"error: {problem}", True)
        except UntrustedFileError as refused:
            return ToolResult(f"error: {refused}", True)
        except ReadError as problem:
            return ToolResult(f"error: the file cannot be read: {problem}", True)
        except Exception as problem:  # noqa: BLE001 - a broken file is the model's to hear of, never a crash
            return ToolResult(f"error: {name} failed on this file: {type(problem).__name__}: {problem}", True)

    def _reach(self, rel: Any, kinds: tuple[str, ...], limit: int) -> tuple[Path, str]:
        if not isinstance(rel, str) or not rel.strip():
            raise BadCall("'path' must be a path of the submission, as list_files gives it")
        rel = rel.strip()
        if rel.startswith("/"):
            raise BadCall(f"{shown(rel)} is an absolute path: give a path inside the submission, as list_files "
                          "gives it")
        reached = reach(self.folder, rel, tree=SUBMISSION, limits=Limits())
        if reached.info.st_size > limit:
            raise BadCall(f"{shown(rel)} is {size_text(reached.info.st_size)}, over the limit of {size_text(limit)} "
                          "this tool reads")
        kind = kind_of(reached.path)
        if kind not in kinds:
            raise BadCall(f"{shown(rel)} is a file of kind {kind}; this tool reads {' or '.join(kinds)} files")
        os.close(open_reached(reached, rel))  # refused now if it was swapped for a link since it was reached
        return reached.path, rel

    def _list_files(self, _: dict[str, Any]) -> ToolResult:
        lines = []
        for rel in submission_files(self.folder):
            try:
                reached = reach(self.folder, rel, tree=SUBMISSION, limits=Limits())
            except UntrustedFileError as refused:
                lines.append(f"{shown(rel)} (not readable: {refused})")
                continue
            lines.append(f"{shown(rel)} ({kind_of(reached.path)}, {reached.info.st_size:,} bytes)")
        return ToolResult("\n".join(lines) if lines else "(the submission has no files)")

    def _read_lines(self, args: dict[str, Any]) -> ToolResult:
        from studio.judging.evidence_text import decode

        _, rel = self._reach(args["path"], ("text", "markdown", "csv", "json"), MAX_TEXT_BYTES)
        name = shown(rel)
        first, last = _span(args, MAX_LINES, "lines")
        data = read_bytes(self.folder, rel, limit=MAX_TEXT_BYTES, tree=SUBMISSION)
        text, problem = decode(data, len(data))
        lines = text.splitlines()
        if first > len(lines):
            raise BadCall(f"{name} has {len(lines):,} lines: line {first:,} is past its end")
        shown_lines, size = [], 0
        for number in range(first, min(last, len(lines)) + 1):
            line = f"{number}: {lines[number - 1]}"
            if size + len(line) + 1 > MAX_RESULT_CHARS:
                break
            shown_lines.append(line)
            size += len(line) + 1
        end = first + len(shown_lines) - 1
        head = f"{name} lines {first}-{end} of {len(lines):,} (cite as {name}#L{first}-L{end})"
        if end < min(last, len(lines)):
            head += f"; cut at {MAX_RESULT_CHARS:,} characters: read from line {end + 1} next"
        if problem:
            head += f"; {problem}"
        return ToolResult(head + "\n" + "\n".join(shown_lines))

    def _read_sheet(self, args: dict[str, Any]) -> ToolResult:
        from openpyxl.utils import get_column_letter
        from openpyxl.utils.cell import range_boundaries

        from studio.judging.evidence_xlsx import WorkbookCells, cell_text, sheet_prefix

        path, rel = self._reach(args["path"], ("xlsx",), 512 << 20)
        name = shown(rel)
        area, sheet = args["range"], args["sheet"]
        if not isinstance(area, str) or not isinstance(sheet, str):
            raise BadCall("'sheet' and 'range' must be text, such as \"Model\" and \"A1:F40\"")
        try:
            low_col, low_row, high_col, high_row = range_boundaries(area.replace("$", "").strip().upper())
        except (ValueError, TypeError):
            raise BadCall(f"range {area!r} is not in A1 notation: give one such as A1:F40") from None
        if None in (low_col, low_row, high_col, high_row):
            raise BadCall(f"range {area!r} must name its corners, such as A1:F40 (not whole columns or rows)")
        with WorkbookCells(path) as book:
            if not book.sheet_names:
                raise BadCall(f"{name} has no sheet")
            title = sheet or book.sheet_names[0]
            if title not in book.sheet_names:
                raise BadCall(f"{name} has no sheet {sheet!r}; its sheets: {', '.join(book.sheet_names)}")
            found: list[str] = []
            for _, row, cells in book.rows(sheet_name=title):
                if row < low_row:
                    continue
                if row > high_row or len(found) >= MAX_CELLS:
                    break
                found += [f"{get_column_letter(column)}{row} = {cell_text(value, formula)}"
                          for column, value, formula in cells if low_col <= column <= high_col]
        kept = found[:MAX_CELLS]
        text, size = [], 0
        for line in kept:
            if size + len(line) + 1 > MAX_RESULT_CHARS:
                break
            text.append(line)
            size += len(line) + 1
        head = f"{name}!{sheet_prefix(title)}{area}: {len(text):,} cells that hold something (cite as " \
               f"{name}!{sheet_prefix(title)}B4)"
        if len(text) < len(found):
            head += f"; cut at {len(text):,} cells: read a smaller range next"
        return ToolResult(head + "\n" + ("\n".join(text) if text else "(no cell of the range holds anything)"))

    def _pdf(self, args: dict[str, Any]) -> tuple[Any, str]:
        import pymupdf

        path, rel = self._reach(args["path"], ("pdf",), 512 << 20)
        name = shown(rel)
        try:
            document = pymupdf.open(path, filetype="pdf")
        except (pymupdf.FileDataError, RuntimeError, ValueError, OSError) as error:
            raise ReadError(f"the PDF is damaged: {error}") from error
        if document.needs_pass:
            document.close()
            raise ReadError("the PDF is password-protected: its text cannot be read")
        return document, name

    def _search_pdf(self, args: dict[str, Any]) -> ToolResult:
        query = args["query"]
        if not isinstance(query, str) or not query.strip():
            raise BadCall("'query' must be the phrase to look for")
        document, name = self._pdf(args)
        needle, hits = query.strip().lower(), []
        with document:
            for number in range(document.page_count):
                lines = str(document.load_page(number).get_text()).splitlines()
                around = [i for i, line in enumerate(lines) if needle in line.lower()]
                if around:
                    first = around[0]
                    snippet = " / ".join(line.strip() for line in lines[max(0, first - 1): first + 2])
                    hits.append(f"[{name}#page={number + 1}] {len(around)} line(s): {snippet[:400]}")
                if len(hits) >= MAX_HITS:
                    break
            pages = document.page_count
        if not hits:
            return ToolResult(f"{query!r} is on none of the {pages:,} pages of {name}")
        return ToolResult(f"{query!r} in {name} ({pages:,} pages):\n" + "\n".join(hits))

    def _read_pdf_pages(self, args: dict[str, Any]) -> ToolResult:
        first, last = _span(args, MAX_PAGES, "pages")
        document, name = self._pdf(args)
        with document:
            pages = document.page_count
            if first > pages:
                raise BadCall(f"{name} has {pages:,} pages: page {first:,} is past its end")
            budget = Budget(MAX_RESULT_CHARS, f"the limit of {MAX_RESULT_CHARS:,} characters per tool result")
            for number in range(first, min(last, pages) + 1):
                text = str(document.load_page(number - 1).get_text()).strip()
                if not budget.add(f"{name}#page={number}", text or "(no text on this page: it may be a scan)"):
                    break
        parts = [f"[{excerpt.ref}]\n{excerpt.text}" for excerpt in budget.excerpts]
        note = f"; {budget.cut_note('the pages asked')}" if budget.full else ""
        return ToolResult(f"{name}, {pages:,} pages{note}\n" + "\n\n".join(parts))

    def _open_image(self, args: dict[str, Any]) -> ToolResult:
        from studio.judging.evidence_image import read_image

        path, rel = self._reach(args["path"], ("image",), MAX_IMAGE_BYTES)
        name = shown(rel)
        budget = Budget(10_000, "the image's description")
        read_image(path, name, budget, EvidenceLimits())
        described = budget.excerpts[0].text if budget.excerpts else "(image)"
        if not self.images:
            return ToolResult(f"{name}: {described}; this judge's model is not given images, so only this "
                              "description is known of it")
        kind = mimetypes.guess_type(path.name)[0] or "image/png"
        data = read_bytes(self.folder, rel, limit=MAX_IMAGE_BYTES, tree=SUBMISSION)
        url = f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"
        return ToolResult(f"{name}: {described}; the image follows in the next message", image_url=url)


def _arguments(name: str, text: str) -> dict[str, Any]:
    """The call's arguments: a JSON object holding exactly the fields the tool declares."""
    declared = next(tool["function"]["parameters"]["properties"] for tool in TOOLS
                    if tool["function"]["name"] == name)
    try:
        value = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        raise BadCall(f"the arguments of {name} are not JSON: {text[:200]!r}; give a JSON object with "
                      f"{', '.join(declared) or 'no field'}") from None
    if not isinstance(value, dict):
        raise BadCall(f"the arguments of {name} must be a JSON object, not {type(value).__name__}")
    missing = [field for field in declared if field not in value]
    unknown = [str(field) for field in value if field not in declared]
    if missing or unknown:
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unknown {', '.join(unknown)}"] if unknown else [])
        raise BadCall(f"the arguments of {name}: {'; '.join(parts)} (it takes {', '.join(declared) or 'nothing'})")
    return value


def _span(args: dict[str, Any], most: int, what: str) -> tuple[int, int]:
    first, last = args["first"], args["last"]
    if not all(isinstance(value, int) and not isinstance(value, bool) for value in (first, last)):
        raise BadCall(f"'first' and 'last' must be whole numbers of {what}")
    if first < 1 or last < first:
        raise BadCall(f"give 1 <= first <= last (got first {first}, last {last})")
    return first, min(last, first + most - 1)
