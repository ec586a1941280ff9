"""The evidence of a submission: what a judge or an expert reads of its files, each place citable.

Every file gives a FileEvidence: excerpts with a citable ref, a stated note when a limit cut it, and an
error (never an exception) when it is broken, so the judge sees the problem and the verdict records it."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from studio.collector import collector_paused
from studio.judging.evidence_budget import Budget, EvidenceLimits, Excerpt, ReadError, line_cost
from studio.judging.evidence_image import read_image
from studio.judging.evidence_office import read_docx, read_pptx
from studio.judging.evidence_pdf import read_pdf
from studio.judging.evidence_text import read_csv, read_json, read_markdown, read_text
from studio.judging.evidence_xlsx import read_xlsx
from studio.untrusted import Limits, UntrustedFileError, shown
from studio.untrusted.limits import DEFAULT_LIMITS
from studio.untrusted.tree import HardLinks, open_reached, reach, walk

__all__ = ["Evidence", "EvidenceLimits", "Excerpt", "FileEvidence", "extract_evidence", "file_evidence", "kind_of",
           "locate", "submission_files"]

Reader = Callable[[Path, str, Budget, EvidenceLimits], tuple[str | None, str | None]]

KINDS: dict[str, str] = {
    **dict.fromkeys((".md", ".markdown"), "markdown"),
    **dict.fromkeys((".csv", ".tsv"), "csv"),
    ".json": "json",
    **dict.fromkeys((".xlsx", ".xlsm"), "xlsx"),
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    **dict.fromkeys((".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"), "image"),
    **dict.fromkeys(
        (
            ".txt",
            ".text",
            ".log",
            ".rst",
            ".tex",
            ".yaml",
            ".yml",
            ".toml",
            ".ini",
            ".xml",
            ".html",
            ".htm",
            ".py",
            ".r",
            ".sql",
            ".sh",
            ".js",
            ".ts",
            ".css",
            ".ipynb",
        ),
        "text",
    ),
}
"""File kind by extension; a file with another extension is read as text when it looks like text."""

READERS: dict[str, Reader] = {
    "markdown": read_markdown,
    "text": read_text,
    "csv": read_csv,
    "json": read_json,
    "xlsx": read_xlsx,
    "pdf": read_pdf,
    "docx": read_docx,
    "pptx": read_pptx,
    "image": read_image,
}


@dataclass(frozen=True)
class FileEvidence:
    path: str  # relative to the submission folder, with "/"
    kind: str  # markdown|text|csv|json|xlsx|pdf|docx|pptx|image|other
    excerpts: tuple[Excerpt, ...]
    cut: str | None  # "cut at 60,000 characters (...) of 143,000 characters" when limited, else None
    error: str | None  # "the PDF is damaged: ..." when the file is broken, else None
    sha256: str  # of the file's bytes; "" when it cannot be read

    @property
    def chars(self) -> int:
        """What the file's excerpts take of an evidence budget (as Budget counts them)."""
        return sum(line_cost(excerpt.ref, excerpt.text) for excerpt in self.excerpts)

    def render(self, file_mark: str = "###") -> str:
        """This file's section of the evidence (see Evidence.render)."""
        lines = [f"{file_mark} {self.path} ({self.kind})"]
        if self.error:
            lines.append(f"EVIDENCE ERROR: {self.error}")
        if self.cut:
            lines.append(f"NOTE: {self.cut}")
        if self.kind == "other" and not self.error:
            lines.append("(not shown: a file of a kind the evidence does not read)")
        if self.kind == "xlsx" and self.excerpts:
            lines.append(f"(one line per row: CELL = saved value (formula ...); cite a cell as {self.path}!Sheet!A1)")
        for excerpt in self.excerpts:
            lines.append(f"[{excerpt.ref}]" + ("\n" if "\n" in excerpt.text else " ") + excerpt.text)
        return "\n".join(lines)


@dataclass(frozen=True)
class Evidence:
    files: tuple[FileEvidence, ...]
    folder: Path | None = None  # where the files are (images() gives their paths)

    def render(self, file_mark: str = "###") -> str:
        """The text the judge reads: one section per file, each excerpt after its ref in brackets. The
        judge's prompt starts each file with a mark of its own (studio/judging/prompt.py fences it)."""
        sections = [file.render(file_mark) for file in self.files]
        return "\n\n".join(sections) + "\n" if sections else "(the submission has no files)\n"

    def content_key(self) -> str:
        """sha256 over the path and content hash of every file: equal exactly when the files are."""
        digest = hashlib.sha256()
        for file in sorted(self.files, key=lambda file: file.path):
            digest.update(f"{file.path}\0{file.sha256}\n".encode())
        return digest.hexdigest()

    def images(self) -> list[Path]:
        """The readable images, for a judge whose model takes images (each reached again inside the folder)."""
        if self.folder is None:
            return []
        found = []
        for file in self.files:
            if file.kind == "image" and file.error is None:
                try:
                    found.append(reach(self.folder, file.path, tree=SUBMISSION, limits=DEFAULT_LIMITS).path)
                except UntrustedFileError:
                    continue  # gone or swapped for a link since the evidence was read
        return found


def kind_of(path: Path) -> str:
    """The kind of a file from its extension, or "text" / "other" from its first bytes."""
    kind = KINDS.get(path.suffix.lower())
    if kind is not None:
        return kind
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return "other"
    if b"\x00" in head:
        return "other"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return "text" if error.start >= len(head) - 3 else "other"  # only a character cut by the 4 KB read
    return "text"


SUBMISSION = "the submission"


def _sha256(descriptor: int) -> str:
    with open(descriptor, "rb", closefd=False) as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _hidden(rel: str) -> bool:
    return any(part.startswith(".") or part == "__pycache__" for part in rel.split("/"))


