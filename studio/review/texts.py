"""Text the agent sees (brief, instructions, materials) and the text only judges see.

Material files are read as text whatever their format: Markdown, CSV and plain text as they
are, PDF through PyMuPDF, xlsx through openpyxl (cell values, sheet by sheet).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from studio.model import Material, Project
from studio.store import layout

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
    except Exception:  # an unreadable file has no text to check; validation reports bad files
        return ""
    return ""


def file_text(path: Path) -> str:
    """The text of a file, cached by path, modification time and size."""
    try:
        stat = path.stat()
    except OSError:
        return ""
    return _file_text_cached(str(path), stat.st_mtime_ns, stat.st_size)


@dataclass(frozen=True)
class NameHit:
    material_id: str
    start: int
    matched: str


class MaterialNames:
    """Finds mentions of materials in a text: by id (whole word), file name or exact title."""

    def __init__(self, materials: list[Material]):
        self._by_name: dict[str, str] = {}
        for material in materials:
            names = [material.id]
            if material.file:
                names.append(Path(material.file).name)
            if len(material.title) >= 12:  # short titles ("Notes") would match ordinary prose
                names.append(material.title)
            for name in names:
                self._by_name.setdefault(name.lower(), material.id)
        alternatives = sorted(self._by_name, key=len, reverse=True)
        if alternatives:
            pattern = "|".join(re.escape(a) for a in alternatives)
            self._regex = re.compile(rf"(?<![\w.-])(?:{pattern})(?![\w-])", re.IGNORECASE)
        else:
            self._regex = None

    def find(self, text: str) -> list[NameHit]:
        if self._regex is None:
            return []
        return [NameHit(self._by_name[m.group(0).lower()], m.start(), m.group(0)) for m in self._regex.finditer(text)]


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


def agent_facing_texts(root: Path, project: Project) -> list[tuple[str, str]]:
    """(project-relative file, text) of the brief, every instruction and every material file."""
    texts: list[tuple[str, str]] = []
    if project.info is not None:
        texts.append((project.info.brief, file_text(root / project.info.brief)))
    for sid, subtask in sorted(project.subtasks.items()):
        rel = f"{layout.SUBTASKS_DIR}/{sid}/{subtask.instruction}"
        texts.append((rel, file_text(root / rel)))
    for material in project.materials.materials if project.materials else []:
        if material.file:
            rel = f"{layout.MATERIALS_DIR}/{material.file}"
            texts.append((rel, file_text(root / rel)))
    return texts
