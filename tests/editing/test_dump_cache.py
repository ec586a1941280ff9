"""Each open document is dumped once per edit: the model rebuild, the unsaved-file view and the save
share the text, and any edit (or undo, reload, whole-file replacement) makes it dump afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing.rubric import set_criterion_field
from studio.editing.session import ProjectSession
from studio.store.loader import load_project
from studio.store.yamlfile import YamlDocument
from tests.editing.edit_support import copy_sample, parts

RUBRIC = "subtasks/T05/rubric.yaml"


@pytest.fixture
def dumps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files' dumped texts, one entry per ruamel dump."""
    calls: list[str] = []
    real = YamlDocument.dumps

    def counted(self: YamlDocument) -> str:
        text = real(self)
        calls.append(text)
        return text

    monkeypatch.setattr(YamlDocument, "dumps", counted)
    return calls


def weight_on_disk(root: Path, criterion_id: str) -> object:
    rubric = load_project(root).project.checkpoint_rubrics["T05"]
    return next(c.weight for c in rubric.criteria if c.id == criterion_id)


def test_an_edit_and_its_save_dump_the_file_once(tmp_path: Path, dumps: list[str]) -> None:
    root = copy_sample(tmp_path / "p")
    session = ProjectSession(root)
    session.apply(set_criterion_field(session.documents, "T05", "T05-C02", "weight", 7))
    session.save()
    assert len(dumps) == 1
    assert (root / RUBRIC).read_text(encoding="utf-8") == dumps[0]
    assert weight_on_disk(root, "T05-C02") == 7


def test_every_edit_dumps_afresh_so_nothing_stale_is_saved(tmp_path: Path, dumps: list[str]) -> None:
    root = copy_sample(tmp_path / "p")
    session = ProjectSession(root)
    undo, _ = session.apply(set_criterion_field(session.documents, "T05", "T05-C02", "weight", 7))
    session.apply(set_criterion_field(session.documents, "T05", "T05-C03", "weight", 4))
    session.save()
    assert weight_on_disk(root, "T05-C02") == 7 and weight_on_disk(root, "T05-C03") == 4
    session.apply(undo)
    assert session.documents.text(RUBRIC) == YamlDocument.dumps(session.documents.document(RUBRIC))
    session.save()
    assert weight_on_disk(root, "T05-C02") == 8 and weight_on_disk(root, "T05-C03") == 4
    assert session.loaded.project.checkpoint_rubrics["T05"] == load_project(root).project.checkpoint_rubrics["T05"]


def test_a_forgotten_or_replaced_file_is_not_served_from_the_cache(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "p")
    session = ProjectSession(root)
    session.apply(set_criterion_field(session.documents, "T05", "T05-C02", "weight", 7))
    edited = session.documents.text(RUBRIC)
    session.documents.forget(RUBRIC)  # reload from disk: the edit is dropped
    assert session.documents.text(RUBRIC) == (root / RUBRIC).read_text(encoding="utf-8") != edited
    session.documents.put(RUBRIC, b"criteria: []\n")
    assert session.documents.text(RUBRIC) == "criteria: []\n"


def test_a_number_set_again_is_written_as_ruamel_would_without_a_dump(tmp_path: Path, dumps: list[str]) -> None:
    root = copy_sample(tmp_path / "p")
    session = ProjectSession(root)
    session.apply(set_criterion_field(session.documents, "T05", "T05-C02", "weight", 7))
    assert len(dumps) == 1
    document = session.documents.document(RUBRIC)
    # T05-C01's weight is written `0`, which ruamel keeps as a ScalarInt (a format it may respell):
    # that one is left to ruamel.
    criteria = [c["id"] for c in document.data["criteria"]][1:]
    # Wider and narrower numbers, negatives, every other criterion: each text equals a real dump.
    for step, weight in enumerate([10, 9, -3, 125, 0, 4, -12, 8]):
        criterion_id = criteria[step % len(criteria)]
        session.apply(set_criterion_field(session.documents, "T05", criterion_id, "weight", weight))
        assert session.documents.text(RUBRIC) == YamlDocument.dumps(document)
    assert len(dumps) == 1 + 8  # the eight checks above, none for the edits themselves
    session.apply(set_criterion_field(session.documents, "T05", "T05-C01", "weight", 2))
    assert len(dumps) == 1 + 8 + 1
    session.save()
    assert (root / RUBRIC).read_text(encoding="utf-8") == dumps[-1]
    assert parts(session.loaded) == parts(load_project(root))  # the model rebuilt from patched texts


def test_other_edits_are_dumped(tmp_path: Path, dumps: list[str]) -> None:
    root = copy_sample(tmp_path / "p")
    session = ProjectSession(root)
    session.apply(set_criterion_field(session.documents, "T05", "T05-C02", "weight", 7))
    session.apply(set_criterion_field(session.documents, "T05", "T05-C02", "text", "Checks the headroom"))
    session.apply(set_criterion_field(session.documents, "T05", "T05-C02", "weight", 3))  # from the text just dumped
    session.apply(set_criterion_field(session.documents, "T05", "T05-C02", "dimension", "usability"))
    assert len(dumps) == 3
    session.save()
    saved = load_project(root).project.checkpoint_rubrics["T05"]
    criterion = next(c for c in saved.criteria if c.id == "T05-C02")
    assert (criterion.text, criterion.weight, criterion.dimension) == ("Checks the headroom", 3, "usability")
