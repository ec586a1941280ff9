"""The side-by-side review by keyboard alone: two experts review ten decisions in blind mode,
then their differences are adjudicated; the verdict files, the score and the agreement report are
checked against values computed by hand below.

The project (tests/judging/review_project.py): T01 has ten criteria C1..C10 with weights
5, 3, 2, 4, -2, 1, 3, 2, 5, -3 (W+ = 25), judged by judge:test-model.

    criterion   1  2  3  4  5  6  7  8  9  10
    judge       P  P  F  P  F  P  F  P  P  F
    Anna        P  P  F  F  F  P  P  P  P  F
    Ben         P  F  F  F  F  N  P  P  -  P      (- : skipped with S)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPlainTextEdit

from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.adjudication_view import AdjudicationView
from studio.gui.judging.review_models import ReviewSession
from studio.gui.judging.review_view import ReviewView
from studio.judging.queue import ReviewQueue
from studio.judging.verdict_store import VerdictStore
from tests.judging.projects import RUN_ID, criterion_id
from tests.judging.review_project import JUDGE, JUDGE_VERDICTS, review_project

KEYS = {"pass": Qt.Key.Key_P, "fail": Qt.Key.Key_F, "na": Qt.Key.Key_N, None: Qt.Key.Key_S}
ANNA = ["pass", "pass", "fail", "fail", "fail", "pass", "pass", "pass", "pass", "fail"]
BEN = ["pass", "fail", "fail", "fail", "fail", "na", "pass", "pass", None, "pass"]
SHOWN = {"pass": "pass", "fail": "fail", "na": "n/a"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return review_project(tmp_path)


def make_view(qtbot, project: Path) -> tuple[ReviewView, ReviewSession]:
    session = ReviewSession(ReviewQueue.of_project(project))
    runner = TaskRunner()
    view = ReviewView(session, runner)
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.show()
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow)  # so that focus moves as it does for the expert
    return view, session


def type_name(view: ReviewView, name: str) -> None:
    """Into the rater box by keyboard: select what is there, type, Enter."""
    line = view.rater_combo.lineEdit()
    line.setFocus()
    QTest.keyClick(line, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(line, name)
    QTest.keyClick(line, Qt.Key.Key_Return)


def review_all(view: ReviewView, plan: list[str | None], note_on: int | None = None) -> None:
    """From the first decision, give each planned verdict (None: skip) by key, checking blind mode."""
    for number, value in enumerate(plan, start=1):
        decision = view.current
        assert decision is not None and decision.criterion.id == criterion_id(number)
        judge_says = SHOWN[JUDGE_VERDICTS[number]]
        # blind: the judge's verdict and rationale are hidden until this expert gives theirs
        assert "hidden" in view.judge_verdict.text() and judge_says not in view.judge_verdict.text()
        assert view.judge_rationale.text() == "" and view.judge_refs.count() == 0
        row = view.proxy.mapFromSource(view.model.index(number - 1, 0)).row()
        assert view.proxy.index(row, view.model.COLUMNS.index("Judge")).data() == "hidden"
        if value is None:
            QTest.keyClick(view, KEYS[None])  # skip: nothing recorded, on to the next
            continue
        if number == note_on:
            QTest.keyClick(view, Qt.Key.Key_E)
            assert view.note_editor.isVisible() and view.note_editor.hasFocus()
            QTest.keyClicks(view.note_editor, "Only implied on line 2")
            QTest.keyClick(view.note_editor, Qt.Key.Key_Return)
            assert not view.note_editor.isVisible()
        QTest.keyClick(view, KEYS[value])
        # given: the judge is shown, with its rationale and cited places
        assert f"<b>{judge_says}</b>" in view.judge_verdict.text()
        assert view.judge_rationale.text() == f"Rationale {number}: the report says so."
        assert view.judge_refs.item(0).text() == f"outputs/report.txt#L{number}-L{number + 1}"
        if number < len(plan):
            QTest.keyClick(view, Qt.Key.Key_J)


def test_two_experts_review_blind_by_keyboard_then_adjudicate(qtbot, project: Path) -> None:
    from studio.agreement.analysis import Analysis
    from studio.cli.verdicts_export import read_stores
    from studio.judging.tables import ratings_of, score_rubrics
    from studio.scoring.engine import score_benchmark

    view, session = make_view(qtbot, project)
    assert view.blind_toggle.isChecked()  # blind is the default
    assert view.rater_combo.currentText() == ""  # no made-up name
    QTest.keyClick(view, Qt.Key.Key_P)  # no name yet: nothing is stored
    assert "Rater box" in view.status.text() and VerdictStore(project).raters(RUN_ID) == [JUDGE]

    type_name(view, "Anna")
    view.setFocus()
    review_all(view, ANNA)
    type_name(view, "Ben")
    view.setFocus()
    assert view.current is not None and view.current.criterion.id == criterion_id(10)
    assert "hidden" in view.judge_verdict.text()  # Ben has not given his verdict on it yet
    for _ in range(9):
        QTest.keyClick(view, Qt.Key.Key_K)
    review_all(view, BEN, note_on=2)

    # the stored verdicts, read back from the files
    store = VerdictStore(project)
    anna = {v.criterion: v.verdict for v in store.read(RUN_ID, "Anna")}
    ben = {v.criterion: v for v in store.read(RUN_ID, "Ben")}
    assert anna == {criterion_id(n): value for n, value in enumerate(ANNA, start=1)}
    assert {c: v.verdict for c, v in ben.items()} == {
        criterion_id(n): value for n, value in enumerate(BEN, start=1) if value is not None
    }
    assert ben[criterion_id(2)].note == "Only implied on line 2"
    assert (project / "verdicts" / RUN_ID / "anna.yaml").is_file() and (
        project / "verdicts" / RUN_ID / "ben.yaml"
    ).is_file()

    # adjudication: raters differ on C2 (Anna P, Ben F), C4 (experts F, judge P), C6 (Anna P, Ben N),
    # C7 (experts P, judge F) and C10 (Anna F, Ben P); C9 has Anna's pass only, as the judge's
    adjudication = AdjudicationView(session)
    qtbot.addWidget(adjudication)
    adjudication.resize(1200, 700)
    adjudication.show()
    # Ben reviews blind and skipped C9: as a rater he sees only the differences he has rated; settling is
    # the adjudicator's, who sees them all (the role is chosen in the view, by keyboard)
    QTest.keyClick(adjudication, Qt.Key.Key_F)
    assert "Adjudicator" in adjudication.status.text() and VerdictStore(project).read(RUN_ID, "adjudicated") == []
    type_name(view, "Carla")
    adjudication.role_combo.setFocus()
    QTest.keyClick(adjudication.role_combo, Qt.Key.Key_Down)
    assert session.viewer().is_adjudicator and adjudication.role_combo.currentText() == "Adjudicator"
    assert view.role_combo.currentText() == "Adjudicator"  # one identity: every view follows
    adjudication.setFocus()
    listed = [d.criterion.id for d in adjudication.model.rows]
    assert listed == [criterion_id(n) for n in (2, 4, 6, 7, 10)]
    assert adjudication.model.columns() == ["Run", "Scope", "Criterion", "Weight", JUDGE, "Anna", "Ben", "Adjudicated"]
    side_by_side = {
        adjudication.raters.item(r, 0).text(): (
            adjudication.raters.item(r, 1).text(),
            adjudication.raters.item(r, 2).text(),
        )
        for r in range(adjudication.raters.rowCount())
    }
    assert side_by_side == {
        JUDGE: ("pass", "Rationale 2: the report says so."),
        "Anna": ("pass", ""),
        "Ben": ("fail", "Only implied on line 2"),
    }
    # settle where the experts differ: C2 fail, C6 pass, C10 pass; C4 and C7 skipped (the experts agree)
    for key in (Qt.Key.Key_F, Qt.Key.Key_S, Qt.Key.Key_P, Qt.Key.Key_S, Qt.Key.Key_P):
        QTest.keyClick(adjudication, key)
    settled = {v.criterion: (v.verdict, v.by) for v in store.read(RUN_ID, "adjudicated")}
    assert settled == {
        criterion_id(2): ("fail", "Carla"),
        criterion_id(6): ("pass", "Carla"),
        criterion_id(10): ("pass", "Carla"),
    }
    assert store.read(RUN_ID, JUDGE)[0].verdict == "pass"  # the judge's file is as the judge left it

    # the score, as `dbstudio score --project` computes it. Counted verdicts: C1 P (experts), C2 F (adjudicated),
    # C3 F, C4 F, C5 F, C6 P (adjudicated), C7 P, C8 P, C9 P (Anna), C10 P (adjudicated).
    # credit = 5 (C1) + 1 (C6) + 3 (C7) + 2 (C8) + 5 (C9) - 3 (C10, a failure condition present) = 13
    # score = 100 * 13 / 25 = 52.0
    found = read_stores([str(project)], None)
    scores = score_benchmark(score_rubrics(found))
    (system,) = scores.projects["new-project"]
    assert system == f"script:h.sh@{RUN_ID}"
    assert scores.projects["new-project"][system].checkpoints["T01"] == pytest.approx(100 * 13 / 25)

    # the agreement report, as `dbstudio agreement --project` computes it (adjudicated verdicts left out)
    report = Analysis(ratings_of(found, JUDGE), JUDGE).report()
    pairs = report.pooled["pairwise"]
    # judge-Anna, 10 items: agree on 8; marginals judge P6 F4, Anna P6 F4: pe = .6*.6 + .4*.4 = .52
    ja = pairs[f"{JUDGE}|Anna"]
    assert (ja["n"], ja["agree"]) == (10, 8)
    assert ja["percent"] == pytest.approx(80.0)
    assert ja["cohen_kappa"] == pytest.approx((0.8 - 0.52) / (1 - 0.52))
    # judge-Ben, 9 items (C9 skipped): agree on C1, C3, C5, C8; judge P5 F4 N0, Ben P4 F4 N1: pe = (20+16)/81
    jb = pairs[f"{JUDGE}|Ben"]
    assert (jb["n"], jb["agree"]) == (9, 4)
    assert jb["cohen_kappa"] == pytest.approx((4 / 9 - 36 / 81) / (1 - 36 / 81))  # = 0
    # Anna-Ben, 9 items: agree on C1, C3, C4, C5, C7, C8; Anna P5 F4, Ben P4 F4 N1: pe = 36/81
    ab = pairs["Anna|Ben"]
    assert (ab["n"], ab["agree"]) == (9, 6)
    assert ab["percent"] == pytest.approx(100 * 6 / 9)
    assert ab["cohen_kappa"] == pytest.approx((6 / 9 - 36 / 81) / (1 - 36 / 81))  # = 0.4


def test_an_expert_verdict_given_in_the_app_lands_in_their_own_file(qtbot, project: Path) -> None:
    judge_file = VerdictStore(project).path(RUN_ID, JUDGE)
    before = judge_file.read_bytes()
    view, session = make_view(qtbot, project)
    written: list[bool] = []
    session.on_written = lambda: written.append(True)
    type_name(view, "Marta Lindqvist")
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_J)
    QTest.keyClick(view, Qt.Key.Key_F)
    path = project / "verdicts" / RUN_ID / "marta-lindqvist.yaml"
    assert path.is_file() and written == [True]
    (verdict,) = VerdictStore(project).read(RUN_ID, "Marta Lindqvist")
    assert (verdict.criterion, verdict.verdict, verdict.scope) == (criterion_id(2), "fail", "T01")
    assert judge_file.read_bytes() == before
    # the queue row changed in place: the expert's column and the counted verdict
    you = view.proxy.index(1, view.model.COLUMNS.index("You")).data()
    assert you == "fail" and view.proxy.index(1, view.model.COLUMNS.index("Counted")).data() == "fail"


def test_out_of_blind_mode_the_judge_shows_and_a_verdict_moves_on(qtbot, project: Path) -> None:
    view, session = make_view(qtbot, project)
    type_name(view, "Anna")
    view.setFocus()
    QTest.keyClick(view.blind_toggle, Qt.Key.Key_Space)  # the checkbox by keyboard
    assert not session.blind
    assert "<b>pass</b>" in view.judge_verdict.text()
    QTest.keyClick(view, Qt.Key.Key_P)
    assert view.current is not None and view.current.criterion.id == criterion_id(2)


def test_the_filters_and_show_criterion(qtbot, project: Path) -> None:
    view, session = make_view(qtbot, project)
    type_name(view, "Anna")
    view.setFocus()
    QTest.keyClick(view.blind_toggle, Qt.Key.Key_Space)
    for _ in range(3):
        QTest.keyClick(view, Qt.Key.Key_P)  # C1, C2 agree with the judge; C3 (judge fail) differs
    view.disagree_filter.setChecked(True)
    assert view.proxy.rowCount() == 1 and view.current is not None and view.current.criterion.id == criterion_id(3)
    view.disagree_filter.setChecked(False)
    view.mine_filter.setChecked(True)
    assert view.proxy.rowCount() == 7
    view.mine_filter.setChecked(False)
    view.show_criterion("T01", criterion_id(3))
    assert view.proxy.rowCount() == 1 and view.criterion_chip.isVisible()
    view.show_criterion("T01", criterion_id(4))  # no disagreement on C4
    assert view.proxy.rowCount() == 0 and view.current is None
    view.clear_criterion()
    assert view.proxy.rowCount() == 1  # still "judge and expert disagree"


def test_a_cited_line_scrolls_the_preview(qtbot, project: Path) -> None:
    view, session = make_view(qtbot, project)
    QTest.keyClick(view.blind_toggle, Qt.Key.Key_Space)  # not blind: the judge's citations show at once
    for _ in range(6):
        QTest.keyClick(view, Qt.Key.Key_J)
    assert view.current is not None and view.current.criterion.id == criterion_id(7)
    qtbot.waitUntil(lambda: view.evidence.files.count() == 2, timeout=10000)
    assert [view.evidence.files.item(i).text() for i in range(2)] == ["outputs/notes.txt", "outputs/report.txt"]
    with qtbot.waitSignal(view.evidence.revealed, timeout=10000):
        view.judge_refs.setCurrentRow(0)
        view._ref_chosen(view.judge_refs.item(0))
    text = view.evidence.preview.content
    assert isinstance(text, QPlainTextEdit)
    cursor = text.textCursor()
    assert cursor.blockNumber() == 6 and cursor.selectedText() == "Line 7: item 7 of the brief."


def test_the_judging_menu_opens_the_views_and_a_verdict_shows_in_the_git_state(
    qtbot, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QMenu, QTabWidget

    from tests.gui.shell_support import git, git_identity, idle, open_window

    git_identity(monkeypatch)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "judged")
    window = open_window(qtbot, project)
    menu = window.findChild(QMenu, "menuJudging")
    assert [a.objectName() for a in menu.actions() if a.objectName()][:2] == ["reviewAction", "adjudicationAction"]
    window.review.action_review.trigger()
    qtbot.waitUntil(lambda: window.review.review_view is not None, timeout=20000)
    view = window.review.review_view
    tabs = window.findChild(QTabWidget, "editorTabs")
    assert tabs.currentWidget() is view and view.objectName() == "reviewView"
    qtbot.waitUntil(lambda: "git: saved" in window.git_label.text(), timeout=20000)
    type_name(view, "Anna")
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_P)
    assert (project / "verdicts" / RUN_ID / "anna.yaml").is_file()
    qtbot.waitUntil(lambda: "1 unsaved change" in window.git_label.text(), timeout=20000)
    # the calibration flag's way in: one criterion's disagreements, brought forward
    window.review.action_adjudication.trigger()
    qtbot.waitUntil(lambda: window.review.adjudication_view is not None, timeout=20000)
    assert tabs.currentWidget() is window.review.adjudication_view
    window.review.show_criterion("T01", criterion_id(1))
    assert tabs.currentWidget() is view and view.proxy.rowCount() == 0  # Anna agreed with the judge on C1
    tabs.tabCloseRequested.emit(tabs.indexOf(view))
    qtbot.waitUntil(lambda: window.review.review_view is None, timeout=5000)
    window.review.action_review.trigger()
    qtbot.waitUntil(lambda: window.review.review_view is not None, timeout=5000)
    idle(qtbot, window)


def test_cited_cells_and_pages_scroll_the_preview(qtbot, tmp_path: Path) -> None:
    import pymupdf
    from openpyxl import Workbook

    from studio.gui.judging.review_evidence import EvidencePane
    from studio.gui.widgets.preview import PdfView, WorkbookView

    folder = tmp_path / "submission"
    (folder / "outputs").mkdir(parents=True)
    book = Workbook()
    book.active.title = "Summary"
    debt = book.create_sheet("Debt")
    for row in range(1, 60):
        debt.cell(row=row, column=3, value=row * 10)
    book.save(folder / "outputs" / "model.xlsx")
    pdf = pymupdf.open()
    for number in range(1, 4):
        pdf.new_page().insert_text((72, 72), f"Page {number} of the memo")
    pdf.save(folder / "outputs" / "memo.pdf")
    pane = EvidencePane(TaskRunner())
    qtbot.addWidget(pane)
    pane.resize(900, 700)
    pane.show()
    pane.show_submission("Evidence", folder)
    assert [pane.files.item(i).text() for i in range(pane.files.count())] == ["outputs/memo.pdf", "outputs/model.xlsx"]

    with qtbot.waitSignal(pane.revealed, timeout=10000):
        assert pane.show_ref("outputs/model.xlsx!Debt!C45")
    workbook = pane.preview.content
    assert isinstance(workbook, WorkbookView)
    assert workbook.tabs.tabText(workbook.tabs.currentIndex()) == "Debt"
    qtbot.waitUntil(
        lambda: workbook.view("Debt") is not None and workbook.view("Debt").currentIndex().isValid(), timeout=10000
    )
    cell = workbook.view("Debt").currentIndex()
    assert (cell.row(), cell.column()) == (44, 2)

    with qtbot.waitSignal(pane.revealed, timeout=10000):
        assert pane.show_ref("outputs/memo.pdf#page=3")
    view = pane.preview.content
    assert isinstance(view, PdfView)
    qtbot.waitUntil(lambda: view.page.number == 2, timeout=10000)
    assert view.spin.value() == 3
    assert not pane.show_ref("outputs/absent.docx#p=1")  # not in the submission: nothing opens


def _cited_at_the_top(view, ref: str) -> bool:  # noqa: ANN001 (an OfficeView)
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(view.document())
    cursor.setPosition(view.places[ref][0])
    return view.verticalScrollBar().value() > 0 and 0 <= view.cursorRect(cursor).top() < 20


def test_a_judge_citing_a_word_document_shows_it_scrolled_to_the_cited_paragraph(qtbot, tmp_path: Path) -> None:
    from studio.gui.widgets.office_preview import OfficeView
    from tests.previews.conftest import make_docx

    def memo(workspace: Path) -> None:
        make_docx(workspace / "outputs" / "memo.docx", filler=150)

    # the judge cites paragraphs 120-122 of the memo for criterion n (filler paragraph 113 onwards)
    project = review_project(tmp_path, cite=lambda n: f"outputs/memo.docx#p={118 + n}-{120 + n}", more_files=memo)
    view, _session = make_view(qtbot, project)
    QTest.keyClick(view.blind_toggle, Qt.Key.Key_Space)  # not blind: the judge's citations show at once
    with qtbot.waitSignal(view.evidence.revealed, timeout=10000) as revealed:
        QTest.keyClick(view, Qt.Key.Key_J)
    assert view.current is not None and view.current.criterion.id == criterion_id(2)
    assert revealed.args == ["outputs/memo.docx", {"paragraph": 120}]
    document = view.evidence.preview.content
    assert isinstance(document, OfficeView) and document.objectName() == "previewDocument"
    assert view.evidence.files.currentItem().text() == "outputs/memo.docx"
    qtbot.waitUntil(lambda: _cited_at_the_top(document, "p=120"), timeout=5000)
    assert document.textCursor().selectedText() == "Filler paragraph 113."


def test_cited_word_tables_and_slides_scroll_the_preview(qtbot, tmp_path: Path) -> None:
    from studio.gui.judging.review_evidence import EvidencePane
    from studio.gui.widgets.office_preview import OfficeView
    from tests.previews.conftest import make_docx, make_pptx

    folder = tmp_path / "submission"
    (folder / "outputs").mkdir(parents=True)
    make_docx(folder / "outputs" / "memo.docx", filler=150)
    make_pptx(folder / "outputs" / "deck.pptx", filler=30)
    pane = EvidencePane(TaskRunner())
    qtbot.addWidget(pane)
    pane.resize(900, 700)
    pane.show()
    pane.show_submission("Evidence", folder)

    with qtbot.waitSignal(pane.revealed, timeout=10000):
        assert pane.show_ref("outputs/deck.pptx#slide=20")
    deck = pane.preview.content
    assert isinstance(deck, OfficeView) and deck.objectName() == "previewSlides"
    qtbot.waitUntil(lambda: _cited_at_the_top(deck, "slide=20"), timeout=5000)
    assert deck.textCursor().selectedText() == "Slide 20 - Appendix 18"

    with qtbot.waitSignal(pane.revealed, timeout=10000):
        assert pane.show_ref("outputs/memo.docx#p=100")
    memo = pane.preview.content
    assert isinstance(memo, OfficeView) and memo.objectName() == "previewDocument"
    qtbot.waitUntil(lambda: _cited_at_the_top(memo, "p=100"), timeout=5000)
    with qtbot.waitSignal(pane.revealed, timeout=10000):  # the same file: scrolled back up to its table
        assert pane.show_ref("outputs/memo.docx#table=1")
    assert pane.preview.content is memo and memo.textCursor().currentTable() is not None
    assert _cited_at_the_top(memo, "table=1")
    assert "DSCR" in memo.textCursor().selectedText()


def test_a_rubric_edit_in_the_window_reads_the_queue_again(
    qtbot, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from studio.editing.rubric import set_criterion_field
    from tests.gui.shell_support import git, git_identity, open_window

    git_identity(monkeypatch)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "judged")
    window = open_window(qtbot, project)
    window.review.action_review.trigger()
    qtbot.waitUntil(lambda: window.review.review_view is not None, timeout=20000)
    view = window.review.review_view
    assert view.session.queue.decisions[0].judge_verdict() is not None
    context = window.context
    context.push(
        set_criterion_field(context.session.documents, "T01", criterion_id(1), "text", "The report states item one.")
    )
    # the judge's verdict was given on the earlier text: no longer current
    first = view.session.queue.decisions[0]
    assert first.criterion.text == "The report states item one." and first.judge_verdict() is None
    assert "<b>Judge:</b> no verdict" in view.judge_verdict.text()


def test_the_review_pane_never_previews_a_host_file_or_an_evaluator_reference(qtbot, tmp_path: Path) -> None:
    from studio.gui.judging.review_evidence import EvidencePane
    from tests.untrusted.hostile import HOST_SECRET, host_secret

    secret = host_secret(tmp_path)
    project = tmp_path / "project"
    (project / "evaluator").mkdir(parents=True)
    (project / "evaluator" / "reference.md").write_text("EVALUATOR-ONLY reference answer\n")
    folder = project / "runs" / "r1" / "submissions" / "T01"
    (folder / "outputs").mkdir(parents=True)
    (folder / "outputs" / "passwd.txt").symlink_to(secret)
    (folder / "outputs" / "reference.md").symlink_to("../../../../../evaluator/reference.md")
    (folder / "outputs" / "esc\x1b[2J.md").write_text("fine\n")
    pane = EvidencePane(TaskRunner())
    qtbot.addWidget(pane)
    pane.show()
    pane.show_submission("Evidence", folder)
    assert [pane.files.item(i).text() for i in range(pane.files.count())] == [
        "outputs/esc\\x1b[2J.md",
        "outputs/passwd.txt",
        "outputs/reference.md",
    ]
    for rel, problem in [
        ("outputs/passwd.txt", "is a link to a file outside the submission"),
        ("outputs/reference.md", "leads out of the submission (through ..)"),
    ]:
        with qtbot.waitSignal(pane.preview.shown) as shown:
            assert pane.show_path(rel)
        assert shown.args == ["error"] and problem in pane.preview.message.text()
        assert pane.preview.content is None
        assert HOST_SECRET.strip() not in pane.preview.message.text()
