"""Mutants of a reference package: the failures a project is built to expose, planted where the
project's dependency map says they can occur.

- correction-not-applied (the paper's P07): a figure a material corrects (reference.yaml) is left at its
  superseded value in one artifact downstream of that material: the outputs of the subtasks that take it as
  an input and of the criteria that check it propagates, everything those outputs hand off to
  (dependencies.yaml), and the final deliverables they become.
- status-rolled-back (P11, P04): a register row's status in one artifact put back to what the upstream
  artifact it was handed from (or its own earlier version) says — a stale handoff status; or a settled
  status (superseded, closed, approved, ...) reopened — a superseded decision left active.
- cross-file-mismatch: a figure that a handoff carries (its `carries` text), or that a cross-file criterion
  names, changed in the downstream file of the two that hold it.
- file-removed: one required output of a checkpoint, or one final deliverable, left out.
- section-dropped: one section of a Markdown deliverable (a `##` heading and what follows it), or one sheet
  of a workbook, left out (P03: a limitation that reaches the summary but not the workpaper).

Each mutant changes one file of one scope's submission; the other scopes keep the reference's files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.model.artifacts import Artifact, artifact_index, artifacts_of, downstream_of
from studio.model.vocabulary import FINAL_SCOPE, Target
from studio.mutation import edits
from studio.mutation.edits import DropLines, DropSheet, Edit, RemoveFile, ReplaceFigure, SetTableCell

if TYPE_CHECKING:
    from studio.model import Project
    from studio.mutation.reference import ReferencePackage

__all__ = ["KINDS", "Mutant", "MutantKind", "generate_mutants"]


class MutantKind(str, Enum):
    CORRECTION_NOT_APPLIED = "correction-not-applied"
    STATUS_ROLLED_BACK = "status-rolled-back"
    CROSS_FILE_MISMATCH = "cross-file-mismatch"
    FILE_REMOVED = "file-removed"
    SECTION_DROPPED = "section-dropped"


KINDS = [kind.value for kind in MutantKind]
_CODES = {MutantKind.CORRECTION_NOT_APPLIED: "corr", MutantKind.STATUS_ROLLED_BACK: "status",
          MutantKind.CROSS_FILE_MISMATCH: "xfile", MutantKind.FILE_REMOVED: "removed",
          MutantKind.SECTION_DROPPED: "section"}
# Settled statuses and the open one a reverted register would show instead.
_REOPENED = {
    "superseded": "Active", "withdrawn": "Active", "replaced": "Active", "retired": "Active",
    "closed": "Open", "resolved": "Open", "cleared": "Open", "done": "Open",
    "approved": "Pending", "obtained": "Pending", "received": "Pending", "granted": "Pending",
    "satisfied": "Outstanding", "completed": "Outstanding", "complete": "Outstanding", "waived": "Outstanding",
    "agreed": "Proposed", "signed": "Unsigned",
}
# At most this many figures of one handoff (or one cross-file criterion) are changed: the first ones its
# text names. A handoff carrying twenty figures tests the same link twenty times otherwise.
FIGURES_PER_LINK = 3


@dataclass
class Mutant:
    id: str
    kind: MutantKind
    scope: str
    artifact: Artifact
    broke: str  # what it broke, in words
    because: str  # why here: the project's own link that makes it a place for this failure
    suggestion: str  # a criterion text that would catch it
    edit: Edit
    where: list[str] = field(default_factory=list)  # the places it changed

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind.value, "scope": self.scope, "artifact": self.artifact.ref,
            "path": self.artifact.path, "title": self.artifact.title, "broke": self.broke, "because": self.because,
            "suggestion": self.suggestion, "where": list(self.where), "edit": edits.edit_to_json(self.edit),
        }


class _Generator:
    def __init__(self, project: Project, package: ReferencePackage, folder_of: Callable[[str], Path],
                 kinds: set[MutantKind]) -> None:
        self.project = project
        self.package = package
        self.folder_of = folder_of  # scope -> the folder of its reference submission
        self.kinds = kinds
        self.mutants: list[Mutant] = []
        self.index = artifact_index(project)
        self._texts: dict[tuple[str, str], str] = {}
        self._numbers: dict[tuple[str, int], int] = {}
        self._taken: set[tuple[str, str, str]] = set()  # (scope, path, what) already mutated that way

    # -- helpers -------------------------------------------------------------------------------------------
    def _file(self, artifact: Artifact) -> Path | None:
        path = self.folder_of(artifact.scope) / artifact.path
        return path if path.is_file() else None

    def _text(self, artifact: Artifact) -> str:
        key = (artifact.scope, artifact.path)
        if key not in self._texts:
            path = self._file(artifact)
            self._texts[key] = edits.file_text(path, artifact.path) if path is not None else ""
        return self._texts[key]

    def _lines(self, artifact: Artifact) -> list[str]:
        path = self._file(artifact)
        if path is None or not edits.is_text(artifact.path):
            return []
        return path.read_text(encoding="utf-8", errors="replace").splitlines()

    def _add(self, kind: MutantKind, artifact: Artifact, broke: str, because: str, suggestion: str, edit: Edit,
             where: list[str], taken: str) -> None:
        key = (artifact.scope, artifact.path, taken)
        if kind not in self.kinds or key in self._taken:
            return
        self._taken.add(key)
        code = _CODES[kind]
        number = self._numbers.get((f"{code}-{artifact.scope}", 0), 0) + 1
        self._numbers[(f"{code}-{artifact.scope}", 0)] = number
        self.mutants.append(Mutant(f"{code}-{artifact.scope}-{number:02d}", kind, artifact.scope, artifact, broke,
                                   because, suggestion, edit, where))

    def _present(self, refs: Iterable[str]) -> list[Artifact]:
        found = []
        for ref in refs:
            artifact = self.index.get(ref)
            if artifact is not None and self._file(artifact) is not None:
                found.append(artifact)
        return found

    # -- kinds -----------------------------------------------------------------------------------------------
    def corrections(self) -> None:
        for correction in self.package.corrections:
            material = self.project.material(correction.material)
            name = f"{correction.material} ({material.title})" if material is not None else correction.material
            seeds: list[str] = []
            for sid in self.project.timeline():
                subtask = self.project.subtasks.get(sid)
                if subtask is not None and correction.material in subtask.inputs:
                    seeds += [a.ref for a in artifacts_of(self.project, sid)]
            for _scope, criterion in self.project.all_criteria():
                if correction.material in criterion.propagates:
                    seeds += list(criterion.covers)
            places = list(dict.fromkeys([ref for ref in seeds if ref in self.index]
                                        + downstream_of(self.project, seeds)))
            for artifact in self._present(places):
                path = self._file(artifact)
                assert path is not None
                where = edits.figure_places(path, artifact.path, correction.new)
                if not where:
                    continue
                self._add(MutantKind.CORRECTION_NOT_APPLIED, artifact,
                          f"{correction.what} left at the superseded {correction.old} instead of {correction.new} "
                          f"in {artifact.ref}",
                          f"{artifact.ref} is downstream of {name}, which corrects {correction.what}",
                          f"{artifact.title} uses {correction.what} of {correction.new}, as corrected by {name}, "
                          f"and not the superseded {correction.old}.",
                          ReplaceFigure(artifact.path, correction.new, correction.old), where,
                          f"figure:{correction.new}")

    def _links(self) -> list[tuple[Artifact, Artifact, str]]:
        """(upstream, downstream, why) pairs of artifacts the project links: handoffs, later versions of one
        workspace file, and the final deliverable an output becomes."""
        links: list[tuple[Artifact, Artifact, str]] = []
        handoffs = self.project.dependencies.handoffs if self.project.dependencies is not None else []
        for handoff in handoffs:
            upstream = self.index.get(handoff.artifact)
            if upstream is None:
                continue
            for downstream in artifacts_of(self.project, handoff.to):
                links.append((upstream, downstream, f"{handoff.artifact} hands off to {handoff.to}"))
        timeline = self.project.timeline()
        last_writer: dict[str, Artifact] = {}
        for position, sid in enumerate(timeline):
            for artifact in artifacts_of(self.project, sid):
                earlier = last_writer.get(artifact.path)
                if earlier is not None and timeline.index(earlier.scope) < position:
                    links.append((earlier, artifact, f"{artifact.ref} revises {earlier.ref}"))
                last_writer[artifact.path] = artifact
        deliverables = self.project.info.delivery.final_deliverables if self.project.info is not None else []
        for deliverable in deliverables:
            final = self.index.get(deliverable.id)
            source = deliverable.produced_by.split(":", 1)[-1]
            upstream = last_writer.get(source) or self.index.get(deliverable.produced_by)
            if final is not None and upstream is not None:
                links.append((upstream, final, f"{deliverable.id} is the final version of {upstream.ref}"))
        return links

    def statuses(self) -> None:
        for upstream, downstream, why in self._links():
            before = self._status_rows(upstream)
            if not before:
                continue
            for key, (line, column, value) in self._status_rows(downstream).items():
                earlier = before.get(key)
                if earlier is None or _norm(earlier[2]) == _norm(value) or not earlier[2].strip():
                    continue
                self._add(MutantKind.STATUS_ROLLED_BACK, downstream,
                          f"'{key}' shown as '{earlier[2]}' (as {upstream.ref} had it) instead of '{value}' in "
                          f"{downstream.ref}",
                          f"{why}: the status changed between them",
                          f"{downstream.title} shows '{key}' as '{value}', its status at this point, not the earlier "
                          f"'{earlier[2]}'.",
                          SetTableCell(downstream.path, line, column, earlier[2], value),
                          [f"{downstream.path}:{line + 1}"], f"line:{line}")
        for scope in [*self.project.timeline(), FINAL_SCOPE]:
            for artifact in self._present(a.ref for a in artifacts_of(self.project, scope)):
                for key, (line, column, value) in self._status_rows(artifact).items():
                    word = value.strip().split(" ", 1)[0].strip(".,;:()").lower() if value.strip() else ""
                    reopened = _REOPENED.get(word)
                    if reopened is None:
                        continue
                    self._add(MutantKind.STATUS_ROLLED_BACK, artifact,
                              f"'{key}' shown as '{reopened}' instead of '{value}' in {artifact.ref}: a settled "
                              "item presented as still open",
                              f"a register of {artifact.ref} records '{key}' as {word}",
                              f"{artifact.title} shows '{key}' as '{value}' and does not present it as "
                              f"{reopened.lower()}.",
                              SetTableCell(artifact.path, line, column, reopened, value),
                              [f"{artifact.path}:{line + 1}"], f"line:{line}")

    def _status_rows(self, artifact: Artifact) -> dict[str, tuple[int, int, str]]:
        """key (the row's first cell) -> (line, status column, status) of the artifact's Markdown registers."""
        rows: dict[str, tuple[int, int, str]] = {}
        for table in edits.markdown_tables(self._lines(artifact)):
            column = table.status_column()
            if column is None or column == 0:
                continue
            for row in table.rows:
                if len(row.cells) > column and row.cells[0].strip():
                    rows.setdefault(row.cells[0].strip(), (row.line, column, row.cells[column]))
        return rows

    def cross_files(self) -> None:
        handoffs = self.project.dependencies.handoffs if self.project.dependencies is not None else []
        for handoff in handoffs:
            upstream = self._present([handoff.artifact])
            if not upstream or not handoff.carries:
                continue
            figures = edits.figures_in(handoff.carries)
            for downstream in self._present(a.ref for a in artifacts_of(self.project, handoff.to)):
                shared = [f for f in figures if _holds(self._text(upstream[0]), f) and _holds(self._text(downstream), f)]
                for figure in shared[:FIGURES_PER_LINK]:
                    self._mismatch(downstream, upstream[0], figure,
                                   f"{handoff.artifact} hands {figure} to {handoff.to} (dependencies.yaml: "
                                   f"\u201c{_short(handoff.carries)}\u201d)")
        if self.project.final_rubric is None:
            return
        for criterion in self.project.final_rubric.criteria:
            if criterion.target is not Target.CROSS_FILE or criterion.reuse_of is not None:
                continue
            covered = self._present(item for item in criterion.covers if item in self.index)
            for figure in edits.figures_in(criterion.text or "")[:FIGURES_PER_LINK]:
                holding = [a for a in covered if _holds(self._text(a), figure)]
                if len(holding) >= 2:
                    self._mismatch(holding[-1], holding[0], figure,
                                   f"{criterion.key} checks {figure} across {', '.join(a.ref for a in holding)}")

    def _mismatch(self, target: Artifact, other: Artifact, figure: str, because: str) -> None:
        path = self._file(target)
        if path is None:
            return
        where = edits.figure_places(path, target.path, figure)
        if not where:
            return
        changed = edits.perturbed(figure)
        self._add(MutantKind.CROSS_FILE_MISMATCH, target,
                  f"{figure} changed to {changed} in {target.ref}, so it no longer agrees with {other.ref}",
                  because,
                  f"{target.title} gives {figure} exactly as {other.title} does.",
                  ReplaceFigure(target.path, figure, changed), where, f"figure:{figure}")

    def removals_and_sections(self) -> None:
        for scope in [*self.project.timeline(), FINAL_SCOPE]:
            for artifact in self._present(a.ref for a in artifacts_of(self.project, scope)):
                self._add(MutantKind.FILE_REMOVED, artifact, f"{artifact.ref} left out of the submission",
                          f"{artifact.ref} is a required {'final deliverable' if scope == FINAL_SCOPE else 'output'}",
                          f"{artifact.path} is missing or cannot be opened (a fatal gate).",
                          RemoveFile(artifact.path), [artifact.path], "file")
                path = self._file(artifact)
                assert path is not None
                if edits.is_text(artifact.path):
                    for section in edits.markdown_sections(self._lines(artifact)):
                        self._add(MutantKind.SECTION_DROPPED, artifact,
                                  f"section '{section.heading}' left out of {artifact.ref}",
                                  f"{artifact.ref} has the section in the reference",
                                  f"{artifact.title} covers what its section '{section.heading}' holds in the "
                                  "reference.",
                                  DropLines(artifact.path, section.start, section.end),
                                  [f"{artifact.path}:{section.start + 1}-{section.end}"], f"lines:{section.start}")
                elif edits.is_workbook(artifact.path):
                    names = edits.sheet_names(path, artifact.path)
                    for name in names if len(names) > 1 else []:
                        self._add(MutantKind.SECTION_DROPPED, artifact, f"sheet '{name}' left out of {artifact.ref}",
                                  f"{artifact.ref} has the sheet in the reference",
                                  f"{artifact.title} has its sheet '{name}' with what the reference puts there.",
                                  DropSheet(artifact.path, name), [f"{artifact.path}!{name}"], f"sheet:{name}")


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _holds(text: str, figure: str) -> bool:
    return edits._figure_pattern(figure).search(text) is not None


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def generate_mutants(project: Project, package: ReferencePackage, folder_of: Callable[[str], Path],
                     kinds: Iterable[str] | None = None) -> list[Mutant]:
    """Every mutant of the reference package of the kinds asked (all by default), in a stable order: by kind,
    then along the timeline. `folder_of(scope)` is the folder of the scope's reference submission."""
    chosen = {MutantKind(kind) for kind in kinds} if kinds is not None else set(MutantKind)
    generator = _Generator(project, package, folder_of, chosen)
    generator.corrections()
    generator.statuses()
    generator.cross_files()
    generator.removals_and_sections()
    order = {kind: position for position, kind in enumerate(MutantKind)}
    scopes = {scope: position for position, scope in enumerate([*project.timeline(), FINAL_SCOPE])}
    return sorted(generator.mutants, key=lambda m: (order[m.kind], scopes.get(m.scope, len(scopes)), m.id))
