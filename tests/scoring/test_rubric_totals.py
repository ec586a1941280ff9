"""A rubric's totals (criteria, W+, negative weights, gates), overall, by target and by dimension."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.model.vocabulary import FINAL_SCOPE
from studio.scoring.rubric_totals import rubric_sums
from studio.store.loader import load_project
from studio.store.workspace import sample_project


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


def test_a_checkpoint_rubrics_totals_are_its_weights_summed(root: Path):
    project = load_project(root).project
    criteria = project.checkpoint_rubrics["T01"].criteria
    weights = [c.weight or 0 for c in criteria]
    sums = rubric_sums(project, "T01")
    assert (sums.whole.criteria, sums.whole.positive, sums.whole.negative, sums.whole.gates) == (
        len(criteria), sum(w for w in weights if w > 0), sum(w for w in weights if w < 0), sum(c.gate for c in criteria))
    assert set(sums.by_target) == {"checkpoint"}
    assert sum(s.positive for s in sums.by_dimension.values()) == sums.whole.positive


def test_a_reused_final_criterion_counts_its_originals_weight_under_artifact(root: Path):
    project = load_project(root).project
    assert project.final_rubric is not None
    reused = project.final_rubric.criteria[0]
    original = project.scored_as(FINAL_SCOPE, reused)
    assert reused.weight is None and original is not None and (original.weight or 0) > 0
    before = rubric_sums(project, FINAL_SCOPE)
    rubric = root / "final" / "rubric.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8").replace(f"reuse_of: {reused.reuse_of}\n", "reuse_of: T05-C99\n", 1),
                      encoding="utf-8")
    after = rubric_sums(load_project(root).project, FINAL_SCOPE)  # a reuse of nothing carries no weight
    assert before.whole.criteria - after.whole.criteria == 1
    assert before.by_target["artifact"].positive - after.by_target["artifact"].positive == original.weight
