"""What a project says its rubrics hold, as a verdict table lists them: reused criteria with
their original's fields and target artifact, `requires` kept where the final rubric can judge it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.scoring.project_rubrics import ProjectRubricError, project_rubrics
from studio.store.loader import load_project
from studio.store.workspace import sample_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_project(), tmp_path / "kestrel-refinancing"))


def reuse(project: Path, *ids: str) -> None:
    rubric = project / "final" / "rubric.yaml"
    added = "".join(f"  - reuse_of: {cid}\n    covers:\n      - F1\n" for cid in ids)
    rubric.write_text(rubric.read_text(encoding="utf-8").replace("criteria:\n", "criteria:\n" + added, 1),
                      encoding="utf-8")


def test_scopes_follow_the_timeline_and_the_final_rubric_comes_last(project: Path):
    rubrics = project_rubrics(load_project(project).project)
    assert list(rubrics) == [f"T{n:02d}" for n in range(1, 11)] + ["final"]
    assert sum(len(entries) for entries in rubrics.values()) == 99
    t01 = rubrics["T01"]["T01-C02"]
    assert (t01.weight, t01.target, t01.dimension, t01.gate) == (-6, "checkpoint", "correctness", False)


def test_a_reused_criterion_keeps_the_requires_the_final_rubric_can_judge(project: Path):
    # T06-C03 requires T06-C02 (reused in the final rubric too); T05-C06 requires T05-C02 (not reused)
    reuse(project, "T06-C03", "T05-C06")
    final = project_rubrics(load_project(project).project)["final"]
    assert final["T06-C03"].requires == ("T06-C02",)
    assert final["T05-C06"].requires == ()
    assert (final["T05-C06"].target, final["T05-C06"].weight, final["T05-C06"].reused_from) == ("artifact", 6, "T05")
    assert final["T05-C06"].text.startswith("The opening net debt")


def test_a_reuse_of_an_unknown_criterion_is_an_error(project: Path):
    reuse(project, "T05-C99")
    loaded = load_project(project)
    with pytest.raises(ProjectRubricError, match="reuses T05-C99, which is no checkpoint criterion"):
        project_rubrics(loaded.project)
