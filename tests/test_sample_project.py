"""The bundled sample project is clean, round-trips byte for byte, and has the promised size."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import openpyxl
import pymupdf
import pytest

from studio.cli.main import main
from studio.model import MaterialKind, Target
from studio.store import layout
from studio.store.loader import load_project
from studio.store.workspace import sample_project
from studio.store.yamlfile import YamlDocument

SAMPLE = sample_project()


@pytest.fixture(scope="module")
def project():
    loaded = load_project(SAMPLE)
    assert loaded.problems == []
    return loaded.project


def test_sample_validates_clean(capsys):
    assert main(["validate", str(SAMPLE)]) == 0
    # The one-line summary counts subtask folders and rubric lines (reused ones too), read here
    # from the files themselves rather than through the loader that validate uses.
    subtasks = sorted(p.parent.name for p in SAMPLE.glob("subtasks/*/subtask.yaml"))
    rubrics = [SAMPLE / "final" / "rubric.yaml", *(SAMPLE / "subtasks" / s / "rubric.yaml" for s in subtasks)]
    criteria = sum(len(YamlDocument.load(path).data["criteria"]) for path in rubrics)
    assert criteria > len(subtasks) > 1
    assert capsys.readouterr() == (f"OK: {len(subtasks)} subtasks, {criteria} criteria\n", "")


@pytest.mark.parametrize("path", layout.yaml_files(SAMPLE), ids=lambda p: p.relative_to(SAMPLE).as_posix())
def test_every_sample_yaml_file_round_trips_byte_identical(path: Path, tmp_path: Path):
    document = YamlDocument.load(path)
    copy = tmp_path / path.name
    document.save(copy)
    assert copy.read_bytes() == path.read_bytes()


def test_sample_sizes(project):
    assert len(project.stages.stages) >= 3
    assert len(project.timeline()) >= 8
    assert len(project.info.delivery.final_deliverables) >= 4
    criteria = {c.key: c for _, c in project.all_criteria() if c.reuse_of is None}
    assert len(criteria) >= 60
    assert {c.target for c in criteria.values()} == set(Target)
    assert len({c.dimension for c in criteria.values()}) == 5
    assert any(c.weight < 0 for c in criteria.values())
    assert any(c.gate for c in criteria.values())
    assert any(c.requires for c in criteria.values())
    assert any(c.reuse_of for c in project.final_rubric.criteria)
    assert project.references is not None and len(project.references.references) >= 2
    assert project.dependencies is not None and len(project.dependencies.handoffs) >= 8


def test_sample_release_schedule_has_late_releases_a_correction_and_scripted_feedback(project):
    materials = project.materials.materials
    at = Counter(m.release.at for m in materials)
    assert at["start"] >= 3 and at["before"] >= 3
    corrections = [m for m in materials if m.kind is MaterialKind.CLIENT_FEEDBACK and m.corrects]
    assert corrections, "a client-feedback material must correct an earlier input"
    for correction in corrections:
        for earlier in correction.corrects:
            assert project.release_position(project.material(earlier)) < project.release_position(correction)
    generated = [m for m in materials if m.generated is not None]
    assert generated and all((SAMPLE / m.generated.script).is_file() for m in generated)


def test_sample_materials_are_real_files(project):
    files = [SAMPLE / layout.MATERIALS_DIR / m.file for m in project.materials.materials if m.file]
    by_suffix = Counter(f.suffix for f in files)
    assert by_suffix[".xlsx"] >= 2 and by_suffix[".pdf"] >= 2 and by_suffix[".csv"] >= 2 and by_suffix[".md"] >= 3
    for path in files:
        if path.suffix == ".xlsx":
            workbook = openpyxl.load_workbook(path, read_only=True, data_only=False)
            assert any(sheet.max_row > 3 for sheet in workbook.worksheets), path
            workbook.close()
        elif path.suffix == ".pdf":
            with pymupdf.open(path) as pdf:
                assert pdf.page_count >= 1 and len(pdf[0].get_text().strip()) > 100, path
        elif path.suffix == ".csv":
            with path.open(newline="", encoding="utf-8") as handle:
                rows = list(csv.reader(handle))
            assert len(rows) > 5 and len(rows[0]) >= 2, path
