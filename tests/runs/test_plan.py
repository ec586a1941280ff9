"""The run plan: what enters the workspace before each subtask, from the release schedule."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.bundled import samples_dir
from studio.runs.errors import RunError
from studio.runs.plan import plan_from_json, plan_run, plan_to_json
from studio.store.loader import load_project
from tests.helpers import replace_in
from tests.runs.projects import three_subtask_project


def test_the_sample_releases_each_material_before_its_subtask_and_nothing_of_the_evaluator():
    loaded = load_project(samples_dir() / "kestrel-refinancing")
    project = loaded.project
    plan = plan_run(project)
    assert [step.subtask for step in plan.subtasks] == project.timeline()
    by_subtask = {step.subtask: step for step in plan.subtasks}
    for material in project.materials.materials:
        where = project.timeline()[0] if material.release.at == "start" else material.release.subtask
        step = by_subtask[where]
        if material.generated is None:
            assert [r.dest for r in step.releases if r.material == material.id] == [f"materials/{material.file}"]
        else:
            (generated,) = [g for g in step.generated if g.material == material.id]
            assert generated.script == material.generated.script
            assert list(generated.reads) == [ref.split(":", 1)[1] for ref in material.generated.from_artifacts]
    files = plan.project_files()
    assert not [f for f in files if f.startswith("evaluator/") or f.endswith("rubric.yaml")]
    assert all((loaded.root / f).is_file() for f in files)
    assert {f.deliverable for f in plan.final} == {d.id for d in project.info.delivery.final_deliverables}
    assert plan_from_json(plan_to_json(plan)) == plan


def test_time_limits_and_instructions_come_from_each_subtask(tmp_path: Path):
    root = three_subtask_project(tmp_path / "p", commit=False)
    plan = plan_run(load_project(root).project)
    assert [(s.subtask, s.time_limit_minutes, s.instruction) for s in plan.subtasks] == [
        ("T01", 240, "subtasks/T01/instruction.md"), ("T02", 240, "subtasks/T02/instruction.md"),
        ("T03", 30, "subtasks/T03/instruction.md")]
    assert [g.dest for g in plan.subtasks[1].generated] == ["materials/M03.md"]


def test_a_project_whose_schedule_does_not_load_is_refused_with_the_fix(tmp_path: Path):
    root = three_subtask_project(tmp_path / "p", commit=False)
    replace_in(root, "materials.yaml", "kind: template", "kind: not-a-kind")
    with pytest.raises(RunError, match="dbstudio validate"):
        plan_run(load_project(root).project)
