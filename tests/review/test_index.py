"""Lookups by index: they answer what a scan from the top answers, and follow edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.model import Criterion, Rubric
from studio.model.vocabulary import FINAL_SCOPE, Dimension, Target
from studio.review import review_project
from studio.review.runner import review_loaded
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from tests.helpers import make_rich_project


def scan_checkpoint_criterion(project, criterion_id):
    for sid, rubric in project.checkpoint_rubrics.items():
        for criterion in rubric.criteria:
            if criterion.key == criterion_id:
                return sid, criterion
    return None


def test_indexed_lookups_agree_with_scans_on_the_sample():
    project = load_project(sample_project()).project
    ids = {c.key for _, c in project.all_criteria()} | {c.reuse_of for _, c in project.all_criteria() if c.reuse_of}
    for criterion_id in sorted(ids) + ["nope"]:
        assert project.checkpoint_criterion(criterion_id) == scan_checkpoint_criterion(project, criterion_id)
    for scope, criterion in project.all_criteria():
        rubric = project.rubric(scope)
        assert project.row_of(scope, criterion) == rubric.criteria.index(criterion)
        assert project.criterion_row(scope, criterion.key) == [c.key for c in rubric.criteria].index(criterion.key)
    timeline = [sid for stage in project.stages.stages for sid in stage.subtasks]
    assert project.timeline() == timeline
    assert [project.position(sid) for sid in timeline] == list(range(1, len(timeline) + 1))
    assert project.material(project.materials.materials[-1].id) is project.materials.materials[-1]
    assert project.material("nope") is None and project.position("nope") is None


def _criterion(key: str, weight: int = 3) -> Criterion:
    return Criterion(id=key, text="t", covers=[], target=Target.CHECKPOINT, dimension=Dimension.CORRECTNESS,
                     weight=weight)


def test_duplicate_ids_resolve_to_the_first_as_a_scan_would():
    project = load_project(sample_project()).project
    sid = next(iter(project.checkpoint_rubrics))
    first, second = _criterion("DUP", 3), _criterion("DUP", 5)
    project.checkpoint_rubrics[sid].criteria[:0] = [first, second]
    project.invalidate_index()
    assert project.checkpoint_criterion("DUP") == (sid, first)
    assert project.criterion_row(sid, "DUP") == 0
    assert project.row_of(sid, second) == 1
    with pytest.raises(ValueError, match="not in the"):
        project.row_of(sid, _criterion("DUP", 7))


def test_index_follows_in_place_edits_after_invalidate_and_replacements_by_itself():
    project = load_project(sample_project()).project
    sid = next(iter(project.checkpoint_rubrics))
    assert project.checkpoint_criterion("NEW-01") is None
    added = _criterion("NEW-01")
    project.checkpoint_rubrics[sid].criteria.append(added)
    assert project.checkpoint_criterion("NEW-01") is None  # stale until told: edits in place say so
    project.invalidate_index()
    assert project.checkpoint_criterion("NEW-01") == (sid, added)
    project.final_rubric = Rubric(criteria=[_criterion("F-01")])  # replacing a part drops the index itself
    assert project.criterion_row(FINAL_SCOPE, "F-01") == 0


def test_review_of_a_loaded_project_is_the_same_with_or_without_given_validation(tmp_path: Path):
    root = make_rich_project(tmp_path / "proj")
    loaded = load_project(root)
    assert review_loaded(loaded).findings == review_project(root).findings
