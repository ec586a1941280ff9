"""Acceptance items in the edit layer: new items take the next free id, a removed item leaves the
`tests` of the criteria that named it (one undoable step), older plain items are numbered."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing.delivery import add_acceptance, next_acceptance_id, number_acceptance, remove_acceptance
from studio.editing.documents import ProjectDocuments
from studio.editing.ids import IdError
from studio.editing.session import ProjectSession
from tests.editing.edit_support import copy_sample, round_trip, save_and_compare


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "kestrel")


def test_next_acceptance_id():
    assert next_acceptance_id([]) == "AC1"
    assert next_acceptance_id(["AC1", "AC2", "AC6"]) == "AC7"
    assert next_acceptance_id(["AC1", "X-1", "ACx"]) == "AC2"


def test_a_new_item_takes_the_next_free_id(sample: Path):
    session = ProjectSession(sample)
    session.apply(add_acceptance(session.documents, "  Every date is a business day. ", 0))
    items = session.loaded.project.info.delivery.acceptance
    assert (items[0].id, items[0].text) == ("AC7", "Every date is a business day.")
    assert [item.id for item in items[1:]] == [f"AC{n}" for n in range(1, 7)]
    save_and_compare(session)


def test_an_id_already_taken_is_refused(sample: Path):
    with pytest.raises(IdError, match="'AC3' is already the id of an acceptance item"):
        add_acceptance(ProjectDocuments(sample), "Anything.", item_id="AC3")


def test_removing_an_item_takes_it_out_of_every_criterion_that_tests_it(sample: Path):
    def remove_ac2(documents: ProjectDocuments):
        command = remove_acceptance(documents, 1)
        assert command.label == "Remove acceptance item AC2"
        return command

    session = round_trip(sample, remove_ac2)  # valid after the edit, every byte back after the undo
    session.apply(remove_acceptance(session.documents, 1))
    final = session.loaded.project.final_rubric
    assert [c.key for c in final.criteria if "AC2" in c.tests] == []
    a01 = next(c for c in final.criteria if c.key == "A-01")
    assert a01.tests == []
    assert "    tests:\n      - AC2\n" not in session.documents.text("final/rubric.yaml")


def test_removing_one_of_several_tested_items_keeps_the_others(sample: Path):
    session = ProjectSession(sample)
    session.apply(add_acceptance(session.documents, "Dates agree.", item_id="AC7"))
    text = session.documents.text("final/rubric.yaml").replace("    tests:\n      - AC1\n",
                                                               "    tests:\n      - AC1\n      - AC7\n")
    (sample / "final" / "rubric.yaml").write_text(text, encoding="utf-8")
    session.save()
    session = ProjectSession(sample)
    session.apply(remove_acceptance(session.documents, 0))  # AC1
    p06 = next(c for c in session.loaded.project.final_rubric.criteria if c.key == "P-06")
    assert p06.tests == ["AC7"]


def test_the_sample_has_nothing_to_number(sample: Path):
    assert number_acceptance(ProjectDocuments(sample)) is None
