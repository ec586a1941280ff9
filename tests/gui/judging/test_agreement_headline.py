"""The agreement dashboard's headline pooled over decisions, the per-pair mean beside it under its
own name (issue 21: three verdicts of a new rater moved the unweighted mean over rater pairs from
93.7% to 57.9%).

The project of tests/judging/review_project.py: the judge on T01's ten criteria; Anna agrees with it
on nine (all but C10); Ben, new, gives three verdicts: C1 pass (judge pass), C2 fail (judge pass),
C3 pass (judge fail).
    judge-Anna 9 of 10, judge-Ben 1 of 3, Anna-Ben 1 of 3 (Anna: C1 pass, C2 pass, C3 fail)
    pooled judge-expert pairs  (9 + 1) / (10 + 3) = 76.9%
    mean over the three pairs  (90 + 33.3 + 33.3) / 3 = 52.2%
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.agreement_view import AgreementView
from studio.gui.judging.scores_models import AGREEMENT_COLUMNS
from studio.judging.queue import ReviewQueue
from tests.judging.review_project import JUDGE_VERDICTS, review_project


def test_the_headline_pools_decisions_and_the_pair_mean_is_named(qtbot, tmp_path: Path) -> None:
    root = review_project(tmp_path)
    queue = ReviewQueue.of_project(root)
    for number, decision in enumerate(queue.decisions, start=1):
        judge = JUDGE_VERDICTS[number]
        queue.give(decision, "Anna", judge if number != 10 else ("pass" if judge == "fail" else "fail"))
    for number, value in ((1, "pass"), (2, "fail"), (3, "pass")):
        queue.give(queue.decisions[number - 1], "Ben", value)
    context = ProjectContext(ProjectSession(root))
    context.rater_identity().set_blind(False)  # a maintainer reading the dashboard
    runner = TaskRunner()
    view = AgreementView(context, runner, resamples=0)
    view.runner_ref = runner
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.result is not None and not runner.busy, timeout=60000)
    pooled = dict(zip(AGREEMENT_COLUMNS[1:], view.model.cells(0)[1:], strict=True))
    assert view.model.cells(0)[0] == "pooled"
    assert pooled["Agreement"] == "76.9%"
    assert pooled["Mean over rater pairs"] == "52.2%"
    tip = view.model.data(view.model.index(0, AGREEMENT_COLUMNS.index("Agreement")), Qt.ItemDataRole.ToolTipRole)
    assert tip == "Percent agreement pooled over judge-expert decision pairs: 10 of 13 agree"
    header = view.model.headerData(AGREEMENT_COLUMNS.index("Mean over rater pairs"), Qt.Orientation.Horizontal,
                                   Qt.ItemDataRole.ToolTipRole)
    assert "unweighted mean" in header
