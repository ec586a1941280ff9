"""The Judging menu's scores and agreement actions, installed by one call (`install_scores`):
"Scores and Trajectories" opens the scores view, "Agreement Dashboard" the agreement dashboard,
"Judge Certification" the judge's measured error and the corrected scores, "Test the Rubrics" mutation
testing on the reference package, each
as a tab of the editor area. The views (and matplotlib, the judging core) load only when first
opened, so the window starts without them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from studio.gui.base.actions import ActionId, MenuId
from studio.gui.base.shell import Shell
from studio.gui.judging.judge_action import JudgeAction

if TYPE_CHECKING:
    from studio.gui.judging.agreement_view import AgreementView
    from studio.gui.judging.judge_error_view import JudgeErrorView
    from studio.gui.judging.lineage_view import LineageView
    from studio.gui.judging.mutation_view import MutationView
    from studio.gui.judging.scores_view import ScoresView


class ScoresHook(QObject):
    """The actions and the open views of scores and agreement for one window."""

    def __init__(self, shell: Shell) -> None:
        super().__init__(shell)
        self.shell = shell
        self.scores: ScoresView | None = None
        self.agreement: AgreementView | None = None
        self.judge_error: JudgeErrorView | None = None
        self.mutation: MutationView | None = None
        self.lineage: LineageView | None = None
        actions = shell.actions
        self.action_scores = actions.add(ActionId.SCORES, "&Scores and Trajectories", self.open_scores,
                                         tip="Each run's checkpoint and final scores from the verdict store, "
                                             "the trajectory chart and the profiles", needs_project=True)
        self.action_agreement = actions.add(ActionId.AGREEMENT, "&Agreement Dashboard", self.open_agreement,
                                            tip="Judge-expert agreement, pooled and by target and dimension",
                                            needs_project=True)
        self.action_judge_error = actions.add(ActionId.JUDGE_ERROR, "Judge &Certification", self.open_judge_error,
                                              tip="Each judge's sensitivity and specificity against the experts, "
                                                  "certified or not per scope, and the scores corrected for its "
                                                  "error", needs_project=True)
        self.action_mutation = actions.add(ActionId.MUTATION, "Test the &Rubrics (Mutation)", self.open_mutation,
                                           tip="Plant the failures the project is built to expose in the expert's "
                                               "reference package and see which criteria catch them",
                                           needs_project=True)
        self.action_lineage = actions.add(ActionId.LINEAGE, "Defect &Lineage", self.open_lineage,
                                          tip="What became of each failed checkpoint criterion of a judged run: "
                                              "persisted, repaired or propagated downstream", needs_project=True)
        self.judge = JudgeAction(shell)  # Judge… (judge_action.py): judge, then read the scores
        actions.add_to_menu(MenuId.JUDGING,
                            [ActionId.JUDGE, ActionId.SCORES, ActionId.AGREEMENT, ActionId.JUDGE_ERROR,
                             ActionId.LINEAGE, ActionId.MUTATION],
                            separator_before=True)
        actions.set_project_open(shell.context is not None)

    def _show(self, view: QWidget | None, make: Any, title: str, name: str) -> Any:
        context = self.shell.context
        if context is None:
            return None
        if view is None or view.context is not context or self.shell.tabs.indexOf(view) < 0:  # type: ignore[attr-defined]
            view = make(context)
            setattr(self, name, view)
            self.shell.show_tab(view, title, on_closed=lambda gone: self._forget(name, gone))
        else:
            self.shell.show_tab(view, title)
        return view

    def open_scores(self) -> ScoresView | None:
        from studio.gui.judging.scores_view import ScoresView

        return self._show(self.scores, lambda context: ScoresView(context, self.shell.runner, self.shell.tabs),
                          "Scores", "scores")

    def open_agreement(self) -> AgreementView | None:
        from studio.gui.judging.agreement_view import AgreementView

        return self._show(self.agreement,
                          lambda context: AgreementView(context, self.shell.runner, self.shell.tabs),
                          "Agreement", "agreement")

    def open_judge_error(self) -> JudgeErrorView | None:
        from studio.gui.judging.judge_error_view import JudgeErrorView

        return self._show(self.judge_error,
                          lambda context: JudgeErrorView(context, self.shell.runner, self.shell.tabs),
                          "Judge Certification", "judge_error")

    def open_lineage(self) -> LineageView | None:
        from studio.gui.judging.lineage_view import LineageView

        return self._show(self.lineage, lambda context: LineageView(context, self.shell.runner, self.shell.tabs),
                          "Defect Lineage", "lineage")

    def open_mutation(self) -> MutationView | None:
        from studio.gui.judging.mutation_view import MutationView

        return self._show(self.mutation, lambda context: MutationView(context, self.shell.runner, self.shell.tabs),
                          "Rubric Testing", "mutation")

    def _forget(self, name: str, view: QWidget) -> None:
        if getattr(self, name) is view:
            setattr(self, name, None)


def install_scores(shell: Shell) -> ScoresHook:
    """Add the scores and agreement actions to the Judging menu."""
    return ScoresHook(shell)
