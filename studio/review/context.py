"""What every review rule reads: the loaded project, its texts and graph, and how to locate."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from studio.model import Criterion, Project
from studio.review.graph import DependencyGraph
from studio.review.locations import criterion_index, node_line, rubric_file, text_line
from studio.review.texts import file_text
from studio.store import layout
from studio.store.loader import LoadedProject
from studio.validation.findings import Finding, Severity


@dataclass
class ReviewContext:
    loaded: LoadedProject
    findings: list[Finding] = field(default_factory=list)

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
    def positions(self) -> dict[str, int]:
        return {sid: i + 1 for i, sid in enumerate(self.project.timeline())}

    def instruction(self, subtask_id: str) -> tuple[str, str]:
        """(project-relative path, text) of a subtask's instruction."""
        subtask = self.project.subtasks[subtask_id]
        rel = f"{layout.SUBTASKS_DIR}/{subtask_id}/{subtask.instruction}"
        return rel, file_text(self.root / rel)

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
