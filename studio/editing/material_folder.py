"""A whole folder of materials at once: each file proposed as a material — an id, a title from its name,
a kind and a release point guessed from its name — for the expert to confirm (one table in the app, a
dry run on the command line), then imported as one undoable edit.

The guesses are plain and said so: a subtask id in the name ("T06", "before-T06") releases the file just
before that subtask, otherwise at the start; words in the name give the kind — template, feedback /
comments / email / responses / reply (client feedback), update / revised / restated / status / letter
(new evidence), else a source record; the provenance is an original record. Files are taken in order of a
date in their name (2026-04-21, 20260421), then by name; hidden files and sub-folders are left out."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from studio.editing.catalog import taken_ids
from studio.editing.commands import Chain, Command
from studio.editing.documents import ProjectDocuments
from studio.editing.ids import next_id
from studio.editing.materials import MaterialError, import_material

__all__ = ["Proposal", "import_proposals", "propose_materials"]

_KINDS = (
    ("template", re.compile(r"template", re.IGNORECASE)),
    ("client_feedback", re.compile(r"feedback|comment|e-?mail|respons|repl(y|ies)", re.IGNORECASE)),
    ("new_evidence", re.compile(r"update|revis|restat|status|letter", re.IGNORECASE)),
)
_DATE = re.compile(r"(20\d\d)-?([01]\d)-?([0-3]\d)")


@dataclass(frozen=True)
class Proposal:
    source: Path
    material_id: str
    title: str
    kind: str
    provenance: str
    before: str | None  # the subtask it is released before; None: at start
    why: str  # what the guesses came from, in words

    def with_choice(self, **changes: object) -> Proposal:
        return replace(self, **changes)  # type: ignore[arg-type]


def _title(name: str) -> str:
    stem = _DATE.sub(" ", Path(name).stem)
    words = " ".join(re.split(r"[-_\s]+", stem)).strip()
    return (words[:1].upper() + words[1:]) if words else name


def propose_materials(documents: ProjectDocuments, folder: Path, timeline: list[str]) -> list[Proposal]:
    """A proposal for every file directly in `folder`, in date-then-name order, with the next free M ids."""
    folder = Path(folder)
    if not folder.is_dir():
        raise MaterialError(f"{folder}: not a folder: give the folder that holds the files to import")
    files = sorted((p for p in folder.iterdir() if p.is_file() and not p.name.startswith((".", "~$"))),
                   key=lambda p: (_date_of(p.name) or "9999", p.name.lower()))
    if not files:
        raise MaterialError(f"{folder}: no file to import (hidden files and sub-folders are left out)")
    taken = set(taken_ids(documents, "material"))
    proposals = []
    for path in files:
        material_id = next_id(taken, "M")
        taken.add(material_id)
        kind, kind_why = "source_record", "no word of the name says otherwise"
        for name, pattern in _KINDS:
            found = pattern.search(path.name)
            if found:
                kind, kind_why = name, f"the name says '{found.group(0)}'"
                break
        before = next((sid for sid in timeline if re.search(rf"(?<![A-Za-z0-9]){re.escape(sid)}(?![0-9])",
                                                            path.name)), None)
        release_why = f"the name names {before}" if before else "no subtask in the name: at start"
        date = _date_of(path.name)
        why = f"{kind}: {kind_why}; {release_why}" + (f"; dated {date}" if date else "")
        proposals.append(Proposal(path, material_id, _title(path.name), kind, "original_record", before, why))
    return proposals


def _date_of(name: str) -> str | None:
    found = _DATE.search(name)
    return f"{found.group(1)}-{found.group(2)}-{found.group(3)}" if found else None


def import_proposals(documents: ProjectDocuments, proposals: list[Proposal]) -> Chain:
    """Import every proposal (as confirmed) as one edit: each file copied under materials/ and scheduled."""
    if not proposals:
        raise MaterialError("nothing to import: no file was kept")
    ids = [p.material_id for p in proposals]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise MaterialError(f"{', '.join(twice)} is given to two files: give each file its own id")
    def step(proposal: Proposal) -> Callable[[ProjectDocuments], Command]:
        return lambda docs: import_material(docs, proposal.source, proposal.material_id, proposal.title,
                                            proposal.kind, proposal.provenance, proposal.before)

    steps = [step(p) for p in proposals]
    return Chain(f"Import {len(proposals)} material{'s' if len(proposals) != 1 else ''}", steps)
