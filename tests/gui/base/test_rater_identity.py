"""The reviewer's identity (name, role, blind mode): one per project context, shared by every view,
remembered across sessions, and `changed` only when something changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.rater_identity import RaterIdentity
from studio.judging.visibility import Viewer


def test_the_identity_is_shared_remembered_and_signals_its_changes(qtbot, blank_project: Path) -> None:
    context = ProjectContext(ProjectSession(blank_project))
    identity = context.rater_identity()
    assert context.rater_identity() is identity  # one for every view of the project
    assert identity.viewer() == Viewer("", "rater", blind=True)  # blind rater without a name: sees nothing yet
    with qtbot.waitSignal(identity.changed):
        identity.set_name("  Carla Ruiz ")
    with qtbot.waitSignal(identity.changed):
        identity.set_role("adjudicator")
    with qtbot.waitSignal(identity.changed):
        identity.set_blind(False)
    with qtbot.assertNotEmitted(identity.changed):
        identity.set_name("Carla Ruiz")
        identity.set_role("adjudicator")
    with pytest.raises(ValueError, match="rater or an adjudicator"):
        identity.set_role("judge")
    assert RaterIdentity().viewer() == Viewer("Carla Ruiz", "adjudicator", blind=False)  # the next session
