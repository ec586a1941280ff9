"""The release timeline of a project, laid out: stages as bands along a horizontal axis, the
subtasks in execution order, one release point before each subtask (and one at start), the
materials as chips stacked under their release point, arrows from a correcting material to the
one it corrects, and the evaluator-only references in a lane of their own.

Coordinates are scene units (the Qt view draws them 1:1); x grows with time, y downwards."""

from __future__ import annotations

from dataclasses import dataclass, field

from studio.model.bundle import Project
from studio.model.schedule import Material
from studio.model.vocabulary import FINAL_SCOPE

MARGIN = 20.0
SLOT = 170.0  # width of one subtask's column; the start column and the final column are as wide
BAND_TOP = MARGIN
BAND_LABEL_H = 24.0
AXIS_H = 44.0
CHIP_W = 150.0
CHIP_H = 26.0
CHIP_GAP = 8.0
CHIP_INSET = 10.0  # a chip's left edge sits this far right of its release point
LANE_GAP = 36.0
LANE_LABEL_H = 22.0

KIND_LABELS = {
    "source_record": "Source record",
    "new_evidence": "New evidence",
    "client_feedback": "Client feedback",
    "scripted_feedback": "Scripted feedback (generated)",
    "template": "Template",
}
EVALUATOR_LANE_LABEL = "Evaluator only - never shown to the agent"


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height

    def centre(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2


@dataclass(frozen=True)
class StageBand:
    stage_id: str
    title: str
    box: Box


@dataclass(frozen=True)
class SubtaskMark:
    subtask_id: str
    title: str
    stage_id: str
    position: int  # 1-based place on the timeline
    box: Box


@dataclass(frozen=True)
class ReleasePoint:
    """Where materials become visible: at start (`before` None) or just before a subtask."""

    before: str | None
    x: float

    @property
    def label(self) -> str:
        return "At start" if self.before is None else f"Before {self.before}"


@dataclass(frozen=True)
class MaterialChip:
    material_id: str
    title: str
    kind: str
    provenance: str
    release: str | None  # the subtask it is released before; None at start
    used_by: tuple[str, ...]  # subtasks listing it as an input, in timeline order
    late_for: tuple[str, ...]  # those of them that run before it is released
    generated: bool
    file: str | None
    box: Box

    @property
    def kind_label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    @property
    def tooltip(self) -> str:
        """The chip's tooltip, in Qt's rich text: what it is, when it arrives, who uses it, and a
        release after a subtask that uses it in red."""
        lines = [f"<b>{self.material_id}</b>: {self.title}", f"Kind: {self.kind_label}",
                 f"Provenance: {self.provenance.replace('_', ' ')}",
                 "Released at start" if self.release is None else f"Released before {self.release}",
                 "Used by: " + (", ".join(self.used_by) or "no subtask")]
        if self.generated:
            lines.append("Generated at release time from the agent's earlier files")
        if self.late_for:
            lines.append(f"<span style='color:#b00020'>Released after {', '.join(self.late_for)}, which use it</span>")
        return "<br>".join(lines)


@dataclass(frozen=True)
class CorrectionArrow:
    """From the material that corrects (`source`) to the one it corrects (`target`)."""

    source: str
    target: str
    start: tuple[float, float]
    end: tuple[float, float]


@dataclass(frozen=True)
class ReferenceChip:
    reference_id: str
    title: str
    scopes: tuple[str, ...]  # subtask ids and/or 'final'
    file: str
    box: Box

    @property
    def tooltip(self) -> str:
        """The chip's tooltip, in Qt's rich text: an evaluator-only file, and the rubrics it serves."""
        scopes = ", ".join(scope_label(s) for s in self.scopes) or "nothing yet"
        return "<br>".join([f"<b>{self.reference_id}</b>: {self.title}",
                            "Evaluator-only reference: never shown to the agent", f"File: evaluator/{self.file}",
                            f"For: {scopes}"])


@dataclass
class TimelineLayout:
    bands: list[StageBand] = field(default_factory=list)
    subtasks: list[SubtaskMark] = field(default_factory=list)
    release_points: list[ReleasePoint] = field(default_factory=list)
    chips: list[MaterialChip] = field(default_factory=list)
    arrows: list[CorrectionArrow] = field(default_factory=list)
    references: list[ReferenceChip] = field(default_factory=list)
    material_lane: Box = Box(0, 0, 0, 0)
    evaluator_lane: Box = Box(0, 0, 0, 0)
    width: float = 0.0
    height: float = 0.0

    def chip(self, material_id: str) -> MaterialChip | None:
        return next((chip for chip in self.chips if chip.material_id == material_id), None)

    def release_at(self, x: float) -> str | None:
        """The release point whose column holds `x` (None: at start); past the last subtask, the last."""
        points = self.release_points
        chosen = points[0].before if points else None
        for point in points[1:]:
            if x >= point.x:
                chosen = point.before
        return chosen


def _release_x(position: int) -> float:
    """x of the release point before the subtask at 1-based `position` (0: at start)."""
    return MARGIN + position * SLOT


def _uses(project: Project, order: list[str]) -> dict[str, list[str]]:
    used: dict[str, list[str]] = {}
    for sid in order:
        subtask = project.subtasks.get(sid)
        for material_id in subtask.inputs if subtask else []:
            used.setdefault(material_id, []).append(sid)
    return used


def _column_of(project: Project, material: Material, count: int) -> int:
    """0 at start, k before the k-th subtask; a release before no scheduled subtask goes last."""
    position = project.release_position(material)
    return count + 1 if position is None else position


def timeline_layout(project: Project) -> TimelineLayout:
    """Everything the release timeline draws, from a loaded project (parts that failed to load are
    left out rather than refused: the view shows what it can while the file is being fixed)."""
    order = project.timeline()
    count = len(order)
    result = TimelineLayout()
    axis_top = BAND_TOP + BAND_LABEL_H
    lane_top = axis_top + AXIS_H + LANE_GAP / 2
    result.release_points = [ReleasePoint(None, _release_x(0))]
    result.release_points += [ReleasePoint(sid, _release_x(k)) for k, sid in enumerate(order, start=1)]
    for k, sid in enumerate(order, start=1):
        subtask = project.subtasks.get(sid)
        result.subtasks.append(SubtaskMark(sid, subtask.title if subtask else sid, project.stage_of(sid) or "", k,
                                           Box(_release_x(k), axis_top, SLOT, AXIS_H)))

    used = _uses(project, order)
    positions = {sid: k for k, sid in enumerate(order, start=1)}
    stacks: dict[int, int] = {}
    materials = project.materials.materials if project.materials is not None else []
    for material in materials:
        column = _column_of(project, material, count)
        row = stacks.get(column, 0)
        stacks[column] = row + 1
        released = project.release_position(material)
        users = tuple(used.get(material.id, []))
        late = tuple(sid for sid in users if released is None or positions[sid] < released)
        box = Box(_release_x(column) + CHIP_INSET, lane_top + LANE_LABEL_H + row * (CHIP_H + CHIP_GAP),
                  CHIP_W, CHIP_H)
        result.chips.append(MaterialChip(material.id, material.title, material.kind.value, material.provenance.value,
                                         material.release.subtask if material.release.at == "before" else None,
                                         users, late, material.generated is not None, material.file, box))
    deepest = max(stacks.values(), default=0)
    material_bottom = lane_top + LANE_LABEL_H + max(deepest, 1) * (CHIP_H + CHIP_GAP)
    width = _release_x(count + 2) + MARGIN
    result.material_lane = Box(MARGIN, lane_top, width - 2 * MARGIN, material_bottom - lane_top)

    by_id = {chip.material_id: chip for chip in result.chips}
    for material in materials:
        for corrected in material.corrects:
            source, target = by_id.get(material.id), by_id.get(corrected)
            if source is None or target is None:
                continue  # validation reports the unknown id; there is nothing to point at
            result.arrows.append(CorrectionArrow(material.id, corrected, (source.box.x, source.box.centre()[1]),
                                                 (target.box.right, target.box.centre()[1])))

    evaluator_top = material_bottom + LANE_GAP
    references = project.references.references if project.references is not None else []
    ref_stacks: dict[int, int] = {}
    for reference in references:
        scopes = tuple(reference.for_scopes)
        served = [positions[s] for s in scopes if s in positions]
        column = min(served) if served else count + 1  # the final package (or nothing scheduled): last
        row = ref_stacks.get(column, 0)
        ref_stacks[column] = row + 1
        box = Box(_release_x(column) + CHIP_INSET, evaluator_top + LANE_LABEL_H + row * (CHIP_H + CHIP_GAP),
                  CHIP_W, CHIP_H)
        result.references.append(ReferenceChip(reference.id, reference.title, scopes, reference.file, box))
    ref_depth = max(ref_stacks.values(), default=0)
    evaluator_bottom = evaluator_top + LANE_LABEL_H + max(ref_depth, 1) * (CHIP_H + CHIP_GAP)
    result.evaluator_lane = Box(MARGIN, evaluator_top, width - 2 * MARGIN, evaluator_bottom - evaluator_top)

    height = evaluator_bottom + MARGIN
    if project.stages is not None:
        for stage in project.stages.stages:
            places = [positions[s] for s in stage.subtasks if s in positions]
            if places:
                left, right = _release_x(min(places)), _release_x(max(places) + 1)
                result.bands.append(StageBand(stage.id, stage.title, Box(left, BAND_TOP, right - left,
                                                                         height - MARGIN - BAND_TOP)))
    result.width, result.height = width, height
    return result


def scope_label(scope: str) -> str:
    return "the final package" if scope == FINAL_SCOPE else scope
