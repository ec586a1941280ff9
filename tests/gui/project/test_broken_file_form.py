"""A project file that does not load on disk: its form offers the version of the last commit and,
restored, the project is read again (before: a dead end asking for an edit the form cannot show)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from studio.gui.project.editors.base import ObjectForm
from studio.store.last_commit import committed_version
from tests.gui.shell_support import git, idle, open_window, sample_copy

SUBTASK = "subtasks/T03/subtask.yaml"


def _break(root: Path) -> bytes:
    """A YAML syntax error in T03's file, as a text editor or a bad merge leaves it (not committed)."""
    path = root / SUBTASK
    committed = path.read_bytes()
    path.write_text(committed.decode().replace("title:", "title: [unclosed\n  x:", 1))
    return committed


def _form(window, kind: str, object_id: str) -> ObjectForm:
    form = window.open_object(kind, object_id)
    assert isinstance(form, ObjectForm)
    return form


def test_a_file_broken_on_disk_is_restored_from_the_form_and_the_project_reloads(qtbot, tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    committed = _break(root)
    window = open_window(qtbot, root)
    form = _form(window, "subtask", "T03")
    assert form.message.isVisible()
    assert "does not load" in form.message.text() and f"{SUBTASK}:3" in form.message.text()
    assert "Restore it as it was at the last commit" in form.message.text()
    assert "dbstudio" not in form.message.text()
    assert form.restore_button.isVisible()

    with qtbot.waitSignal(form.context.reloaded, timeout=20000):
        QTest.keyClick(form.restore_button, Qt.Key.Key_Space)  # a keyboard user presses it too
    idle(qtbot, window)
    assert (root / SUBTASK).read_bytes() == committed
    assert git(root, "status", "--porcelain", "--", SUBTASK) == ""
    assert not window.context.session.loaded.problems
    assert not form.message.isVisible() and not form.restore_button.isVisible()
    assert "T03" in form.title_label.text() and "—" in form.title_label.text()  # its title is shown again
    assert not window.reload_bar.isVisible()  # the app's own restore is no outside edit


def test_a_file_committed_broken_names_the_way_out_without_a_restore(qtbot, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    _break(root)
    git(root, "commit", "-qam", "A broken subtask committed by mistake")
    assert committed_version(root, SUBTASK) is None  # the last commit holds the same broken bytes
    window = open_window(qtbot, root)
    form = _form(window, "subtask", "T03")
    assert "correct it in a text editor, then File ▸ Reload from Disk" in form.message.text()
    assert not form.restore_button.isVisible()


def test_committed_version_names_the_last_commit_of_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = sample_copy(tmp_path, monkeypatch)
    assert committed_version(root, SUBTASK) is None  # unchanged since the commit: nothing to restore
    _break(root)
    version = committed_version(root, SUBTASK)
    assert version is not None
    assert version.revision == git(root, "log", "-1", "--format=%H", "--", SUBTASK).strip()
    assert version.subject == git(root, "log", "-1", "--format=%s", "--", SUBTASK).strip()
