"""What a run puts in the workspace before each subtask: the released materials, generated
releases and the instruction, from the project's release schedule — and nothing else.

The plan is built once, when a run is created, from the project as it is then; the files it
names are copied into the run's own `inputs/` folder so that a resumed run sees the same
inputs even if the project has changed since. Evaluator-only files never enter the plan.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from studio.model.bundle import Project
from studio.runs.errors import RunError
from studio.store import layout

if TYPE_CHECKING:
    from studio.store.loader import LoadedProject

BRIEF_IN_WORKSPACE = "brief.md"
MATERIALS_IN_WORKSPACE = "materials"


@dataclass(frozen=True)
class ReleasedFile:
    """A material file copied into the workspace: `source` is relative to the project folder."""

    material: str
    source: str
    dest: str  # relative to the workspace


@dataclass(frozen=True)
class GeneratedFile:
    """A material written by a project script from the agent's own files before a subtask."""

    material: str
    script: str  # relative to the project folder
    reads: tuple[str, ...]  # workspace paths of the agent outputs it reads
    dest: str  # relative to the workspace


@dataclass(frozen=True)
class SubtaskPlan:
    subtask: str
    position: int
    instruction: str  # relative to the project folder
    time_limit_minutes: int
    releases: tuple[ReleasedFile, ...] = ()
    generated: tuple[GeneratedFile, ...] = ()


@dataclass(frozen=True)
class FinalFile:
    """A final deliverable: the workspace file of the last checkpoint, at its path in the package."""

    deliverable: str
    path: str  # in the package
    source: str  # in the workspace


@dataclass(frozen=True)
class RunPlan:
    brief: str  # relative to the project folder
    subtasks: tuple[SubtaskPlan, ...] = field(default_factory=tuple)
    final: tuple[FinalFile, ...] = field(default_factory=tuple)

    def project_files(self) -> list[str]:
        """Every project file the run needs, relative to the project folder (no evaluator file)."""
        files = {self.brief}
        for step in self.subtasks:
            files.add(step.instruction)
            files.update(release.source for release in step.releases)
            files.update(generated.script for generated in step.generated)
        return sorted(files)


def generated_dest(material_id: str, file: str | None) -> str:
    """Where a generated material appears: its `file` name if it has one, else `<ID>.md`."""
    return (PurePosixPath(MATERIALS_IN_WORKSPACE) / (file or f"{material_id}.md")).as_posix()


def plan_run(project: Project) -> RunPlan:
    """The plan of a run of `project`; RunError when the project lacks what a run needs."""
    if project.info is None or project.stages is None or project.materials is None:
        raise RunError("the project does not load (project.yaml, stages.yaml or materials.yaml has errors): "
                       "run `dbstudio validate` on it and fix what it reports")
    timeline = project.timeline()
    before: dict[str, list[ReleasedFile]] = {sid: [] for sid in timeline}
    generated: dict[str, list[GeneratedFile]] = {sid: [] for sid in timeline}
    for material in project.materials.materials:
        target = timeline[0] if material.release.at == "start" else material.release.subtask
        if target not in before:
            raise RunError(f"material {material.id} is released before {target}, which is not on the timeline: "
                           "run `dbstudio validate` and fix materials.yaml")
        if material.generated is not None:
            reads = tuple(ref.split(":", 1)[1] for ref in material.generated.from_artifacts)
            generated[target].append(GeneratedFile(material.id, material.generated.script, reads,
                                                   generated_dest(material.id, material.file)))
        elif material.file is not None:
            source = (PurePosixPath(layout.MATERIALS_DIR) / material.file).as_posix()
            before[target].append(ReleasedFile(material.id, source, source))
    steps = []
    for position, sid in enumerate(timeline, start=1):
        subtask = project.subtasks.get(sid)
        if subtask is None:
            raise RunError(f"subtask {sid} is on the timeline but subtasks/{sid}/subtask.yaml does not load: "
                           "run `dbstudio validate` and fix it")
        instruction = (PurePosixPath(layout.SUBTASKS_DIR) / sid / subtask.instruction).as_posix()
        steps.append(SubtaskPlan(sid, position, instruction, subtask.time_limit_minutes,
                                 tuple(before[sid]), tuple(generated[sid])))
    final = tuple(FinalFile(d.id, d.path, d.produced_by.split(":", 1)[1])
                  for d in project.info.delivery.final_deliverables)
    return RunPlan(project.info.brief, tuple(steps), final)


def missing_files(plan: RunPlan, project_dir: Path) -> list[str]:
    """Files the plan names that are not in the project folder."""
    return [rel for rel in plan.project_files() if not (project_dir / rel).is_file()]


def checked_plan(project_dir: Path, error: type[RunError], made: str) -> tuple[LoadedProject, RunPlan]:
    """The project in `project_dir` loaded, validated and planned, for a run or a Harbor task (`made`:
    "a run", "the task"): a validation error or a file the plan needs that is missing raises `error`."""
    from studio.validation.findings import Severity
    from studio.validation.validate import load_folder, validate_loaded

    loaded = load_folder(project_dir)
    errors = [f for f in validate_loaded(loaded) if f.severity == Severity.ERROR]
    if errors:
        first = errors[0]
        raise error(f"{project_dir}: the project has {len(errors)} validation error(s), the first "
                    f"{first.file}:{first.line}: {first.message}; fix them (`dbstudio validate`) before {made}")
    plan = plan_run(loaded.project)
    absent = missing_files(plan, project_dir)
    if absent:
        raise error(f"{project_dir}: files {made} needs are missing: {', '.join(absent)}")
    return loaded, plan


def project_revision(project_dir: Path) -> tuple[str | None, bool]:
    """The project's commit and whether its folder has uncommitted changes (None outside git)."""
    from studio.store.history import HistoryError, ProjectRepository

    try:
        repository = ProjectRepository(project_dir)
    except HistoryError:
        return None, True
    if not repository.has_commits():
        return None, True
    return repository.repo.head.commit.hexsha, repository.is_dirty()


def plan_to_json(plan: RunPlan) -> dict[str, Any]:
    return asdict(plan)


def plan_from_json(data: dict[str, Any]) -> RunPlan:
    steps = tuple(
        SubtaskPlan(
            step["subtask"], step["position"], step["instruction"], step["time_limit_minutes"],
            tuple(ReleasedFile(**release) for release in step["releases"]),
            tuple(GeneratedFile(g["material"], g["script"], tuple(g["reads"]), g["dest"]) for g in step["generated"]),
        )
        for step in data.get("subtasks", [])
    )
    return RunPlan(data["brief"], steps, tuple(FinalFile(**f) for f in data.get("final", [])))
