"""The Judging menu's Judge… action. The dialog (judge_dialog.py) and its widgets load when the
action is first triggered, not with the window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from studio.gui.base.actions import ActionId
from studio.gui.base.shell import Shell

if TYPE_CHECKING:
    from studio.gui.judging.judge_dialog import JudgeDialog


class JudgeAction(QObject):
    """The Judging menu's Judge… action (`judgeAction`), enabled while a project is open."""

    def __init__(self, shell: Shell) -> None:
        super().__init__(shell)
        self.shell = shell
        self.dialog: JudgeDialog | None = None
        self.action = shell.actions.add(ActionId.JUDGE, "&Judge…", self.open, needs_project=True,
                                        tip="Run the LLM judge on a run's checkpoints and final package")
        # another feature (the runs panel) asks for a run to be judged through the project context
        shell.project_opened.connect(lambda context: context.judging_requested.connect(self.open))

    def open(self, run_id: str | None = None) -> JudgeDialog | None:
        from studio.gui.judging.judge_dialog import JudgeDialog

        context = self.shell.context
        if context is None:
            return None
        self.dialog = JudgeDialog(context.session.root, self.shell.runner, self.shell.window, run_id=run_id)
        self.dialog.open()
        return self.dialog
