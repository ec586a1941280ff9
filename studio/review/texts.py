"""Text the agent sees (brief, instructions, materials) and the text only judges see.

Material files are read as text whatever their format: Markdown, CSV and plain text as they
are, PDF through PyMuPDF, xlsx through openpyxl (cell values, sheet by sheet).
"""

from __future__ import annotations

import io
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

from studio.errors import StudioError
from studio.model import Project
from studio.store.fileview import DiskFiles, normal
from studio.validation.paths import material_path, subtask_path

PLAIN_SUFFIXES = {".md", ".markdown", ".txt", ".csv", ".tsv", ".json", ".yaml", ".yml", ".html", ".xml", ".py"}


def _pdf_text(path: Path | bytes) -> str:
    import pymupdf

    opened = pymupdf.open(stream=path, filetype="pdf") if isinstance(path, bytes) else pymupdf.open(path)
    with opened as document:
        return "\n".join(page.get_text() for page in document)


def _xlsx_text(path: Path | bytes) -> str:
    import openpyxl

    source = io.BytesIO(path) if isinstance(path, bytes) else path
    workbook = openpyxl.load_workbook(source, read_only=True, data_only=False)
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


@lru_cache(maxsize=256)
def content_text(name: str, data: bytes) -> str:
    """The text of a file not saved yet (named `name`, holding `data`), read as `file_text` reads
    a saved one. Cached by content: a background review asks again after every edit."""
    suffix = PurePosixPath(name).suffix.lower()
    try:
        if suffix == ".pdf":
            return _pdf_text(data)
        if suffix in (".xlsx", ".xlsm"):
            return _xlsx_text(data)
    except Exception:  # a damaged PDF or workbook has no text to check; validation reports bad files
        return ""
    if suffix in PLAIN_SUFFIXES or suffix == "":
        return data.decode("utf-8", errors="replace")
    return ""


