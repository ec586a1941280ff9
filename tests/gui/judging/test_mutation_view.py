"""Judging > Test the Rubrics: mutation testing from the window, on the sample with the reference package
the tests build and the tests' judge on loopback; what it shows is what `dbstudio mutate` reports."""

from __future__ import annotations

from pathlib import Path

from studio.editing.session import ProjectSession
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.mutation_view import MutationView
from studio.mutation.report import read_report
from tests.judging.chat_server import ChatServer
from tests.mutation.reference_package import sample_copy


def open_view(qtbot, root: Path) -> tuple[MutationView, TaskRunner]:
    runner = TaskRunner()
    view = MutationView(ProjectContext(ProjectSession(root)), runner)
    qtbot.addWidget(view)
    view.resize(1366, 700)
    view.show()
    qtbot.waitUntil(lambda: not runner.busy, timeout=30000)
    return view, runner


def choose(view: MutationView, kind: str, server: ChatServer | None) -> None:
    view.kind_box.setCurrentIndex(view.kind_box.findData(kind))
    view.use_judge.setChecked(server is not None)
    if server is not None:
        view.endpoint_edit.setText(server.url)
        view.model_edit.setText("figures-judge")


def run(qtbot, view: MutationView) -> None:
    with qtbot.waitSignal(view.finished, timeout=120000):
        view.run_button.click()


def test_without_a_report_it_says_where_the_reference_goes(qtbot, tmp_path: Path) -> None:
    view, _ = open_view(qtbot, sample_copy(tmp_path / "bare"))
    assert "evaluator/reference/" in view.summary.text()
    assert view.focusWidget() is view.kind_box  # the first field
    choose(view, "file-removed", None)
    view.run_button.click()
    qtbot.waitUntil(lambda: view.run_button.isEnabled(), timeout=30000)
    assert "no reference package" in view.status.text()


def test_a_run_shows_the_report_and_the_survivors_with_their_suggested_criterion(
        qtbot, referenced: Path, judge_server: ChatServer) -> None:
    view, _ = open_view(qtbot, referenced)
    choose(view, "status-rolled-back", judge_server)
    run(qtbot, view)
    report = read_report(referenced)
    assert report is not None and view.mutants.rowCount() == len(report.mutants) == 5
    assert "Reference package: process 100.0, final 100.0" in view.summary.text()
    assert "5 mutants: 0 killed, 5 survived" in view.summary.text()
    view.filter_box.setCurrentIndex(view.filter_box.findData("killed"))
    assert view.mutants.rowCount() == 0
    view.filter_box.setCurrentIndex(view.filter_box.findData("survived"))
    assert view.mutants.rowCount() == 5
    row = next(r for r in range(5) if view.mutants.index(r, 0).data() == "status-T09-01")
    view.mutants_table.setCurrentIndex(view.mutants.index(row, 0))
    details = view.details.toPlainText()
    assert "'OI-01' shown as 'Open'" in details
    assert "T03:outputs/open_issues_register.md hands off to T09" in details
    assert "A criterion that would catch it: Signing readiness checklist shows 'OI-01'" in details


def test_stop_keeps_what_was_judged_and_run_goes_on(qtbot, referenced: Path, judge_server: ChatServer) -> None:
    view, runner = open_view(qtbot, referenced)
    choose(view, "section-dropped", judge_server)
    with qtbot.waitSignal(view.finished, timeout=120000):
        view.run_button.click()
        qtbot.waitUntil(lambda: view.bar.value() >= 13, timeout=60000)  # past the reference, into the mutants
        view.stop_button.click()
    report = read_report(referenced)
    assert report is not None and report.cancelled
    assert "Stopped" in view.status.text()
    not_run = report.counts()["not run"]
    assert not_run > 0 and "not run" in view.summary.text()
    asked = len(judge_server.requests)
    run(qtbot, view)
    again = read_report(referenced)
    assert again is not None and not again.cancelled and again.counts()["not run"] == 0
    assert len(judge_server.requests) > asked
    # reopened, the view shows the last report from disk
    view2, _ = open_view(qtbot, referenced)
    assert view2.mutants.rowCount() == len(again.mutants)
    assert view2.kills.rowCount() == len([k for k, ids in again.kills().items() if ids])
