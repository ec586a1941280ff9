"""Helpers for tests: copying the template the tests build on, writing project files, finding lines."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# The template most tests build on: the finance-transaction scaffold, which shows every feature
# (it was the `blank` template until a truly blank one took that name, issue 28). `copy_blank`
# and the `blank_project` fixture keep their names: they give this scaffold.
SCAFFOLD_TEMPLATE = REPO_ROOT / "resources" / "templates" / "finance-transaction"
SCAFFOLD = SCAFFOLD_TEMPLATE.name  # its name, for create_project(..., template=SCAFFOLD) and `dbstudio new --template`
# Not a project file: the description `dbstudio new` lists, never copied into a project.
TEMPLATE_DESCRIPTION = "template.yaml"


def copy_blank(dest: Path) -> Path:
    """Copy the finance-transaction scaffold to `dest` (which must not exist) as `dbstudio new` would
    (without its description file) and return it."""
    shutil.copytree(SCAFFOLD_TEMPLATE, dest, ignore=shutil.ignore_patterns(TEMPLATE_DESCRIPTION))
    return dest


def write(root: Path, rel: str, text: str) -> Path:
    """Write dedented `text` to root/rel (creating folders) and return the path."""
    path = Path(root) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def read(root: Path, rel: str) -> str:
    return (Path(root) / rel).read_text(encoding="utf-8")


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based number of the line holding the `occurrence`-th match of `needle`."""
    seen = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} (occurrence {occurrence}) not in text:\n{text}")


