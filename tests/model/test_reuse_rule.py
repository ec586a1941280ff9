"""What a reused criterion resolves to: one rule (Project.resolve_reuse) for validation, review,
scoring, judging and the rubric editor; a reuse of nothing is a located validation error, skipped
by the readers and refused, in the same words, by scoring and judging."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.judging.errors import JudgingError
from studio.judging.scope import scope_criteria
from studio.model.bundle import dangling_reuse
from studio.model.vocabulary import FINAL_SCOPE
from studio.review.context import ReviewContext
from studio.scoring.project_rubrics import ProjectRubricError, project_rubrics
from studio.store.loader import LoadedProject, load_project
from studio.store.workspace import sample_project
from studio.validation import validate_project

FINAL = "final/rubric.yaml"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel"))


def reuse_first(root: Path, of: str) -> LoadedProject:
    """The sample with a reuse of `of` as the final rubric's first entry."""
    rubric = root / FINAL
    added = f"  - reuse_of: {of}\n    covers:\n      - F1\n"
    rubric.write_text(rubric.read_text(encoding="utf-8").replace("criteria:\n", "criteria:\n" + added, 1),
                      encoding="utf-8")
    return load_project(root)


def test_a_plain_criterion_is_scored_as_itself(sample: Path):
    project = load_project(sample).project
    criterion = project.checkpoint_rubrics["T01"].criteria[0]
    assert project.resolve_reuse("T01", criterion) == ("T01", criterion)
    assert project.scored_as("T01", criterion) is criterion


def test_a_reused_final_criterion_is_scored_as_its_checkpoint_original(sample: Path):
    project = load_project(sample).project
    assert project.final_rubric is not None
    reused = project.final_rubric.criteria[0]
    assert reused.reuse_of == "T06-C02"
    subtask, original = project.resolve_reuse(FINAL_SCOPE, reused) or ("", None)
    assert subtask == "T06" and original is project.checkpoint_rubrics["T06"].criteria[1]
    assert original.key == "T06-C02" and original.weight is not None


def test_a_dangling_or_misplaced_reuse_resolves_to_nothing(sample: Path):
    project = reuse_first(sample, "T05-C99").project
    assert project.final_rubric is not None
    dangling = project.final_rubric.criteria[0]
    assert project.resolve_reuse(FINAL_SCOPE, dangling) is None
    misplaced = project.final_rubric.criteria[1]  # reuse_of T06-C02, read as if a checkpoint rubric held it
    assert project.resolve_reuse("T06", misplaced) is None


def test_validation_reports_a_dangling_reuse_at_its_reuse_of(sample: Path):
    loaded = reuse_first(sample, "T05-C99")
    expected = dangling_reuse(loaded.project.final_rubric.criteria[0])  # type: ignore[union-attr]
    found = [f for f in validate_project(sample) if f.message == expected]
    assert len(found) == 1
    assert (found[0].file, found[0].line, found[0].code) == (FINAL, 3, "unknown-ref")


def test_scoring_and_judging_refuse_it_in_the_words_validation_reports_it_with(sample: Path):
    loaded = reuse_first(sample, "T05-C99")
    expected = dangling_reuse(loaded.project.final_rubric.criteria[0])  # type: ignore[union-attr]
    assert "reuses T05-C99, which is no checkpoint criterion" in expected
    with pytest.raises(ProjectRubricError) as scoring:
        project_rubrics(loaded.project)
    with pytest.raises(JudgingError) as judging:
        scope_criteria(loaded.project, FINAL_SCOPE)
    assert str(scoring.value) == str(judging.value) == expected


def test_the_review_skips_it(sample: Path):
    loaded = reuse_first(sample, "T05-C99")
    resolved = ReviewContext(loaded).resolved_criteria
    assert not any(written.reuse_of == "T05-C99" for _, written, _ in resolved)
    assert any(written.reuse_of == "T06-C02" and scored.key == "T06-C02" for _, written, scored in resolved)
