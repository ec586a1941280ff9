"""A reference package for the sample, built by the tests: for each checkpoint output a file that does what
every requirement covering it asks (its text written out, under a heading of its own), and for each final
deliverable the same for the final rubric. The registers carry statuses that change along the timeline,
so that stale statuses can be planted. What a real expert writes is prose; this is the same content,
literally, which is what the tests' judge (figures_judge.py) reads for.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from openpyxl import Workbook

from studio.model import Criterion, Project
from studio.model.vocabulary import FINAL_SCOPE, PACKAGE
from studio.store.loader import load_project
from studio.store.workspace import sample_project

REFERENCE = "evaluator/reference"
CORRECTIONS = """\
# What the reference package's corrections changed (docs/rubric-testing.md).
corrections:
  - material: M12
    what: FY2025 EBITDA
    from: 41.8
    to: 38.9
"""
# Registers: ID -> (item, status) in the open-issues register of T03, the checklist of T09, and the final
# checklist: the Venlo condition moves from open to a condition subsequent, the reliance letter arrives.
REGISTER_T03 = {"OI-01": ("Venlo permit condition 7", "Open"),
                "OI-02": ("FY2025 other operating income query", "Open"),
                "OI-03": ("Valuation reliance letter for lenders", "Requested")}
CHECKLIST_T09 = {"OI-01": ("Venlo permit condition 7", "Condition subsequent agreed"),
                 "OI-03": ("Valuation reliance letter for lenders", "Received")}
DECISIONS_T06 = {"D-01": ("Margin of 2.90% on the original leverage", "Superseded"),
                 "D-02": ("Margin of 3.25% on restated leverage", "Adopted")}


def sample_copy(dest: Path) -> Path:
    shutil.copytree(sample_project(), dest)
    return dest


def _covers(criterion: Criterion, scope: str, ref: str, deliverable_id: str | None = None) -> bool:
    if scope == FINAL_SCOPE:
        return not criterion.covers or PACKAGE in criterion.covers or deliverable_id in criterion.covers
    return not criterion.covers or ref in criterion.covers


def _requirements(project: Project, scope: str, ref: str, deliverable_id: str | None = None) -> list[Criterion]:
    rubric = project.rubric(scope)
    found = []
    for criterion in rubric.criteria if rubric is not None else []:
        scored = project.scored_as(scope, criterion) or criterion
        if not scored.gate and (scored.weight or 0) > 0 and _covers(criterion, scope, ref, deliverable_id):
            found.append(scored)
    return found


def _register(title: str, rows: dict[str, tuple[str, str]]) -> list[str]:
    lines = [f"## {title}", "", "| ID | Item | Status |", "| --- | --- | --- |"]
    lines += [f"| {key} | {item} | {status} |" for key, (item, status) in rows.items()]
    return [*lines, ""]


def _markdown(title: str, requirements: list[Criterion], extra: list[str]) -> str:
    lines = [f"# {title}", ""]
    for criterion in requirements:
        words = " ".join((criterion.text or "").split()[:6]).rstrip(",.;:")
        lines += [f"## {criterion.key}: {words}", "", criterion.text or "", ""]
    return "\n".join(lines + extra) + "\n"


def _workbook(path: Path, title: str, requirements: list[Criterion]) -> None:
    from tests.mutation.figures_judge import figures

    workbook = Workbook()
    summary = workbook.active
    summary.title = "Summary"
    summary.append(["Item", "Value"])
    for criterion in requirements:
        for figure in figures(criterion.text or ""):
            number = float(figure.replace(",", ""))
            summary.append([criterion.key, int(number) if number.is_integer() and "." not in figure else number])
    notes = workbook.create_sheet("Notes")
    notes.append([title])
    for criterion in requirements:
        notes.append([criterion.key, criterion.text])
    path.parent.mkdir(parents=True, exist_ok=True)
    workbook.save(path)


def _write(path: Path, title: str, requirements: list[Criterion], extra: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".xlsx":
        _workbook(path, title, requirements)
    else:
        path.write_text(_markdown(title, requirements, extra), encoding="utf-8")


def _extra(path: str, scope: str) -> list[str]:
    if path.endswith("open_issues_register.md"):
        return _register("Register", REGISTER_T03)
    if path.endswith("signing_readiness_checklist.md"):
        return _register("Checklist", CHECKLIST_T09)
    if path.endswith("assumptions_memo.md") and scope in ("T06", FINAL_SCOPE):
        return _register("Decisions", DECISIONS_T06)
    return []


def build_reference(project_dir: Path, *, corrections: bool = True) -> Path:
    """Write the reference package into the project (a copy of the sample); its folder."""
    project = load_project(project_dir).project
    root = project_dir / REFERENCE
    for sid in project.timeline():
        for output in project.subtasks[sid].outputs:
            ref = f"{sid}:{output.path}"
            _write(root / sid / output.path, output.title or output.path, _requirements(project, sid, ref),
                   _extra(output.path, sid))
    assert project.info is not None
    for deliverable in project.info.delivery.final_deliverables:
        source_scope, _, source_path = deliverable.produced_by.partition(":")
        requirements = _requirements(project, FINAL_SCOPE, deliverable.path, deliverable.id)
        requirements += [c for c in _requirements(project, source_scope, deliverable.produced_by)
                         if c.key not in {r.key for r in requirements}]
        _write(root / FINAL_SCOPE / deliverable.path, deliverable.title, requirements,
               _extra(source_path, FINAL_SCOPE))
    if corrections:
        (root / "reference.yaml").write_text(CORRECTIONS, encoding="utf-8")
    return root
