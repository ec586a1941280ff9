"""Cross-reference checks: ids are unique and known, files exist, and nothing runs backwards in time."""

from __future__ import annotations

from collections import Counter

from studio.graphs import cyclic_components
from studio.model import Criterion, Project, Target
from studio.model.base import split_artifact_ref
from studio.model.bundle import dangling_reuse
from studio.model.vocabulary import FINAL_SCOPE, FINAL_TARGETS, PACKAGE
from studio.store import layout
from studio.store.loader import LoadedProject, Problem
from studio.validation.acceptance import check_acceptance
from studio.validation.paths import evaluator_path, material_path, rubric_file, subtask_path, subtask_yaml

# Keys a final-rubric entry with `reuse_of` may hold: what it re-judges, on which deliverables, its
# own review, and the acceptance items it tests (`tests`). `id` is allowed only equal to `reuse_of`
# (the model checks that).
# A reused entry may also give its own `check`: the final file's path differs from the checkpoint's.
REUSED_ENTRY_KEYS = frozenset({"reuse_of", "id", "covers", "review", "tests", "check"})


class _Checker:
    def __init__(self, loaded: LoadedProject):
        self.loaded = loaded
        self.project: Project = loaded.project
        self.files = loaded.files  # the disk, or an open session's unsaved files over it
        self.problems: list[Problem] = []
        self.timeline = self.project.timeline()
        self.positions = {sid: i + 1 for i, sid in enumerate(self.timeline)}
        self.failed_files = {problem.file for problem in loaded.problems}

    def add(self, file: str, loc: tuple, message: str, code: str, object_id: str | None = None) -> None:
        self.problems.append(Problem(file, loc, message, code, object_id))

    # -- helpers -------------------------------------------------------------------------
    def known_subtask(self, sid: str) -> bool:
        return sid in self.project.subtasks or sid in self.positions

    def duplicates(self, file: str, ids: list[str], loc_of, what: str) -> None:
        counts = Counter(ids)
        seen: set[str] = set()
        for index, ident in enumerate(ids):
            if counts[ident] > 1:
                if ident in seen:
                    self.add(
                        file, loc_of(index), f"duplicate {what} id '{ident}': ids must be unique", "duplicate-id", ident
                    )
                seen.add(ident)

    # -- per file ------------------------------------------------------------------------
    def check_info(self) -> None:
        info = self.project.info
        if info is None:
            return
        file = layout.PROJECT_FILE
        if not self.files.is_file(info.brief):
            self.add(
                file,
                ("brief",),
                f"brief file '{info.brief}' does not exist in the project folder",
                "missing-file",
                info.id,
            )
        deliverables = info.delivery.final_deliverables
        self.duplicates(
            file,
            [d.id for d in deliverables],
            lambda i: ("delivery", "final_deliverables", i, "id"),
            "final deliverable",
        )
        paths = Counter(d.path for d in deliverables)
        outputs = self.project.outputs()
        for index, deliverable in enumerate(deliverables):
            loc = ("delivery", "final_deliverables", index)
            if paths[deliverable.path] > 1:
                self.add(
                    file,
                    loc + ("path",),
                    f"final deliverable path '{deliverable.path}' is used twice",
                    "duplicate-id",
                    deliverable.id,
                )
            if self.project.subtasks and deliverable.produced_by not in outputs:
                self.add(
                    file,
                    loc + ("produced_by",),
                    f"final deliverable {deliverable.id}: '{deliverable.produced_by}' is not an output of any subtask "
                    "(write SUBTASK:PATH as listed under that subtask's outputs)",
                    "unknown-ref",
                    deliverable.id,
                )

    def check_stages(self) -> None:
        stages = self.project.stages
        if stages is None:
            return
        file = layout.STAGES_FILE
        self.duplicates(file, [s.id for s in stages.stages], lambda i: ("stages", i, "id"), "stage")
        placed: dict[str, str] = {}
        for s_index, stage in enumerate(stages.stages):
            for t_index, sid in enumerate(stage.subtasks):
                loc = ("stages", s_index, "subtasks", t_index)
                if sid in placed:
                    self.add(
                        file,
                        loc,
                        f"subtask '{sid}' is scheduled twice (already in stage {placed[sid]})",
                        "duplicate-id",
                        sid,
                    )
                placed.setdefault(sid, stage.id)
                if sid not in self.project.subtasks and not self.files.is_file(subtask_yaml(sid)):
                    self.add(file, loc, f"unknown subtask '{sid}': there is no {subtask_yaml(sid)}", "unknown-ref", sid)
        for sid in self.files.subtask_ids():
            if sid not in placed:
                self.add(
                    subtask_yaml(sid),
                    ("id",),
                    f"subtask '{sid}' is in no stage: add it to a stage in {file}",
                    "unscheduled",
                    sid,
                )

    def check_subtasks(self) -> None:
        for key, subtask in self.project.subtasks.items():
            file = subtask_yaml(key)
            if subtask.id != key:
                self.add(
                    file,
                    ("id",),
                    f"subtask id '{subtask.id}' differs from its folder name '{key}': rename one to match",
                    "id-mismatch",
                    subtask.id,
                )
            if not self.files.is_file(subtask_path(key, subtask.instruction)):
                self.add(
                    file,
                    ("instruction",),
                    f"instruction file '{subtask.instruction}' does not exist beside {layout.SUBTASK_FILE}",
                    "missing-file",
                    key,
                )
            paths = Counter(o.path for o in subtask.outputs)
            for index, output in enumerate(subtask.outputs):
                if paths[output.path] > 1:
                    self.add(
                        file, ("outputs", index, "path"), f"output '{output.path}' is listed twice", "duplicate-id", key
                    )
            here = self.positions.get(key)
            for index, material_id in enumerate(subtask.inputs):
                material = self.project.material(material_id)
                if material is None:
                    if self.project.materials is not None:
                        self.add(
                            file,
                            ("inputs", index),
                            f"unknown material '{material_id}' (not in {layout.MATERIALS_FILE})",
                            "unknown-ref",
                            key,
                        )
                    continue
                released = self.project.release_position(material)
                if here is not None and released is not None and released > here:
                    self.add(
                        file,
                        ("inputs", index),
                        f"material '{material_id}' is released before {material.release.subtask}, after {key}: "
                        "it is not available yet",
                        "not-yet-released",
                        key,
                    )

    def check_materials(self) -> None:
        materials = self.project.materials
        if materials is None:
            return
        file = layout.MATERIALS_FILE
        items = materials.materials
        reference_ids = {r.id for r in self.project.references.references} if self.project.references else set()
        self.duplicates(file, [m.id for m in items], lambda i: ("materials", i, "id"), "material")
        files = Counter(m.file for m in items if m.file)
        outputs = self.project.outputs()
        for index, material in enumerate(items):
            loc = ("materials", index)
            if material.id in reference_ids:
                self.add(
                    file,
                    loc + ("id",),
                    f"material id '{material.id}' is also an evaluator reference id",
                    "duplicate-id",
                    material.id,
                )
            if material.file:
                if files[material.file] > 1:
                    self.add(
                        file,
                        loc + ("file",),
                        f"file '{material.file}' is listed by two materials",
                        "duplicate-id",
                        material.id,
                    )
                if not self.files.is_file(material_path(material.file)):
                    self.add(
                        file,
                        loc + ("file",),
                        f"material file '{layout.MATERIALS_DIR}/{material.file}' does not exist",
                        "missing-file",
                        material.id,
                    )
            release_at = None
            if material.release.at == "before":
                target = material.release.subtask or ""
                release_at = self.positions.get(target)
                # Without a timeline (stages.yaml failed to load: its own finding) no subtask is scheduled.
                if release_at is None and self.project.stages is not None:
                    self.add(
                        file,
                        loc + ("release", "subtask"),
                        f"material '{material.id}' is released before '{target}', which is not a scheduled subtask",
                        "unknown-ref",
                        material.id,
                    )
            else:
                release_at = 0
            for c_index, corrected in enumerate(material.corrects):
                earlier = self.project.material(corrected)
                if earlier is None:
                    self.add(
                        file,
                        loc + ("corrects", c_index),
                        f"'{corrected}' is not a material id",
                        "unknown-ref",
                        material.id,
                    )
                elif release_at is not None:
                    earlier_at = self.project.release_position(earlier)
                    if earlier_at is not None and earlier_at > release_at:
                        self.add(
                            file,
                            loc + ("corrects", c_index),
                            f"'{material.id}' corrects '{corrected}', which is released later",
                            "backwards-in-time",
                            material.id,
                        )
            if material.generated is not None:
                script = material.generated.script
                if not self.files.is_file(script):
                    self.add(
                        file,
                        loc + ("generated", "script"),
                        f"generator script '{script}' does not exist",
                        "missing-file",
                        material.id,
                    )
                for a_index, ref in enumerate(material.generated.from_artifacts):
                    producer = outputs.get(ref)
                    if producer is None:
                        self.add(
                            file,
                            loc + ("generated", "from", a_index),
                            f"'{ref}' is not an output of any subtask",
                            "unknown-ref",
                            material.id,
                        )
                    elif release_at is not None and self.positions.get(producer, 0) >= release_at:
                        self.add(
                            file,
                            loc + ("generated", "from", a_index),
                            f"'{ref}' is produced by {producer}, not before the release of '{material.id}'",
                            "backwards-in-time",
                            material.id,
                        )

    def check_references(self) -> None:
        refs = self.project.references
        if refs is None:
            return
        file = layout.REFERENCES_FILE
        self.duplicates(file, [r.id for r in refs.references], lambda i: ("references", i, "id"), "evaluator reference")
        for index, ref in enumerate(refs.references):
            if not self.files.is_file(evaluator_path(ref.file)):
                self.add(
                    file,
                    ("references", index, "file"),
                    f"reference file '{evaluator_path(ref.file)}' does not exist",
                    "missing-file",
                    ref.id,
                )
            for s_index, scope in enumerate(ref.for_scopes):
                if scope != FINAL_SCOPE and not self.known_subtask(scope):
                    self.add(
                        file,
                        ("references", index, "for", s_index),
                        f"'{scope}' is neither a subtask id nor 'final'",
                        "unknown-ref",
                        ref.id,
                    )

    def check_dependencies(self) -> None:
        deps = self.project.dependencies
        if deps is None:
            return
        file = layout.DEPENDENCIES_FILE
        outputs = self.project.outputs()
        seen: set[tuple[str, str]] = set()
        for index, handoff in enumerate(deps.handoffs):
            loc = ("handoffs", index)
            producer, _ = split_artifact_ref(handoff.artifact)
            if (handoff.artifact, handoff.to) in seen:
                self.add(file, loc, f"handoff {handoff.artifact} -> {handoff.to} is listed twice", "duplicate-id")
            seen.add((handoff.artifact, handoff.to))
            if handoff.artifact not in outputs:
                self.add(
                    file,
                    loc + ("from",),
                    f"'{handoff.artifact}' is not an output of subtask '{producer}'",
                    "unknown-ref",
                )
            if not self.known_subtask(handoff.to):
                self.add(file, loc + ("to",), f"unknown subtask '{handoff.to}'", "unknown-ref")
                continue
            start, end = self.positions.get(producer), self.positions.get(handoff.to)
            if start is not None and end is not None and end <= start:
                self.add(
                    file,
                    loc + ("to",),
                    f"handoff points backwards in time: {handoff.to} runs before or with {producer}, "
                    "so it cannot receive that output",
                    "backwards-in-time",
                )

    def check_rubrics(self) -> None:
        project = self.project
        outputs = project.outputs()
        deliverable_ids = {d.id for d in project.info.delivery.final_deliverables} if project.info else set()
        owner: dict[str, str] = {}
        outputs_of: dict[str, set[str]] = {}
        for ref, producer in outputs.items():
            outputs_of.setdefault(producer, set()).add(ref)
        for key, rubric in sorted(project.checkpoint_rubrics.items()):
            file = rubric_file(key)
            own_outputs = outputs_of.get(key, set())
            for index, criterion in enumerate(rubric.criteria):
                loc = ("criteria", index)
                if criterion.reuse_of is not None:
                    self.add(
                        file,
                        loc + ("reuse_of",),
                        "only final criteria reuse checkpoint criteria; remove 'reuse_of'",
                        "misplaced-reuse",
                        criterion.key,
                    )
                    continue
                self._unique(owner, criterion.key, file, loc)
                if criterion.target is not Target.CHECKPOINT:
                    self.add(
                        file,
                        loc + ("target",),
                        f"criterion {criterion.key}: a checkpoint rubric holds target 'checkpoint' only",
                        "wrong-target",
                        criterion.key,
                    )
                if key in self.positions:
                    earlier = {split_artifact_ref(ref)[1] for ref, producer in outputs.items()
                               if self.positions.get(producer, len(self.positions) + 1) <= self.positions[key]}
                    self._check_path(file, loc, criterion, earlier, f"an output of {key} or of an earlier subtask")
                for c_index, ref in enumerate(criterion.covers):
                    if key in project.subtasks and ref not in own_outputs:
                        self.add(
                            file,
                            loc + ("covers", c_index),
                            f"criterion {criterion.key}: '{ref}' is not an output of {key} (write {key}:PATH)",
                            "unknown-ref",
                            criterion.key,
                        )
            self._check_requires(file, rubric.criteria)
            self._positive_weight(file, rubric.criteria, f"checkpoint rubric of {key}")
        for key in project.subtasks:
            if key not in project.checkpoint_rubrics and not self.files.is_file(rubric_file(key)):
                self.add(
                    subtask_yaml(key),
                    ("id",),
                    f"subtask {key} has no checkpoint rubric: add {rubric_file(key)}",
                    "missing-file",
                    key,
                )
        final = project.final_rubric
        if final is None:
            return
        file = layout.FINAL_RUBRIC_FILE
        final_ids: set[str] = set()
        # A checkpoint rubric that failed to load has its own finding; the criteria it holds are
        # unknown, so a reuse of one of them is not reported as a second, false, error.
        all_checkpoint_rubrics_read = bool(project.checkpoint_rubrics) and not any(
            rubric_file(key) in self.failed_files for key in project.subtasks)
        for index, criterion in enumerate(final.criteria):
            loc = ("criteria", index)
            if criterion.key in final_ids:
                self.add(
                    file,
                    loc,
                    f"duplicate criterion id '{criterion.key}': ids must be unique",
                    "duplicate-id",
                    criterion.key,
                )
            final_ids.add(criterion.key)
            if criterion.reuse_of is not None:
                self._reused_keys(file, loc, criterion)
                if all_checkpoint_rubrics_read and project.scored_as(FINAL_SCOPE, criterion) is None:
                    self.add(
                        file,
                        loc + ("reuse_of",),
                        dangling_reuse(criterion),
                        "unknown-ref",
                        criterion.key,
                    )
            else:
                if criterion.key in owner:
                    self.add(
                        file,
                        loc + ("id",),
                        f"criterion id '{criterion.key}' is already used in {owner[criterion.key]} "
                        "(to judge it again on the final file, write reuse_of instead of id)",
                        "duplicate-id",
                        criterion.key,
                    )
                if criterion.target not in FINAL_TARGETS:
                    self.add(
                        file,
                        loc + ("target",),
                        f"criterion {criterion.key}: the final rubric holds targets artifact, cross-file or package",
                        "wrong-target",
                        criterion.key,
                    )
            for c_index, ref in enumerate(criterion.covers):
                if ref != PACKAGE and ref not in deliverable_ids and project.info is not None:
                    self.add(
                        file,
                        loc + ("covers", c_index),
                        f"criterion {criterion.key}: '{ref}' is not a final deliverable id (or 'package')",
                        "unknown-ref",
                        criterion.key,
                    )
            if project.info is not None:
                paths = {d.path for d in project.info.delivery.final_deliverables}
                self._check_path(file, loc, criterion, paths, "the path of a final deliverable")
            if criterion.target is Target.CROSS_FILE and len(set(criterion.covers)) < 2:
                self.add(
                    file,
                    loc + ("covers",),
                    f"criterion {criterion.key}: a cross-file criterion covers at least two deliverables",
                    "invalid",
                    criterion.key,
                )
        self._check_requires(file, final.criteria)
        resolved = [self._resolve(c) for c in final.criteria]
        self._positive_weight(file, [c for c in resolved if c is not None], "final rubric")

    def _reused_keys(self, file: str, loc: tuple, criterion: Criterion) -> None:
        """A reused entry keeps the original's text, weight, target, dimension, gate and requires:
        a value written for one of them would be silently ignored, so it is refused."""
        for key in sorted(criterion.model_fields_set - REUSED_ENTRY_KEYS):
            self.add(
                file,
                loc + (key,),
                f"criterion {criterion.key}: a reused entry takes only reuse_of, covers, review and tests (and a check); "
                f"remove '{key}' (it keeps the {key} of {criterion.reuse_of}: change it there)",
                "reused-key",
                criterion.key,
            )

    def _check_path(self, file: str, loc: tuple, criterion: Criterion, paths: set[str], what: str) -> None:
        """A check looks at a file the submission of the criterion's scope has."""
        if criterion.check is not None and criterion.check.path not in paths:
            self.add(
                file,
                loc + ("check", "path"),
                f"criterion {criterion.key}: the check's path '{criterion.check.path}' is not {what}",
                "unknown-ref",
                criterion.key,
            )

    def _resolve(self, criterion: Criterion) -> Criterion | None:
        return self.project.scored_as(FINAL_SCOPE, criterion)

    def _unique(self, owner: dict[str, str], key: str, file: str, loc: tuple) -> None:
        if key in owner:
            self.add(
                file,
                loc + ("id",),
                f"duplicate criterion id '{key}' (also in {owner[key]}): ids must be unique",
                "duplicate-id",
                key,
            )
        else:
            owner[key] = file

    def _check_requires(self, file: str, criteria: list[Criterion]) -> None:
        index_of = {c.key: i for i, c in enumerate(criteria)}
        graph = {c.key: list(c.requires) for c in criteria}
        for index, criterion in enumerate(criteria):
            for r_index, needed in enumerate(criterion.requires):
                if needed == criterion.key:
                    self.add(
                        file,
                        ("criteria", index, "requires", r_index),
                        f"criterion {criterion.key} requires itself",
                        "requires-cycle",
                        criterion.key,
                    )
                elif needed not in index_of:
                    self.add(
                        file,
                        ("criteria", index, "requires", r_index),
                        f"criterion {criterion.key} requires '{needed}', which is not in this rubric",
                        "unknown-ref",
                        criterion.key,
                    )
        for cycle_start in _cycles(graph):
            self.add(
                file,
                ("criteria", index_of[cycle_start], "requires"),
                f"criterion {cycle_start} is part of a 'requires' cycle",
                "requires-cycle",
                cycle_start,
            )

    def _positive_weight(self, file: str, criteria: list[Criterion], what: str) -> None:
        if criteria and not any((c.weight or 0) > 0 for c in criteria):
            self.add(
                file,
                ("criteria",),
                f"the {what} has no positive weight, so it cannot be scored: add a positive criterion",
                "no-positive-weight",
            )

    def check_propagates(self) -> None:
        """A propagation check names real materials, released no later than its rubric."""
        if self.project.materials is None:
            return
        for scope, criterion in self.project.all_criteria():
            if not criterion.propagates:
                continue
            file, index = self._criterion_location(scope, criterion)
            here = None if scope == FINAL_SCOPE else self.positions.get(scope)
            for p_index, material_id in enumerate(criterion.propagates):
                loc = ("criteria", index, "propagates", p_index)
                material = self.project.material(material_id)
                if material is None:
                    self.add(
                        file,
                        loc,
                        f"criterion {criterion.key}: '{material_id}' is not a material id",
                        "unknown-ref",
                        criterion.key,
                    )
                    continue
                released = self.project.release_position(material)
                if here is not None and released is not None and released > here:
                    self.add(
                        file,
                        loc,
                        f"criterion {criterion.key} checks the change from '{material_id}', "
                        f"which is released after {scope}",
                        "not-yet-released",
                        criterion.key,
                    )

    def _criterion_location(self, scope: str, criterion: Criterion) -> tuple[str, int]:
        return rubric_file(scope), self.project.row_of(scope, criterion)

    def check_review_records(self) -> None:
        for scope, criterion in self.project.all_criteria():
            if criterion.review.status.value != "draft" and not criterion.review.reviewer:
                file, index = self._criterion_location(scope, criterion)
                self.add(
                    file,
                    ("criteria", index, "review", "status"),
                    f"criterion {criterion.key} is '{criterion.review.status.value}' but names no reviewer",
                    "review-without-reviewer",
                    criterion.key,
                )


def _cycles(graph: dict[str, list[str]]) -> list[str]:
    """The smallest id of each group of criteria that require each other in a loop (two or
    more criteria; a criterion requiring itself is reported separately)."""
    # A criterion that requires nothing closes no loop: leave it out (most criteria, at 5,000).
    known = {node: [nxt for nxt in successors if nxt in graph] for node, successors in graph.items() if successors}
    return sorted(min(component) for component in cyclic_components(known, self_loops=False))


def check_references(loaded: LoadedProject) -> list[Problem]:
    """Every cross-reference problem of a loaded project."""
    checker = _Checker(loaded)
    checker.check_info()
    checker.check_stages()
    checker.check_subtasks()
    checker.check_materials()
    checker.check_references()
    checker.check_dependencies()
    checker.check_rubrics()
    checker.check_propagates()
    checker.check_review_records()
    return checker.problems + check_acceptance(checker.project)
