"""Projects and submissions for the judge's tests: the blank template with a checkpoint rubric of
any size, and a folder of submitted files."""

from __future__ import annotations

from pathlib import Path

from studio.store.loader import LoadedProject, load_project
from tests.helpers import copy_blank, replace_in, write

SCOPE = "T01"


def criterion_id(number: int) -> str:
    return f"T01-C{number:03d}"


def rubric_yaml(count: int, text: str = "The report states item {n} of the brief.", weight_of: dict | None = None) -> str:
    lines = ["criteria:"]
    for n in range(1, count + 1):
        weight = (weight_of or {}).get(n, -2 if n % 5 == 0 else 3)
        lines += [f"  - id: {criterion_id(n)}", f"    text: {text.format(n=n)}", "    covers:",
                  "      - T01:outputs/report.md", "    target: checkpoint", "    dimension: completeness",
                  f"    weight: {weight}"]
    return "\n".join(lines) + "\n"


def judged_project(root: Path, count: int = 20) -> Path:
    """The blank template whose T01 rubric has `count` criteria; R01 is given to T01's judge too."""
    copy_blank(root)
    write(root, "subtasks/T01/rubric.yaml", rubric_yaml(count))
    replace_in(root, "evaluator/references.yaml", "      - T02\n", "      - T01\n      - T02\n")
    return root


def load(root: Path) -> LoadedProject:
    loaded = load_project(root)
    assert loaded.problems == [], loaded.problems
    return loaded


def submission_folder(root: Path, report: str = "# Report\n\nThe client's objective is a refinancing.\n") -> Path:
    write(root, "outputs/report.md", report)
    write(root, "outputs/notes.txt", "working notes\n")
    return root
