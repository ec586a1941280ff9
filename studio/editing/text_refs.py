"""The Markdown texts that name an object: the project brief and each subtask's instruction. A rename
changes them too (an instruction that says "use M12" follows M12 to its new id), and the rename preview
lists each line it changes before anything is applied.

An id is matched as a whole word — M1 is not the start of M12, T03 not the end of XT03 — and an output path
as written ("outputs/model.xlsx"), never inside a longer path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from studio.editing.documents import ProjectDocuments
from studio.editing.fields import brief_file, instruction_file
from studio.editing.files import PutFile

__all__ = ["TextChange", "id_pattern", "path_pattern", "text_files", "text_renames"]


@dataclass(frozen=True)
class TextChange:
    """One line of a Markdown text a rename changes (1-based line)."""

    rel: str
    line: int
    before: str
    after: str


def id_pattern(object_id: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(object_id)}(?![\w-])")


def path_pattern(path: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w./-]){re.escape(path)}(?![\w/-])(?!\.\w)")


def text_files(documents: ProjectDocuments) -> list[str]:
    """The brief and every subtask's instruction that exist, brief first, then by subtask id."""
    found = [brief_file(documents)]
    found += [instruction_file(documents, sid) for sid in sorted(documents.subtask_ids())]
    return [rel for rel in dict.fromkeys(found) if documents.read_bytes(rel) is not None]


def text_renames(documents: ProjectDocuments, pattern: re.Pattern[str], new: str,
                 ids: tuple[str, ...] = ()) -> tuple[list[PutFile], list[TextChange]]:
    """The edits that put `new` wherever `pattern` matches in the brief and the instructions, and the lines
    they change."""
    edits: list[PutFile] = []
    changes: list[TextChange] = []
    for rel in text_files(documents):
        data = documents.read_bytes(rel)
        if data is None:
            continue
        text = data.decode("utf-8", errors="replace")
        replaced = pattern.sub(lambda _match: new, text)
        if replaced == text:
            continue
        edits.append(PutFile(rel, replaced.encode("utf-8"), ids, f"Edit {rel}"))
        for number, (before, after) in enumerate(zip(text.splitlines(), replaced.splitlines(), strict=False), 1):
            if before != after:
                changes.append(TextChange(rel, number, before, after))
    return edits, changes