def column_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based column where the `occurrence`-th match of `needle` starts on its line."""
    line = text.splitlines()[line_of(text, needle, occurrence) - 1]
    return line.index(needle) + 1


def replace_in(root: Path, rel: str, old: str, new: str, count: int = 1) -> str:
    """Replace `old` by `new` in root/rel (it must be present) and return the new text."""
    path = Path(root) / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    text = text.replace(old, new, count)
    path.write_text(text, encoding="utf-8")
    return text


# A richer project built on the blank template: three subtasks in two stages, late and
# generated materials, handoffs, two final deliverables, requires, cross-file criteria.
RICH_FILES: dict[str, str] = {
    "project.yaml": """\
        # DeliverBench project definition (rich test variant).
        schema_version: 1
        id: rich-project
        title: Rich project
        domain: Finance
        role: Transaction associate
        client: The client company
        objective: Refinance the term loan.
        brief: brief.md
        delivery:
          scope: Model and memo.
          acceptance:
            - id: AC1
              text: The package lets its recipients act without further clarification.
            - id: AC2
              text: Numbers agree across files.
          final_deliverables:
            - id: F1
              path: final/report.md
              title: Final report
              produced_by: T01:outputs/report.md
            - id: F2
              path: final/model.xlsx
              title: Model
              produced_by: T02:outputs/model.xlsx
              audience: Credit committee
        """,
    "stages.yaml": """\
        # The project timeline.
        stages:
          - id: S1
            title: First stage
            subtasks:
              - T01
              - T02
          - id: S2
            title: Second stage
            subtasks:
              - T03
        """,
    "materials.yaml": """\
        # Files the agent receives, and when.
        materials:
          - id: M01
            file: source-notes.md
            title: Source notes
            kind: source_record
            provenance: reconstructed_material
            release:
              at: start
          - id: M02
            file: term-sheet.md
            title: Term sheet
            kind: new_evidence
            provenance: original_record
            release:
              at: before
              subtask: T02
            corrects:
              - M01
          - id: M03
            title: Scripted feedback on the model
            kind: scripted_feedback
            provenance: scenario_assumption
            release:
              at: before
              subtask: T03
            generated:
              script: scripts/feedback.py
              from:
                - T02:outputs/model.xlsx
        """,
    "dependencies.yaml": """\
        # The dependency map.
        handoffs:
          - from: T01:outputs/report.md
            to: T02
            carries: The objective and the key figures.
          - from: T02:outputs/model.xlsx
            to: T03
        """,
    "evaluator/references.yaml": """\
        # Evaluator-only references.
        references:
          - id: R1
            file: answer-T02.md
            title: Reference model notes
            for:
              - T02
              - final
        """,
    "subtasks/T02/subtask.yaml": """\
        id: T02
        title: Build the model
        instruction: instruction.md
        inputs:
          - M01
          - M02
        outputs:
          - path: outputs/model.xlsx
            title: Model
        time_limit_minutes: 240
        """,
    "subtasks/T02/instruction.md": "# T02\n\nBuild the model from the term sheet (M02).\n",
    "subtasks/T02/rubric.yaml": """\
        # Checkpoint rubric of T02.
        criteria:
          - id: T02-C01
            text: The model balances.
            covers:
              - T02:outputs/model.xlsx
            target: checkpoint
            dimension: correctness
            weight: 8
            review:
              status: approved
              reviewer: A. Expert
          - id: T02-C02
            text: The model uses the term sheet's margin.
            covers:
              - T02:outputs/model.xlsx
            target: checkpoint
            dimension: correctness
            weight: 4
            requires:
              - T02-C01
          - id: T02-G01
            text: The model is not a spreadsheet.
            covers:
              - T02:outputs/model.xlsx
            target: checkpoint
            dimension: usability
            weight: 0
            gate: true
          - id: T02-N01
            text: The model hard-codes the interest.
            covers:
              - T02:outputs/model.xlsx
            target: checkpoint
            dimension: professionalism
            weight: -3
        """,
    "subtasks/T03/subtask.yaml": """\
        id: T03
        title: Write the memo
        inputs:
          - M01
          - M03
        outputs:
          - path: outputs/memo.md
        """,
    "subtasks/T03/instruction.md": "# T03\n\nWrite the memo.\n",
    "subtasks/T03/rubric.yaml": """\
        criteria:
          - id: T03-C01
            text: The memo states the recommendation.
            covers:
              - T03:outputs/memo.md
            target: checkpoint
            dimension: completeness
            weight: 6
        """,
    "final/rubric.yaml": """\
        # Final rubric.
        criteria:
          - reuse_of: T01-C01
            covers:
              - F1
          - reuse_of: T02-C01
            covers:
              - F2
          - id: X-01
            text: The report's figures match the model.
            covers:
              - F1
              - F2
            target: cross-file
            dimension: consistency
            weight: 7
            requires:
              - T02-C01
            tests:
              - AC2
          - id: A-01
            text: The report is written for the credit committee.
            covers:
              - F1
            target: artifact
            dimension: professionalism
            weight: 3
          - id: PKG-01
            text: The package contains every final deliverable listed in the delivery contract.
            covers:
              - package
            target: package
            dimension: completeness
            weight: 5
            review:
              status: draft
            tests:
              - AC1
        """,
    "materials/term-sheet.md": "# Term sheet\n\nMargin 2.5%.\n",
    "scripts/feedback.py": "print('feedback')\n",
    "evaluator/answer-T02.md": "# Reference\n",
}


def make_rich_project(dest: Path) -> Path:
    """Copy the finance-transaction scaffold to `dest` and extend it into the rich variant."""
    copy_blank(dest)
    for rel, text in RICH_FILES.items():
        write(dest, rel, text)
    return dest


def isolate_git(home: Path, monkeypatch, name: str, email: str) -> None:
    """No user or system git configuration under `home`; the identity comes from the environment only."""
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for variable in ("EMAIL", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_DIR", "GIT_INDEX_FILE"):
        monkeypatch.delenv(variable, raising=False)
    for variable in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(variable, name)
    for variable in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(variable, email)


def git(cwd: Path, *args: str, check: bool = True) -> str:
    """Run git in `cwd` and return its output; with `check`, a failure fails the test."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def files_of(folder: Path) -> dict[str, bytes | str]:
    """Every file's bytes (a link's target) under `folder`, outside .git."""
    found: dict[str, bytes | str] = {}
    for base, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names + [d for d in dirs if os.path.islink(os.path.join(base, d))]:
            path = Path(base) / name
            rel = path.relative_to(folder).as_posix()
            found[rel] = os.readlink(path) if path.is_symlink() else path.read_bytes()
    return found


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """`dbstudio ARGV...` in this process: (exit code, stdout, stderr)."""
    from studio.cli.main import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