def submission_files(folder: Path) -> list[str]:
    """Every file under the folder, sorted; hidden files and folders (.git, caches) are not evidence.

    The folder is walked without following a link (studio.untrusted): a link is listed when it does not
    lead to a folder of the submission, so a link out, a dangling link or a loop shows as an evidence
    error; devices, FIFOs and sockets are not files and are left out."""
    found = []
    for member in walk(folder, _hidden):
        if member.kind == "file":
            found.append(member.path)
        elif member.kind == "link" and not _inside_folder(folder, member.path):
            found.append(member.path)
    return sorted(found)


def _inside_folder(folder: Path, rel: str) -> bool:
    try:
        reach(folder, rel, tree=SUBMISSION)
    except UntrustedFileError as refused:
        return refused.reason == "folder"
    return False


def outside_problem(folder: Path, rel: str) -> str | None:
    """Why `rel` is no file of the submission to read, or None: a link out of the folder is never followed,
    so an agent's symlink cannot put a file of the machine into the judge's prompt."""
    try:
        reach(folder, rel, tree=SUBMISSION, limits=Limits())
    except UntrustedFileError as refused:
        return str(refused)
    return None


def file_evidence(
    folder: Path, rel: str, budget: Budget, limits: EvidenceLimits, links: HardLinks | None = None
) -> FileEvidence:
    name = shown(rel)  # what the judge reads and cites: never a raw byte or a terminal escape
    try:
        reached = reach(folder, rel, tree=SUBMISSION, limits=Limits(), links=links)
        descriptor = open_reached(reached, rel)
    except UntrustedFileError as refused:
        return FileEvidence(name, KINDS.get(Path(rel).suffix.lower(), "other"), (), None, str(refused), "")
    try:
        path = reached.path
        kind = kind_of(path)
        try:
            sha = _sha256(descriptor)
        except OSError as unreadable:
            return FileEvidence(name, kind, (), None, f"cannot be read ({unreadable.strerror})", "")
    finally:
        os.close(descriptor)
    if budget.limit == 0:
        return FileEvidence(
            name, kind, (), f"not shown: the evidence reached its total limit ({budget.reason})", None, sha
        )
    reader = READERS.get(kind)
    cut = error = None
    if reader is not None:
        try:
            cut, error = reader(path, name, budget, limits)
        except ReadError as problem:
            error = str(problem)
        except Exception as problem:  # noqa: BLE001 - a broken file must reach the judge as an error, never crash it
            error = f"cannot be read as {kind}: {type(problem).__name__}: {problem}"
    return FileEvidence(name, kind, tuple(budget.excerpts), cut, error, sha)


def extract_evidence(
    folder: Path,
    paths: Sequence[str] | None = None,
    limits: EvidenceLimits = EvidenceLimits(),  # noqa: B008 - frozen, immutable
    *,
    in_order: bool = False,
    total_reason: str | None = None,
) -> Evidence:
    """The evidence of the files under `folder` (or only `paths`, relative to it), in path order, or in
    the order of `paths` with `in_order` (the first files are the last the total limit cuts).
    `total_reason` says what the total limit is in the notes of the files it cuts."""
    folder = Path(folder)
    if paths is None:
        rels = submission_files(folder)
    else:
        unique = list(dict.fromkeys(Path(p).as_posix() for p in paths))
        rels = unique if in_order else sorted(unique)
    links = HardLinks(walk(folder)) if folder.is_dir() else None  # a file hard-linked only inside it is read
    files = []
    left = limits.total_chars
    with collector_paused():
        for rel in rels:
            if left < limits.file_chars:
                reason = total_reason or f"the evidence's limit of {limits.total_chars:,} characters over all files"
                budget = Budget(left, reason)
            else:
                budget = Budget(limits.file_chars, "the evidence's limit per file")
            evidence = file_evidence(folder, rel, budget, limits, links)
            left -= budget.used
            if budget.full and budget.limit == left + budget.used:  # the total cut this file: later ones are not shown
                left = 0
            files.append(evidence)
    return Evidence(tuple(files), folder)


_CELL = re.compile(
    r"^(?P<path>.+?\.(?:xlsx|xlsm))!(?P<sheet>.+)!\$?(?P<column>[A-Za-z]{1,3})\$?(?P<row>[0-9]+)"
    r"(?::\$?[A-Za-z]{1,3}\$?[0-9]+)?$",
    re.IGNORECASE,
)
_FRAGMENT = re.compile(
    r"^(?:L(?P<line>[0-9]+)(?:-L?[0-9]+)?|page=(?P<page>[0-9]+)|slide=(?P<slide>[0-9]+)"
    r"|p=(?P<paragraph>[0-9]+)(?:-[0-9]+)?|table=(?P<table>[0-9]+))$"
)


def locate(ref: str) -> tuple[str, dict[str, object]]:
    """A ref -> (path, where): {"sheet": s, "cell": "B4"} (a range gives its first cell) | {"page": n} | {"line": n} | {"slide": n} |
    {"paragraph": n} | {"table": n}, or {} for a whole file or a ref that names no place (a judge's
    citation is free text: the preview then opens the file at its top)."""
    ref = ref.strip()
    cell = _CELL.match(ref)
    if cell:
        sheet = cell["sheet"]
        if len(sheet) > 1 and sheet.startswith("'") and sheet.endswith("'"):
            sheet = sheet[1:-1].replace("''", "'")
        return cell["path"], {"sheet": sheet, "cell": f"{cell['column'].upper()}{cell['row']}"}
    path, _, fragment = ref.partition("#")
    where = _FRAGMENT.match(fragment)
    if where is None:
        return path, {}
    name = next(key for key, value in where.groupdict().items() if value is not None)
    return path, {name: int(where[name])}
