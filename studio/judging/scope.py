"""What the judge is told about one scope of a project: the criteria of its rubric, and the
instruction of the subtask (or the delivery contract for the final rubric) with the evaluator
references the project assigns to that scope."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from studio.judging.errors import JudgingError
from studio.judging.prompt import Reference, ScopeContext
from studio.model.bundle import dangling_reuse
from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout

if TYPE_CHECKING:
    from studio.model import Criterion, Project
    from studio.store.loader import LoadedProject

# Evaluator references in these formats are read as text; others go through evidence extraction.
TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".csv", ".json", ".yaml", ".yml"}


@dataclass(frozen=True)
class ScopedCriterion:
    """A criterion of the scope's rubric; `scored` is the criterion whose text and weight count
    (for a reused final criterion, its checkpoint original)."""

    id: str
    own: Criterion
    scored: Criterion

    @property
    def text(self) -> str:
        return self.scored.text or ""

    @property
    def weight(self) -> int:
        return self.scored.weight or 0

    @property
    def check(self) -> Any:
        # the optional programmatic check (studio.judging.checks). Only the criterion's own: a reused final
        # criterion's original checks the checkpoint's paths, which the final package does not have.
        return getattr(self.own, "check", None)


def scopes_of(project: Project) -> list[str]:
    """Every scope with a rubric: subtasks along the timeline, then the final rubric."""
    timeline = [sid for sid in project.timeline() if sid in project.checkpoint_rubrics]
    extra = sorted(set(project.checkpoint_rubrics) - set(timeline))
    return timeline + extra + ([FINAL_SCOPE] if project.final_rubric is not None else [])


def scope_criteria(project: Project, scope: str) -> list[ScopedCriterion]:
    rubric = project.rubric(scope)
    if rubric is None:
        known = ", ".join(scopes_of(project)) or "none"
        raise JudgingError(f"the project has no rubric for '{scope}' (rubrics: {known}): give a subtask id or final")
    found: list[ScopedCriterion] = []
    seen: set[str] = set()
    for criterion in rubric.criteria:
        if criterion.key in seen:
            continue
        seen.add(criterion.key)
        scored = project.scored_as(scope, criterion)
        if scored is None:  # the judge is not asked without it: the words validation reports it with
            raise JudgingError(dangling_reuse(criterion))
        found.append(ScopedCriterion(criterion.key, criterion, scored))
    return found


def scope_context(loaded: LoadedProject, scope: str) -> ScopeContext:
    project = loaded.project
    if scope == FINAL_SCOPE:
        title, text = "Delivery contract", _contract(project)
    else:
        subtask = project.subtasks.get(scope)
        if subtask is None:
            raise JudgingError(f"the project has no subtask {scope}: give a subtask id or final")
        rel = (PurePosixPath(layout.SUBTASKS_DIR) / scope / subtask.instruction).as_posix()
        instruction = loaded.files.read_text(rel)
        if instruction is None:
            raise JudgingError(f"{loaded.root / rel}: the instruction of {scope} is missing; write it before judging")
        title, text = f"Instruction of subtask {scope}: {subtask.title}", instruction
    return ScopeContext(scope, title, text, tuple(_references(loaded, scope)))


def _contract(project: Project) -> str:
    if project.info is None:
        raise JudgingError("project.yaml does not load, so the delivery contract is unknown: run `dbstudio validate`")
    contract = project.info.delivery
    lines = [f"Project: {project.info.title}. Role: {project.info.role}. Client: {project.info.client}.",
             f"Objective: {project.info.objective}", "", f"Scope: {contract.scope.strip()}", "",
             "Acceptance requirements:"]
    lines += [f"- {item.id}: {item.text.strip()}" for item in contract.acceptance]
    lines += ["", "Final deliverables (path in the package: title):"]
    lines += [f"- {item.id} {item.path}: {item.title}" for item in contract.final_deliverables]
    return "\n".join(lines)


def _references(loaded: LoadedProject, scope: str) -> list[Reference]:
    references = loaded.project.references.references if loaded.project.references else []
    found = []
    for reference in references:
        if scope not in reference.for_scopes:
            continue
        rel = (PurePosixPath(layout.EVALUATOR_DIR) / reference.file).as_posix()
        found.append(Reference(reference.id, reference.title, _reference_text(loaded, rel)))
    return found


def _reference_text(loaded: LoadedProject, rel: str) -> str:
    if PurePosixPath(rel).suffix.lower() in TEXT_SUFFIXES:
        text = loaded.files.read_text(rel)
        if text is None:
            raise JudgingError(f"{loaded.root / rel}: an evaluator reference named in {layout.REFERENCES_FILE} "
                               "is missing; add the file or remove the reference")
        return text
    from studio.judging.evidence import extract_evidence

    path = loaded.root / rel
    if not path.is_file():
        raise JudgingError(f"{path}: an evaluator reference named in {layout.REFERENCES_FILE} is missing; "
                           "add the file or remove the reference")
    return extract_evidence(path.parent, [path.name]).render()
