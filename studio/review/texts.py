"""Text the agent sees (brief, instructions, materials) and the text only judges see.

Material files are read as text whatever their format: Markdown, CSV and plain text as they
are, PDF through PyMuPDF, xlsx through openpyxl (cell values, sheet by sheet).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from studio.errors import StudioError
from studio.model import Project
from studio.validation.paths import material_path, subtask_path

PLAIN_SUFFIXES = {".md", ".markdown", ".txt", ".csv", ".tsv", ".json", ".yaml", ".yml", ".html", ".xml", ".py"}


def _pdf_text(path: Path) -> str:
    import pymupdf

    with pymupdf.open(path) as document:
        return "\n".join(page.get_text() for page in document)


def _xlsx_text(path: Path) -> str:
    import openpyxl

    workbook = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        lines = []
        for sheet in workbook.worksheets:
            lines.append(sheet.title)
            for row in sheet.iter_rows(values_only=True):
                cells = [str(v) for v in row if v is not None]
                if cells:
                    lines.append(" ".join(cells))
        return "\n".join(lines)
    finally:
        workbook.close()


@lru_cache(maxsize=4096)
def _file_text_cached(path: str, mtime_ns: int, size: int) -> str:
    file = Path(path)
    suffix = file.suffix.lower()
    try:
        if suffix == ".pdf":
            return _pdf_text(file)
        if suffix in (".xlsx", ".xlsm"):
            return _xlsx_text(file)
        if suffix in PLAIN_SUFFIXES or suffix == "":
            return file.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        raise  # the caller says which file could not be read
    except Exception:  # a damaged PDF or workbook has no text to check; validation reports bad files
        return ""
    return ""


def file_text(path: Path) -> str:
    """The text of a file, cached by path, modification time and size; "" when it does not
    exist. Raises OSError when it exists but cannot be read."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return ""
    return _file_text_cached(str(path), stat.st_mtime_ns, stat.st_size)


class Refusal(StudioError):
    """A project file review will not read: unreadable, or a link to outside the project."""

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.message = message


def inside_project(root: Path, rel: str) -> Path | None:
    """The file `rel` of the project at `root`, after following links; None when it does not
    exist. Raises Refusal when it lies outside the project (a link out, or `..`)."""
    path = root / rel
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        return None
    except (OSError, RuntimeError) as exc:  # a link loop, or a folder on the way we may not enter
        raise Refusal("files.unreadable", f"{rel} cannot be read ({exc.__class__.__name__}): "
                      "fix the file or its links so review can check it") from exc
    if not real.is_relative_to(root.resolve()):
        raise Refusal("files.outside-project", f"{rel} leads outside the project (to {real}): review does not read "
                      "files outside the project folder; copy the file into the project instead of linking to it")
    return real


def project_text(root: Path, rel: str) -> str:
    """The text of a project file as agents or judges see it; "" when it does not exist."""
    real = inside_project(root, rel)
    if real is None:
        return ""
    try:
        return file_text(real)
    except OSError as exc:
        raise Refusal("files.unreadable", f"{rel} cannot be read ({exc.strerror or exc}): "
                      "fix its permissions so review can check it") from exc


def project_bytes(root: Path, rel: str) -> bytes | None:
    """The bytes of a project file; None when it does not exist."""
    real = inside_project(root, rel)
    if real is None or not real.is_file():
        return None
    try:
        return real.read_bytes()
    except OSError as exc:
        raise Refusal("files.unreadable", f"{rel} cannot be read ({exc.strerror or exc}): "
                      "fix its permissions so review can check it") from exc


_WORD = re.compile(r"\w+(?:[.,']\w+)*")


def words(text: str) -> list[tuple[str, int]]:
    """Lower-cased words with their character offsets; numbers keep their separators."""
    return [(m.group(0).lower(), m.start()) for m in _WORD.finditer(text)]


def shingles(tokens: list[str], size: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + size]) for i in range(len(tokens) - size + 1)}


@dataclass(frozen=True)
class Passage:
    start: int  # character offset in the agent-facing text
    words: int
    excerpt: str


def shared_passages(reference_shingles: set[tuple[str, ...]], text: str, size: int) -> list[Passage]:
    """Runs of at least `size` consecutive words of `text` that also occur in the reference."""
    tokens = words(text)
    plain = [w for w, _ in tokens]
    passages: list[Passage] = []
    i = 0
    while i + size <= len(plain):
        if tuple(plain[i:i + size]) in reference_shingles:
            j = i + 1
            while j + size <= len(plain) and tuple(plain[j:j + size]) in reference_shingles:
                j += 1
            length = j - i + size - 1
            excerpt = " ".join(plain[i:i + min(length, 12)]) + (" ..." if length > 12 else "")
            passages.append(Passage(tokens[i][1], length, excerpt))
            i = j + size - 1
        else:
            i += 1
    return passages


def agent_facing_files(project: Project) -> list[str]:
    """Project-relative paths of the brief, every instruction and every material file."""
    files: list[str] = []
    if project.info is not None:
        files.append(project.info.brief)
    for sid, subtask in sorted(project.subtasks.items()):
        files.append(subtask_path(sid, subtask.instruction))
    for material in project.materials.materials if project.materials else []:
        if material.file:
            files.append(material_path(material.file))
    return files
