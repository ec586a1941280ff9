"""Review work assigned to experts (review/assignments.yaml): subtasks, criteria or single decisions by
rater name; checked against the project (every subtask, criterion and run named must exist), and
which decisions of the review queue are an expert's own, with the double-coding plan's added."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.judging.errors import JudgingError
from studio.judging.review_files import ReviewFileError, located, read_model, write
from studio.model.review_work import Assignment, AssignmentsFile, DecisionRef
from studio.store import layout

if TYPE_CHECKING:
    from studio.judging.decisions import DecisionKey
    from studio.judging.queue import Decision, ReviewQueue
    from studio.model import Project

HEADER = ("Review work of each expert (dbstudio assign): a subtask, a criterion or one decision "
          "(run, scope, criterion) per entry.")


def assignments_path(root: Path) -> Path:
    return Path(root) / layout.ASSIGNMENTS_FILE


def load_assignments(root: Path, project: Project, runs: list[str] | None = None) -> list[Assignment]:
    """The project's assignments (none without the file); ReviewFileError naming each bad one at its line:
    a subtask, criterion or (with `runs`, the submissions of the verdict store) run the project lacks."""
    path = assignments_path(root)
    read = read_model(path, AssignmentsFile)
    if read is None:
        return []
    model, document = read
    problems = [located(path, document, ("assignments", index, name), message)
                for index, item in enumerate(model.assignments)
                for name, message in unknown_parts(item, project, runs)]
    if problems:
        raise ReviewFileError("\n".join(problems))
    return model.assignments


def unknown_parts(item: Assignment, project: Project, runs: list[str] | None) -> list[tuple[str, str]]:
    """(field, what is wrong and the fix) for each id of `item` the project does not have."""
    from studio.judging.scope import scopes_of

    found: list[tuple[str, str]] = []
    subtasks = sorted(project.subtasks)
    criteria = {c.id for _, c in project.all_criteria()}
    if item.subtask is not None and item.subtask not in project.subtasks:
        found.append(("subtask", f"subtask {item.subtask!r} is not in the project: give one of "
                                 f"{', '.join(subtasks) or 'none'}"))
    if item.criterion is not None and item.criterion not in criteria:
        found.append(("criterion", f"criterion {item.criterion!r} is in no rubric of the project: give a "
                                   "criterion id as its rubric spells it"))
    if item.decision is not None:
        decision = item.decision
        scopes = scopes_of(project)
        if decision.scope not in scopes:
            found.append(("decision", f"scope {decision.scope!r} has no rubric: give one of {', '.join(scopes)}"))
        elif decision.criterion not in {c.id for s, c in project.all_criteria() if s == decision.scope}:
            found.append(("decision", f"criterion {decision.criterion!r} is not in the {decision.scope} rubric"))
        if runs is not None and decision.run not in runs:
            found.append(("decision", f"run {decision.run!r} has no verdicts in the project (runs with verdicts: "
                                      f"{', '.join(runs[:10]) or 'none yet'})"))
    return found


def save_assignments(root: Path, assignments: list[Assignment]) -> None:
    entries = [item.model_dump(mode="json", exclude_none=True) for item in assignments]
    write(assignments_path(root), {"assignments": entries}, HEADER)


def change_assignment(queue: ReviewQueue, item: Assignment, remove: bool = False) -> bool:
    """Add `item` to the assignments (or remove it); False when there was nothing to do. JudgingError
    naming the subtask, criterion or run the project lacks, or the rater's name the store refuses."""
    from studio.judging.queue import check_expert

    check_expert(item.rater)
    runs = queue.store.submissions()
    problems = unknown_parts(item, queue.loaded.project, runs)
    if problems:
        raise JudgingError("; ".join(message for _, message in problems))
    current = load_assignments(queue.root, queue.loaded.project, runs)
    if remove:
        if item not in current:
            raise JudgingError(f"{_said(item)} is not assigned to {item.rater}: `dbstudio assign PROJECT --list` "
                               "lists the assignments")
        current = [a for a in current if a != item]
    elif item in current:
        return False
    else:
        current = [*current, item]
    save_assignments(queue.root, current)
    return True


def _said(item: Assignment) -> str:
    if item.subtask is not None:
        return f"subtask {item.subtask}"
    if item.criterion is not None:
        return f"criterion {item.criterion}"
    assert item.decision is not None
    return f"decision {item.decision.run} {item.decision.scope} {item.decision.criterion}"


def described(item: Assignment) -> str:
    """The assignment in a line: `Anna Berg  subtask T01`."""
    return f"{item.rater}  {_said(item)}"


def covers(item: Assignment, decision: Decision) -> bool:
    if item.subtask is not None:
        return decision.scope == item.subtask
    if item.criterion is not None:
        return decision.criterion.id == item.criterion
    ref = item.decision
    return ref is not None and (ref.run, ref.scope, ref.criterion) == decision.key


@dataclass(frozen=True)
class MyQueue:
    """An expert's own decisions (queue positions, in queue order) and how many they have given."""

    rater: str
    positions: list[int]
    given: int

    @property
    def assigned(self) -> int:
        return len(self.positions)

    def progress(self) -> str:
        return f"{self.rater}: {self.given} of {self.assigned} assigned decision(s) given"

    def keys(self, queue: ReviewQueue) -> frozenset[DecisionKey]:
        """The decisions as a queue filter takes them (QueueFilter.keys)."""
        return frozenset(queue.decisions[position].key for position in self.positions)

    def as_json(self) -> dict[str, Any]:
        return {"rater": self.rater, "given": self.given, "assigned": self.assigned}


def my_queue(queue: ReviewQueue, rater: str) -> MyQueue:
    """The decisions that are `rater`'s: those their assignments cover, and the double-coding plan's when
    they are one of its raters."""
    from studio.judging.double_coding import load_plan

    project = queue.loaded.project
    mine = [a for a in load_assignments(queue.root, project, queue.store.submissions()) if a.rater == rater]
    plan = load_plan(queue.root)
    planned: set[DecisionKey] = set()
    if plan is not None and rater in plan.raters:
        planned = {_key(ref) for ref in plan.decisions}
    positions = [position for position, decision in enumerate(queue.decisions)
                 if decision.key in planned or any(covers(a, decision) for a in mine)]
    return MyQueue(rater, positions, given_of(queue, rater, positions))


def given_of(queue: ReviewQueue, rater: str, positions: list[int]) -> int:
    """How many of the decisions at `positions` the rater has given a verdict on (counted as they rate)."""
    decisions = queue.decisions
    return sum(1 for position in positions if rater in decisions[position].ratings)


def raters_with_work(queue: ReviewQueue) -> list[str]:
    """Every expert with an assignment or a place in the double-coding plan, in the order first named."""
    from studio.judging.double_coding import load_plan

    named = [a.rater for a in load_assignments(queue.root, queue.loaded.project, queue.store.submissions())]
    plan = load_plan(queue.root)
    return list(dict.fromkeys(named + (plan.raters if plan is not None else [])))


def _key(ref: DecisionRef) -> DecisionKey:
    return (ref.run, ref.scope, ref.criterion)
