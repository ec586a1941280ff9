"""The comment-keeping edits the sheet import uses: a comment written over the next item stays
over it when keys are added to or removed from the end of the item before, and undo gives back
the same bytes."""

from __future__ import annotations

from pathlib import Path

from studio.editing.commands import Compound
from studio.editing.comments import InsertKeyInOrder, RemoveKeyKeepingComments
from studio.editing.documents import ProjectDocuments
from studio.sheets.apply import KEY_ORDER

RUBRIC = """\
criteria:
  - id: A
    weight: 3  # agreed
    review:
      status: approved
      reviewer: M  # by phone

  # B is the gate
  - id: B
    weight: 0
"""


def test_keys_added_and_removed_at_the_end_of_an_item_leave_the_comment_over_the_next(tmp_path: Path):
    (tmp_path / "rubric.yaml").write_text(RUBRIC, encoding="utf-8")
    documents = ProjectDocuments(tmp_path)
    edit = Compound("edit A", [
        InsertKeyInOrder("rubric.yaml", ("criteria", 0, "requires"), ["B"], KEY_ORDER),
        RemoveKeyKeepingComments("rubric.yaml", ("criteria", 0, "review")),
        InsertKeyInOrder("rubric.yaml", ("criteria", 0, "propagates"), ["M01"], KEY_ORDER),
    ])
    undo, changes = edit.apply(documents)
    assert changes.files == {"rubric.yaml"}
    assert documents.text("rubric.yaml") == """\
criteria:
  - id: A
    weight: 3  # agreed
    requires:
      - B
    propagates:
      - M01

  # B is the gate
  - id: B
    weight: 0
"""
    undo.apply(documents)
    assert documents.text("rubric.yaml") == RUBRIC
