"""What every review rule reads: the loaded project, its texts and graph, and how to locate."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from studio.model import Criterion, Project
from studio.review.graph import DependencyGraph
from studio.review.locations import criterion_index, node_line, rubric_file, subtask_path, text_line
from studio.review.names import MaterialNames
from studio.review.texts import ProjectFiles, Refusal
from studio.store.loader import LoadedProject
from studio.validation.findings import Finding, Severity

RULES = {
    "files.unreadable": "A file review must read (instruction, material, reference) cannot be read.",
    "files.outside-project": "A file review must read is a link to a file outside the project folder.",
}


@dataclass
class ReviewContext:
    loaded: LoadedProject
    findings: list[Finding] = field(default_factory=list)
    refused: set[str] = field(default_factory=set)
    memo: dict[str, object] = field(default_factory=dict)  # results one rule computes and another reuses

    @property
    def project(self) -> Project:
        return self.loaded.project

    @property
    def root(self) -> Path:
        return self.loaded.root

    @cached_property
    def graph(self) -> DependencyGraph:
        return DependencyGraph.build(self.project)

    @cached_property
    def resolved_criteria(self) -> list[tuple[str, Criterion, Criterion]]:
        """(scope, as written, as scored): a reused criterion is scored with its original's
        fields; a reuse of an unknown criterion is left out."""
        out = []
        for scope, criterion in self.project.all_criteria():
            scored = self.project.scored_as(scope, criterion)
            if scored is None:
                continue
            out.append((scope, criterion, scored))
        return out

    @cached_property
    def positions(self) -> dict[str, int]:
        # A subtask scheduled twice keeps its last place here (validation reports the duplicate).
        return {sid: i + 1 for i, sid in enumerate(self.project.timeline())}

    # -- reading -----------------------------------------------------------------------------
    @cached_property
    def files(self) -> ProjectFiles:
        return ProjectFiles(self.root, self.loaded.files)

    @cached_property
    def material_names(self) -> MaterialNames:
        materials = self.project.materials
        return MaterialNames(materials.materials if materials else [])

    def text(self, rel: str) -> str:
        """The text of a project file; "" (and one finding) when review may not read it."""
        try:
            return self.files.text(rel)
        except Refusal as refusal:
            self._refuse(rel, refusal)
            return ""

    def data(self, rel: str) -> bytes | None:
        """The bytes of a project file; None when it is missing or review may not read it."""
        try:
            return self.files.data(rel)
        except Refusal as refusal:
            self._refuse(rel, refusal)
            return None

    def _refuse(self, rel: str, refusal: Refusal) -> None:
        if rel not in self.refused:
            self.refused.add(rel)
            self.report(refusal.rule, Severity.ERROR, refusal.message, rel)

    def instruction(self, subtask_id: str) -> tuple[str, str]:
        """(project-relative path, text) of a subtask's instruction."""
        rel = subtask_path(subtask_id, self.project.subtasks[subtask_id].instruction)
        return rel, self.text(rel)

    # -- reporting ---------------------------------------------------------------------------
    def report(self, rule: str, severity: Severity, message: str, file: str, line: int = 1,
               column: int = 1, object_id: str | None = None) -> None:
        self.findings.append(Finding(file, line, column, message, rule, severity, object_id))

    def report_node(self, rule: str, severity: Severity, message: str, file: str, loc: tuple,
                    object_id: str | None = None) -> None:
        line, column = node_line(self.loaded, file, loc)
        self.report(rule, severity, message, file, line, column, object_id)

    def report_criterion(self, rule: str, severity: Severity, message: str, scope: str, criterion: Criterion,
                         field_name: str | None = None) -> None:
        index = criterion_index(self.loaded, scope, criterion.key)
        loc: tuple = ("criteria", index) if index is not None else ()
        if field_name and index is not None:
            loc += (field_name,)
        self.report_node(rule, severity, message, rubric_file(scope), loc, criterion.key)

    def report_text(self, rule: str, severity: Severity, message: str, file: str, text: str, offset: int,
                    object_id: str | None = None) -> None:
        line, column = text_line(text, offset)
        self.report(rule, severity, message, file, line, column, object_id)