def file_text(path: str | Path) -> str:
    """The text of a file, cached by path, modification time and size; "" when it does not
    exist. Raises OSError when it exists but cannot be read."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return ""
    return _file_text_cached(str(path), status.st_mtime_ns, status.st_size)


class Refusal(StudioError):
    """A project file review will not read: unreadable, or a link to outside the project."""

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.message = message


class ProjectFiles:
    """Reads the files of one project for review, refusing any that lead outside it.

    The files are those of `view`: an open project's unsaved files (`view.overrides`) are read
    from memory, every other file from disk. Folders are resolved once each (a project has few,
    and files many); a file is resolved itself only when it is a link."""

    def __init__(self, root: Path, view: DiskFiles | None = None):
        self.root = str(root)
        self.overrides = (view or DiskFiles(root)).overrides
        self._real_root = os.path.realpath(self.root)
        self._real_dirs: dict[str, str] = {}

    def _real_dir(self, folder: str) -> str:
        real = self._real_dirs.get(folder)
        if real is None:
            real = self._real_dirs[folder] = os.path.realpath(folder)
        return real

    def locate(self, rel: str) -> str | None:
        """The file `rel` after following links; None when it does not exist. Raises Refusal
        when it lies outside the project (a link out, or `..`)."""
        path = os.path.join(self.root, rel)
        try:
            status = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:  # a folder on the way we may not enter
            raise Refusal("files.unreadable", f"{rel} cannot be read ({exc.strerror or exc}): "
                          "fix the file's folder permissions so review can check it") from exc
        if stat.S_ISLNK(status.st_mode):
            real = os.path.realpath(path)
            if not os.path.exists(real):
                return None  # a dangling link reads as a missing file
        else:
            folder, name = os.path.split(path)
            real = os.path.join(self._real_dir(folder), name)
        if os.path.commonpath([self._real_root, real]) != self._real_root:
            raise Refusal("files.outside-project", f"{rel} leads outside the project (to {real}): review does not "
                          "read files outside the project folder; copy the file into the project instead of "
                          "linking to it")
        return real

    def text(self, rel: str) -> str:
        """The text of a project file as agents or judges see it; "" when it does not exist."""
        if self.overrides:
            key = normal(rel)
            if key in self.overrides:
                data = self.overrides[key]
                return "" if data is None else content_text(key, data)
        real = self.locate(rel)
        if real is None:
            return ""
        try:
            return file_text(real)
        except OSError as exc:
            raise Refusal("files.unreadable", f"{rel} cannot be read ({exc.strerror or exc}): "
                          "fix its permissions so review can check it") from exc

    def data(self, rel: str) -> bytes | None:
        """The bytes of a project file; None when it does not exist or is not a file."""
        if self.overrides:
            key = normal(rel)
            if key in self.overrides:
                return self.overrides[key]
        real = self.locate(rel)
        if real is None or not os.path.isfile(real):
            return None
        try:
            with open(real, "rb") as file:
                return file.read()
        except OSError as exc:
            raise Refusal("files.unreadable", f"{rel} cannot be read ({exc.strerror or exc}): "
                          "fix its permissions so review can check it") from exc


_WORD = re.compile(r"\w+(?:[.,']\w+)*")


def words(text: str) -> list[tuple[str, int]]:
    """Lower-cased words with their character offsets; numbers keep their separators."""
    return [(m.group(0).lower(), m.start()) for m in _WORD.finditer(text)]


def plain_words(text: str) -> list[str]:
    """The words of `words(text)` without their offsets (faster: no match objects)."""
    return [w.lower() for w in _WORD.findall(text)]


def shingles(tokens: list[str], size: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + size]) for i in range(len(tokens) - size + 1)}


@dataclass(frozen=True)
class Passage:
    start: int  # character offset in the agent-facing text
    words: int
    excerpt: str


class Quotations:
    """Finds, in agent-facing texts, runs of `size`+ consecutive words shared with references.

    Each text is split into words once. A shared run of `size` words holds, wholly inside it, a
    run of `anchor` = size // 2 words starting at a multiple of `anchor`, and that shorter run
    occurs in some reference too; so a text is first probed only at every `anchor`-th word, in
    the union of the references' short runs. Only a text with a hit there is compared with each
    reference word by word."""

    def __init__(self, references: dict[str, str], size: int):
        self.size = size
        self.anchor = max(1, size // 2)
        words_of = {ref_id: plain_words(text) for ref_id, text in references.items()}
        self.shingles = {ref_id: shingles(tokens, size) for ref_id, tokens in words_of.items()}
        self._anchors: set[tuple[str, ...]] = set()
        for tokens in words_of.values():
            if len(tokens) >= size:
                self._anchors |= shingles(tokens, self.anchor)

    def passages(self, text: str) -> dict[str, list[Passage]]:
        """Reference id -> the passages of `text` it shares (references sharing none left out)."""
        plain = plain_words(text)
        size, anchor, anchors = self.size, self.anchor, self._anchors
        if not any(tuple(plain[i:i + anchor]) in anchors for i in range(0, len(plain) - anchor + 1, anchor)):
            return {}
        offsets = [m.start() for m in _WORD.finditer(text)]
        found = {}
        for ref_id, ref_shingles in self.shingles.items():
            passages = _runs(ref_shingles, plain, offsets, size)
            if passages:
                found[ref_id] = passages
        return found


def shared_passages(reference_shingles: set[tuple[str, ...]], text: str, size: int) -> list[Passage]:
    """Runs of at least `size` consecutive words of `text` that also occur in the reference."""
    tokens = words(text)
    return _runs(reference_shingles, [w for w, _ in tokens], [o for _, o in tokens], size)


def _runs(reference_shingles: set[tuple[str, ...]], plain: list[str], offsets: list[int], size: int) -> list[Passage]:
    passages: list[Passage] = []
    i = 0
    while i + size <= len(plain):
        if tuple(plain[i:i + size]) in reference_shingles:
            j = i + 1
            while j + size <= len(plain) and tuple(plain[j:j + size]) in reference_shingles:
                j += 1
            length = j - i + size - 1
            excerpt = " ".join(plain[i:i + min(length, 12)]) + (" ..." if length > 12 else "")
            passages.append(Passage(offsets[i], length, excerpt))
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
