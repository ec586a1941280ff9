"""Acceptance items and the criteria that test them: ids unique, every `tests` names a real item,
and only final criteria (direct or reused) test them: the items are judged on the final package."""

from __future__ import annotations

from collections import Counter

from studio.model import Project
from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout
from studio.store.loader import Problem
from studio.validation.paths import rubric_file

ACCEPTANCE = ("delivery", "acceptance")


def check_acceptance(project: Project) -> list[Problem]:
    problems: list[Problem] = []
    info = project.info
    items = info.delivery.acceptance if info is not None else []
    counts = Counter(item.id for item in items)
    seen: set[str] = set()
    for index, item in enumerate(items):
        if counts[item.id] > 1 and item.id in seen:
            problems.append(Problem(layout.PROJECT_FILE, (*ACCEPTANCE, index, "id"),
                                    f"duplicate acceptance item id '{item.id}': ids must be unique", "duplicate-id",
                                    item.id))
        seen.add(item.id)
    known = ", ".join(counts) or "none"
    for scope, criterion in project.all_criteria():
        if not criterion.tests:
            continue
        file, row = rubric_file(scope), project.row_of(scope, criterion)
        if scope != FINAL_SCOPE:
            problems.append(Problem(file, ("criteria", row, "tests"),
                                    f"criterion {criterion.key}: only final criteria test acceptance items (they are "
                                    "judged on the final package): remove 'tests', and name the item in a final "
                                    "criterion that checks it", "misplaced-tests", criterion.key))
            continue
        if info is None:
            continue  # project.yaml failed to load: its own errors say why
        for t_index, item_id in enumerate(criterion.tests):
            if item_id not in counts:
                problems.append(Problem(file, ("criteria", row, "tests", t_index),
                                        f"criterion {criterion.key} tests '{item_id}', which is not an acceptance "
                                        f"item of {layout.PROJECT_FILE} (its items: {known})", "unknown-ref",
                                        criterion.key))
    return problems
