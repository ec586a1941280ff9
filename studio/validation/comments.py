"""Comment threads whose subtask or criterion is gone (renamed or deleted since the thread was opened)."""

from __future__ import annotations

from pathlib import Path

from studio.model import Project
from studio.store import layout
from studio.store.loader import LoadedProject
from studio.validation.findings import Finding, Severity


def comment_targets(project: Project) -> set[str]:
    """What a thread may be about: every subtask id and every criterion id of every rubric."""
    targets = set(project.subtasks)
    rubrics = [*project.checkpoint_rubrics.values(), *([project.final_rubric] if project.final_rubric else [])]
    targets.update(criterion.key for rubric in rubrics for criterion in rubric.criteria)
    return targets


def check_comments(loaded: LoadedProject) -> list[Finding]:
    """A warning for each thread about a subtask or criterion the project no longer has, at its `target`."""
    project = loaded.project
    targets = comment_targets(project)
    findings = []
    for thread in project.comments.values():
        if thread.target in targets:
            continue
        rel = layout.comment_file(Path(), thread.id).as_posix()
        document = loaded.documents.get(rel)
        line, column = document.locate(("target",)) if document is not None else (1, 1)
        findings.append(Finding(rel, line, column,
                                f"thread {thread.id} is about '{thread.target}', which is no longer a subtask or "
                                "criterion of the project: set its target to the id it was renamed to, or delete "
                                "the thread's file if it no longer matters",
                                "dangling-comment", Severity.WARNING, thread.target))
    return findings
