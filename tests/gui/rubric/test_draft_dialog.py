"""Draft Criteria with an LLM… in the window: the drafts of a loopback chat-completions server shown in the
import's diff view with the request's cost, added as drafts only on Add, as one undo step."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QAction

from studio.gui.rubric.draft_dialog import DraftDialog
from tests.drafting.test_draft import BAD, GOOD, answer
from tests.gui.shell_support import open_window, sample_copy


def test_drafts_are_shown_then_added_as_one_step(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    window = open_window(qtbot, sample_copy(tmp_path, monkeypatch))
    window.select_in_explorer("subtask", "T03")
    window.findChild(QAction, "actionDraftCriteria").trigger()
    dialog = window.findChild(DraftDialog, "draftCriteriaDialog")
    assert dialog is not None and dialog.focusWidget() is dialog.kind_box
    assert dialog.subject_box.currentText() == "T03"
    before = window.context.session.documents.read_bytes("subtasks/T03/rubric.yaml")
    with answer([GOOD, *BAD]) as server:
        dialog.endpoint_edit.setText(server.url)
        dialog.model_edit.setText("drafter")
        with qtbot.waitSignal(dialog.drafted, timeout=30000):
            dialog.draft_button.click()
    assert dialog.model.rowCount() == 1 and dialog.model.index(0, 2).data() == "T03-C07"
    assert "1,234 prompt and 210 completion tokens (drafter-1)" in dialog.status.text()
    assert "Left out: proposal 2" in dialog.status.text()
    assert window.context.session.documents.read_bytes("subtasks/T03/rubric.yaml") == before  # nothing yet
    dialog.add_button.click()
    added = window.context.session.loaded.project.checkpoint_rubrics["T03"].criteria[-1]
    assert (added.key, added.review.status.value) == ("T03-C07", "draft")
    window.findChild(QAction, "actionUndo").trigger()
    assert window.context.session.documents.read_bytes("subtasks/T03/rubric.yaml") == before
