"""The journal of unsaved edits: what an open project holds in memory, written beside it so that a
crash or a kill of the app does not lose it, and read back into a freshly opened session.

The journal lives in `<project>/.dbstudio/journal/edits.json` (the project's .gitignore ignores
`.dbstudio/`, and the folder carries its own `.gitignore` for projects made without one). For
every file an unsaved edit changed it holds the content a save would write and the SHA-256 of the
bytes the edits started from. It is offered back only while those bases are still the files on
disk: a file changed since (a `git checkout`, an edit in another program) makes the journal
refuse, naming the file, rather than write the old edits over the new content.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from studio.editing.changes import Changes
from studio.editing.commands import Command, Compound
from studio.editing.documents import ProjectDocuments
from studio.editing.files import PutFile
from studio.editing.session import ProjectSession
from studio.errors import StudioError
from studio.store.atomic import write_atomic

JOURNAL_FOLDER = ".dbstudio/journal"
JOURNAL_FILE = "edits.json"
FORMAT = "dbstudio-edit-journal"
VERSION = 1
RECOVER_LABEL = "Recover unsaved edits"


class JournalError(StudioError):
    """A journal file that cannot be read back (damaged, or written by another version)."""


class JournalMismatch(StudioError):
    """A journal whose files changed on disk since its edits were made: applying it would lose that change."""

    def __init__(self, path: Path, stale: list[str]) -> None:
        super().__init__(
            f"{path}: the unsaved edits were made on versions of {', '.join(stale)} that are no longer on disk "
            "(the files changed since, outside the app or by git): they were not applied. Set the journal aside "
            "to compare it with the files by hand, or discard it")
        self.stale = stale


@dataclass(frozen=True)
class JournaledFile:
    """One edited file: `content` as a save would write it (None: the edit deletes it) and `base`,
    the SHA-256 of the bytes it was edited from (None: there was no such file)."""

    rel: str
    base: str | None
    content: bytes | None


@dataclass(frozen=True)
class EditJournal:
    """The unsaved edits of one project: the files they changed and the undo steps that made them."""

    files: tuple[JournaledFile, ...]
    steps: tuple[str, ...] = ()
    written: str = ""  # when, UTC ISO 8601

    def describe(self) -> str:
        """One line for a person: how many steps over which files, and when."""
        when = self.written.replace("T", " ")[:19] + " UTC" if self.written else "an unknown time"
        steps = f"{len(self.steps)} edit(s)" if self.steps else "edits"
        return f"{steps} to {', '.join(f.rel for f in self.files)}, last journaled {when}"


def journal_path(root: Path) -> Path:
    return Path(root) / JOURNAL_FOLDER / JOURNAL_FILE


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def capture(documents: ProjectDocuments, steps: list[str] | tuple[str, ...] = ()) -> EditJournal | None:
    """The journal of what `documents` hold unsaved now; None when nothing is unsaved."""
    files = []
    for rel, content in sorted(documents.unsaved().items()):
        files.append(JournaledFile(rel, documents.editor.read_digest(rel), content))
    if not files:
        return None
    return EditJournal(tuple(files), tuple(steps), datetime.now(UTC).isoformat(timespec="seconds"))


def _encode(entry: JournaledFile) -> dict[str, Any]:
    item: dict[str, Any] = {"path": entry.rel, "base": entry.base}
    if entry.content is None:
        item["deleted"] = True
        return item
    try:
        item["text"] = entry.content.decode("utf-8")  # YAML and Markdown stay readable in the journal
    except UnicodeDecodeError:
        item["bytes"] = base64.b64encode(entry.content).decode("ascii")
    return item


def write_journal(root: Path, journal: EditJournal) -> Path:
    """Replace the project's journal by `journal`, atomically: a kill during the write leaves the
    previous journal whole."""
    path = journal_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = path.parent / ".gitignore"
    if not ignore.is_file():  # never committed, whatever the project's own .gitignore says
        write_atomic(ignore, b"# unsaved edits of DeliverBench Studio: never part of the project's history\n*\n")
    document = {"format": FORMAT, "version": VERSION, "written": journal.written, "steps": list(journal.steps),
                "files": [_encode(entry) for entry in journal.files]}
    write_atomic(path, json.dumps(document, indent=1, ensure_ascii=False).encode("utf-8"))
    return path


def read_journal(root: Path) -> EditJournal | None:
    """The journal left in a project folder, None if there is none."""
    path = journal_path(root)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise JournalError(f"{path}: cannot be read ({error.strerror}): check its permissions") from None
    try:
        document = json.loads(raw.decode("utf-8"))
        if document.get("format") != FORMAT or document.get("version") != VERSION:
            raise JournalError(f"{path}: not a version-{VERSION} journal of unsaved edits: set it aside or delete it")
        files = tuple(_decode(item) for item in document["files"])
        return EditJournal(files, tuple(str(step) for step in document.get("steps", [])), str(document.get("written", "")))
    except JournalError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise JournalError(f"{path}: the journal of unsaved edits is damaged ({error}): set it aside or delete it; "
                           "the project's files are as last saved") from None


def _decode(item: dict[str, Any]) -> JournaledFile:
    rel = str(item["path"])
    base = item.get("base")
    if item.get("deleted"):
        content = None
    elif "text" in item:
        content = str(item["text"]).encode("utf-8")
    else:
        content = base64.b64decode(item["bytes"], validate=True)
    return JournaledFile(rel, None if base is None else str(base), content)


def stale_files(root: Path, journal: EditJournal) -> list[str]:
    """Journaled files whose bytes on disk are no longer the ones the edits started from."""
    stale = []
    for entry in journal.files:
        path = Path(root) / entry.rel
        data = path.read_bytes() if path.is_file() else None
        if _digest(data) != entry.base:
            stale.append(entry.rel)
    return stale


def recovery_command(root: Path, journal: EditJournal) -> Command:
    """The journal as one undoable edit of a freshly opened project; JournalMismatch when it no
    longer fits the files on disk."""
    stale = stale_files(root, journal)
    if stale:
        raise JournalMismatch(journal_path(root), stale)
    return Compound(RECOVER_LABEL, [PutFile(entry.rel, entry.content, label=RECOVER_LABEL) for entry in journal.files])


def recover(session: ProjectSession, journal: EditJournal) -> tuple[Command, Changes]:
    """Apply the journal to `session` (freshly opened, nothing edited): its inverse and what changed."""
    return session.apply(recovery_command(session.root, journal))


def remove_journal(root: Path) -> None:
    """Forget the journal (the edits were saved, discarded or undone)."""
    try:
        journal_path(root).unlink()
    except FileNotFoundError:
        pass


def set_aside(root: Path) -> Path:
    """Keep the journal under a dated name (for comparing by hand) so that new edits do not
    replace it; the path it now has."""
    path = journal_path(root)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"edits-set-aside-{stamp}-{os.getpid()}.json")
    path.replace(kept)
    return kept
