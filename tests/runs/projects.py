"""Small projects for run tests: the blank template grown to three subtasks, with a material
released at each point, a generated release, and evaluator-only references."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.helpers import copy_blank, git, replace_in, write

T03_SUBTASK = """\
id: T03
title: Write the cover note
instruction: instruction.md
inputs:
  - M01
  - M04
outputs:
  - path: outputs/cover.md
    title: Cover note
time_limit_minutes: 30
"""

T03_RUBRIC = """\
criteria:
  - id: T03-C01
    text: The cover note states the report's main figure and where the report is.
    covers:
      - T03:outputs/cover.md
    target: checkpoint
    dimension: completeness
    weight: 5
    review:
      status: draft
"""

M04 = """\
  - id: M04
    file: cover-template.md
    title: Cover note template
    kind: template
    provenance: scenario_assumption
    release:
      at: before
      subtask: T03
"""

# Evaluator-only content: distinctive bytes that must never be found inside a container.
SECRET_REFERENCE = "EVALUATOR-ONLY reference answer: the corrected figure is 4,417 and not 4,471.\n"


def three_subtask_project(dest: Path, commit: bool = True) -> Path:
    """The blank template plus T03 (stage S3), material M04 before T03, a second reference."""
    root = copy_blank(dest)
    replace_in(root, "stages.yaml", "      - T02\n", "      - T02\n  - id: S3\n    title: Cover\n    subtasks:\n"
               "      - T03\n")
    write(root, "subtasks/T03/subtask.yaml", T03_SUBTASK)
    write(root, "subtasks/T03/instruction.md", "# Cover note\n\nWrite outputs/cover.md from the template.\n")
    write(root, "subtasks/T03/rubric.yaml", T03_RUBRIC)
    write(root, "materials/cover-template.md", "# Cover note\n\nTo: the client\nRe: the report\n")
    materials = (root / "materials.yaml").read_text(encoding="utf-8")
    write(root, "materials.yaml", materials.rstrip("\n") + "\n" + M04)
    write(root, "evaluator/reference-notes.md", SECRET_REFERENCE)
    if commit:
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "three subtasks")
    return root


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
