"""Side-by-side review: the queue of decisions on top; below, the submission's evidence on the left
and, on the right, the criterion, the instruction and the judge's verdict with its rationale and
cited places. Keyboard-first: P pass, F fail, N not applicable, S skip, J/K next/previous, E note.

Blind mode hides the judge's verdict (and the score's choice) until the expert has given theirs
on that decision; then the view stays on the decision, shows the judge, and J goes on. Out of
blind mode a verdict moves to the next decision at once."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from studio.gui.base.layout_state import remember_splitter
from studio.gui.base.tasks import TaskRunner
from studio.gui.judging.review_evidence import EvidencePane
from studio.gui.judging.review_keys import DecisionPane, KeyRouter
from studio.gui.judging.review_models import (
    HIDDEN,
    QueueFilterModel,
    QueueModel,
    ReviewSession,
    shown,
)
from studio.gui.judging.reviewer_widgets import RolePicker
from studio.judging.errors import JudgingError
from studio.judging.provenance import Provenance, judged_by_text, trace_of
from studio.judging.queue import Decision, QueueFilter, recorded_or_refused
from studio.judging.verdicts import Verdict
from studio.views.formats import settled_text

if TYPE_CHECKING:
    from studio.judging.decisions import DecisionKey
    from studio.judging.submission import Submission

ALL = "All"
FILTER_CHARACTERS = 8  # a filter box shows this many characters of its choice
KEY_HINT = "P pass · F fail · N not applicable · S skip · J/K next/previous · E note"


def bring_forward(widget: QWidget) -> None:
    """Show the tab (or dock) holding `widget` and give it the keyboard."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QTabWidget) and parent.indexOf(widget) >= 0:
            parent.setCurrentWidget(widget)
            break
        parent = parent.parentWidget()
    widget.window().raise_()
    widget.setFocus()


def combo(name: str, tip: str, parent: QWidget) -> QComboBox:
    """A filter box as wide as a short entry: a long run id is shown whole in its list, not by
    widening the window."""
    box = QComboBox(parent)
    box.setObjectName(name)
    box.setToolTip(tip)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(FILTER_CHARACTERS)
    return box


class ReviewView(DecisionPane):
    """objectName `reviewView`; see docs/gui.md for its parts."""

    PENDING_TEXT = "The note will be stored with the verdict you give (P, F or N)."
    STORED_TEXT = "Stored the note with your verdict on {criterion}."

    decision_shown = Signal(int)  # the queue position of the decision on the right

    def __init__(self, session: ReviewSession, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reviewView")
        self.session = session
        self.runner = runner
        self.current: Decision | None = None
        self._row = 0  # the current decision's place in the filtered queue (kept when it leaves the filter)
        self._pending_note: str | None = None
        self._criterion_filter: str | None = None
        self._submissions: dict[tuple[str, str], Submission | str] = {}
        self._instruction_shown = ""  # the Markdown in the instruction pane
        self._provenance = Provenance(session.queue.root)  # the judge's requests, read once per new judging
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.model = QueueModel(session, self)
        self.proxy = QueueFilterModel(self)
        self.proxy.setSourceModel(self.model)
        self._mine: list[int] | None = None  # queue positions of My queue, while it is on
        self._build()
        self.keys = KeyRouter({Qt.Key.Key_P: lambda: self.give("pass"), Qt.Key.Key_F: lambda: self.give("fail"),
                               Qt.Key.Key_N: lambda: self.give("na"), Qt.Key.Key_S: self.skip,
                               Qt.Key.Key_J: lambda: self.step_by(1), Qt.Key.Key_K: lambda: self.step_by(-1),
                               Qt.Key.Key_E: self.edit_note}, self)
        self.keys.watch(self, self.queue, self.evidence.files, self.judge_refs, self.instruction, self.blind_toggle,
                        self.disagree_filter, self.mine_filter, self.my_queue_filter)
        session.reloaded.connect(self._reloaded)
        session.recorded.connect(self._recorded)
        session.blind_changed.connect(self._blind_changed)
        session.rater_changed.connect(self._rater_changed)
        self._reloaded()

    # -- construction ------------------------------------------------------------------------
    def _build(self) -> None:
        # Two rows of widgets that may shrink (who reviews and the review filters; the queue's filters):
        # one row of fixed-width controls made the window wider than a 1,600 px screen (issue 21, defect 3).
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Rater", self))
        self.rater_combo = combo("raterCombo", "Your name: your verdicts go to verdicts/RUN/NAME.yaml", self)
        self.rater_combo.setEditable(True)
        self.rater_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.rater_combo.setMinimumContentsLength(12)
        name_edit = self.rater_combo.lineEdit()
        assert name_edit is not None  # an editable combo has one
        name_edit.setPlaceholderText("Your name")
        self.rater_combo.addItems(self.session.known_raters())
        self.rater_combo.setCurrentText(self.session.rater)
        name_edit.editingFinished.connect(self._rater_typed)
        self.rater_combo.activated.connect(lambda _i: self._rater_typed())
        bar.addWidget(self.rater_combo)
        self.blind_toggle = QCheckBox("Blind", self)
        self.blind_toggle.setObjectName("blindToggle")
        self.blind_toggle.setToolTip("Hide the judge's, the other raters' and the adjudicated verdicts until you "
                                     "have given yours")
        self.blind_toggle.setChecked(self.session.blind)
        self.blind_toggle.toggled.connect(self.session.set_blind)
        bar.addWidget(self.blind_toggle)
        self.role_combo = RolePicker("reviewRole", self.session.identity, self)
        bar.addWidget(self.role_combo)
        self.disagree_filter = QCheckBox("Disagreements", self)
        self.disagree_filter.setObjectName("disagreeFilter")
        self.disagree_filter.setToolTip("Only the decisions where the judge and an expert disagree (in blind mode, "
                                        "those you have rated)")
        self.mine_filter = QCheckBox("Not reviewed by me", self)
        self.mine_filter.setObjectName("notReviewedFilter")
        self.mine_filter.setToolTip("Only the decisions you have not given a verdict on yet")
        self.my_queue_filter = QCheckBox("My queue", self)
        self.my_queue_filter.setObjectName("myQueueFilter")
        self.my_queue_filter.setToolTip("Only the decisions that are yours: assigned to you (dbstudio assign) or "
                                        "in the double-coding plan for you (dbstudio plan)")
        bar.addSpacing(12)
        bar.addWidget(self.disagree_filter)
        bar.addWidget(self.mine_filter)
        bar.addWidget(self.my_queue_filter)
        self.count = QLabel(self)
        self.count.setObjectName("reviewCount")
        self.count.setWordWrap(True)
        bar.addWidget(self.count, 1)
        self.reload_button = QPushButton("Reload", self)
        self.reload_button.setObjectName("reviewReload")
        self.reload_button.setToolTip("Read the verdict store again")
        self.reload_button.clicked.connect(self.session.reload)
        bar.addWidget(self.reload_button)

        filters = QHBoxLayout()
        self.run_filter = combo("runFilter", "Only this run or submission", self)
        self.scope_filter = combo("scopeFilter", "Only this subtask (or final)", self)
        self.target_filter = combo("targetFilter", "Only criteria of this target", self)
        self.dimension_filter = combo("dimensionFilter", "Only criteria of this dimension", self)
        for label, box in (("Run", self.run_filter), ("Subtask", self.scope_filter), ("Target", self.target_filter),
                           ("Dimension", self.dimension_filter)):
            filters.addWidget(QLabel(label, self))
            filters.addWidget(box)
            box.currentIndexChanged.connect(self._filters_changed)
        for check in (self.disagree_filter, self.mine_filter, self.my_queue_filter):
            check.toggled.connect(self._filters_changed)
        self.criterion_chip = QPushButton(self)
        self.criterion_chip.setObjectName("criterionFilter")
        self.criterion_chip.setToolTip("Showing one criterion: click to show them all")
        self.criterion_chip.setFlat(True)
        self.criterion_chip.clicked.connect(self.clear_criterion)
        self.criterion_chip.hide()
        filters.addWidget(self.criterion_chip)
        filters.addStretch(1)

        self.queue = QTableView(self)
        self.queue.setObjectName("reviewQueue")
        self.queue.setModel(self.proxy)
        self.queue.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.queue.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.queue.setWordWrap(False)
        self.queue.setAlternatingRowColors(True)
        self.queue.verticalHeader().setVisible(False)
        self.queue.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.queue.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in enumerate((190, 60, 110, 90, 130, 64, 70, 70, 260, 120)):
            self.queue.setColumnWidth(column, width)
        header.setSectionResizeMode(QueueModel.COLUMNS.index("Experts"), QHeaderView.ResizeMode.Stretch)
        self.queue.selectionModel().currentRowChanged.connect(self._row_chosen)

        self.evidence = EvidencePane(self.runner, self)
        self.detail = self._detail()
        lower = QSplitter(Qt.Orientation.Horizontal, self)
        lower.setObjectName("reviewSplit")
        lower.addWidget(self.evidence)
        lower.addWidget(self.detail)
        lower.setSizes([560, 520])
        remember_splitter(lower, "review/evidence-detail")
        main = QSplitter(Qt.Orientation.Vertical, self)
        main.addWidget(self.queue)
        main.addWidget(lower)
        main.setSizes([230, 560])
        remember_splitter(main, "review/queue-lower")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addLayout(filters)
        layout.addWidget(main, 1)

    def _detail(self) -> QWidget:
        panel = QWidget(self)
        panel.setObjectName("reviewDetail")
        self.criterion = QLabel(panel)
        self.criterion.setObjectName("reviewCriterion")
        self.criterion.setWordWrap(True)
        self.criterion.setTextFormat(Qt.TextFormat.RichText)
        self.criterion.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.instruction = QTextBrowser(panel)
        self.instruction.setObjectName("reviewInstruction")
        self.instruction.setOpenExternalLinks(True)
        judge_box = QFrame(panel)
        judge_box.setObjectName("judgeBox")
        judge_box.setFrameShape(QFrame.Shape.StyledPanel)
        self.judge_verdict = QLabel(judge_box)
        self.judge_verdict.setObjectName("judgeVerdict")
        self.judge_verdict.setTextFormat(Qt.TextFormat.RichText)
        self.judge_verdict.setWordWrap(True)
        self.judge_rationale = QLabel(judge_box)
        self.judge_rationale.setObjectName("judgeRationale")
        self.judge_rationale.setWordWrap(True)
        self.judge_rationale.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.judge_cost = QLabel(judge_box)
        self.judge_cost.setObjectName("judgeCost")
        self.judge_cost.setWordWrap(True)
        self.judge_cost.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.judge_cost.setStyleSheet("color: palette(placeholder-text)")
        self.judge_cost.setToolTip("The request that gave this verdict and what its judging cost "
                                   "(the cost files beside the verdicts)")
        self.judge_trace = QPlainTextEdit(judge_box)
        self.judge_trace.setObjectName("judgeTrace")
        self.judge_trace.setReadOnly(True)
        self.judge_trace.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.judge_trace.setMaximumHeight(120)
        self.judge_trace.setToolTip("The agent judge's conversation that decided this verdict: each step and its "
                                    "tool calls over the submission (`dbstudio judge PROJECT --trace SUBMISSION`)")
        self.judge_trace.hide()
        self.judge_refs = QListWidget(judge_box)
        self.judge_refs.setObjectName("judgeRefs")
        self.judge_refs.setToolTip("The places the judge cited: choose one to see it in the evidence")
        self.judge_refs.setMaximumHeight(58)
        self.judge_refs.itemActivated.connect(self._ref_chosen)
        self.judge_refs.itemClicked.connect(self._ref_chosen)
        judge_layout = QVBoxLayout(judge_box)
        judge_layout.addWidget(self.judge_verdict)
        judge_layout.addWidget(self.judge_rationale)
        judge_layout.addWidget(self.judge_refs)
        judge_layout.addWidget(self.judge_cost)
        judge_layout.addWidget(self.judge_trace)
        self.your_verdict = QLabel(panel)
        self.your_verdict.setObjectName("yourVerdict")
        self.your_verdict.setTextFormat(Qt.TextFormat.RichText)
        self.your_verdict.setWordWrap(True)
        self.note_editor = QLineEdit(panel)
        self.note_editor.setObjectName("reviewNote")
        self.note_editor.setPlaceholderText("A note with your verdict (Enter saves, Esc cancels)")
        self.note_editor.returnPressed.connect(self.save_note)
        self.note_editor.hide()
        self.status = QLabel(KEY_HINT, panel)
        self.status.setObjectName("reviewStatus")
        self.status.setWordWrap(True)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.addWidget(self.criterion)
        layout.addWidget(self.instruction, 1)
        layout.addWidget(judge_box)
        layout.addWidget(self.your_verdict)
        layout.addWidget(self.note_editor)
        layout.addWidget(self.status)
        return panel

    # -- the queue ---------------------------------------------------------------------------
    def _reloaded(self) -> None:
        queue = self.session.queue
        self._submissions.clear()
        if self.current is not None:  # the same decision, as read again
            try:
                self.current = queue.find(*self.current.key)
            except JudgingError:
                self.current = None
            self._show_detail()
        choices = {self.run_filter: sorted(queue.values("submission")),
                   self.scope_filter: queue.values("scope"),
                   self.target_filter: sorted(queue.values("target")),
                   self.dimension_filter: sorted(queue.values("dimension"))}
        for box, values in choices.items():
            kept = box.currentText()
            box.blockSignals(True)
            box.clear()
            box.addItems([ALL, *values])
            box.setCurrentIndex(max(0, box.findText(kept)))
            box.blockSignals(False)
        names = self.session.known_raters()
        typed = self.rater_combo.currentText()
        self.rater_combo.blockSignals(True)
        self.rater_combo.clear()
        self.rater_combo.addItems(names)
        self.rater_combo.setCurrentText(typed)
        self.rater_combo.blockSignals(False)
        self._filters_changed()
        if queue.left_out:
            self.status.setText(f"Left out {queue.left_out}.")

    def current_filter(self) -> QueueFilter:
        def chosen(box: QComboBox) -> str | None:
            return None if box.currentIndex() <= 0 else box.currentText()

        return QueueFilter(submission=chosen(self.run_filter), scope=chosen(self.scope_filter),
                           criterion=self._criterion_filter, target=chosen(self.target_filter),
                           dimension=chosen(self.dimension_filter), disagree=self.disagree_filter.isChecked(),
                           not_reviewed_by=(self.session.rater or None) if self.mine_filter.isChecked() else None,
                           keys=self._my_keys())

    def _my_keys(self) -> frozenset[DecisionKey] | None:
        """With My queue on: the rater's own decisions (none before a name is typed, or when the project's
        review files do not load, which the status line says); None with it off."""
        self._mine = None
        if not self.my_queue_filter.isChecked():
            return None
        if not self.session.rater:
            return frozenset()
        from studio.judging.assignments import my_queue

        try:
            mine = my_queue(self.session.queue, self.session.rater)
        except JudgingError as exc:
            self.status.setText(f"My queue: {exc}")
            return frozenset()
        self._mine = mine.positions
        return mine.keys(self.session.queue)

    def _filters_changed(self, *_args: Any) -> None:
        self.proxy.set_filter(self.current_filter())
        self._count_changed()
        if self.current is not None and self._proxy_row(self.current) is not None:
            self._select(self._proxy_row(self.current) or 0)
        else:
            self._select(0)

    def _count_changed(self) -> None:
        total = len(self.session.queue.decisions)
        shown_rows = self.proxy.rowCount()
        mine = self.session.queue.reviewed_count(self.session.rater) if self.session.rater else 0
        text = f"{shown_rows} of {total} decisions"
        if self.session.rater:
            text += f" · {mine} reviewed by {self.session.rater}"
        positions = self._mine
        if self.my_queue_filter.isChecked() and positions is not None:
            from studio.judging.assignments import given_of

            given = given_of(self.session.queue, self.session.rater, positions)
            text += f" · my queue: {given} of {len(positions)} given"
        self.count.setText(text)

    def show_criterion(self, scope: str, criterion_id: str) -> None:
        """The decisions of one criterion where judge and expert disagree, brought forward (the
        rubric editor's calibration flag opens this)."""
        self._criterion_filter = criterion_id
        self.criterion_chip.setText(f"Criterion {scope} {criterion_id}  ✕")
        self.criterion_chip.show()
        for box in (self.run_filter, self.target_filter, self.dimension_filter):
            box.blockSignals(True)
            box.setCurrentIndex(0)
            box.blockSignals(False)
        self.scope_filter.blockSignals(True)
        self.scope_filter.setCurrentIndex(max(0, self.scope_filter.findText(scope)))
        self.scope_filter.blockSignals(False)
        self.mine_filter.blockSignals(True)
        self.mine_filter.setChecked(False)
        self.mine_filter.blockSignals(False)
        self.disagree_filter.blockSignals(True)
        self.disagree_filter.setChecked(True)
        self.disagree_filter.blockSignals(False)
        if self.scope_filter.currentIndex() <= 0:  # no judged decision in that scope: show it as empty
            self.proxy.set_filter(QueueFilter(scope=scope, criterion=criterion_id, disagree=True))
            self._count_changed()
            self._select(0)
        else:
            self._filters_changed()
        bring_forward(self)

    def clear_criterion(self) -> None:
        self._criterion_filter = None
        self.criterion_chip.hide()
        self._filters_changed()

    def select_decision(self, decision: Decision) -> bool:
        """Show a decision of the queue; False when the filters leave it out."""
        row = self._proxy_row(decision)
        if row is not None:
            self._select(row)
        return row is not None

    def _proxy_row(self, decision: Decision) -> int | None:
        source = self.model.index(self.session.queue.index_of(decision), 0)
        row = self.proxy.mapFromSource(source).row()
        return row if row >= 0 else None

    def _select(self, row: int) -> None:
        rows = self.proxy.rowCount()
        if rows == 0:
            self.current = None
            self._show_detail()
            return
        row = max(0, min(row, rows - 1))
        index = self.proxy.index(row, 0)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.queue.selectionModel().setCurrentIndex(index, flags)
        self.queue.scrollTo(index)
        if self.proxy.mapToSource(index).row() != (self.session.queue.index_of(self.current)
                                                    if self.current is not None else -1):
            self._row_chosen(index)

    def _row_chosen(self, index: QModelIndex, _previous: Any = None) -> None:
        if not index.isValid():
            return
        source = self.proxy.mapToSource(index)
        decision = self.model.decision(source.row())
        self._row = index.row()
        if decision is not self.current:
            self.current = decision
            self._pending_note = None
            self.note_editor.hide()
            self._show_detail()
            self._load_evidence(decision)
            self.decision_shown.emit(source.row())

    def step_by(self, step: int) -> None:
        """J (next) and K (previous); from a decision that has left the filter, its neighbours."""
        row = self._proxy_row(self.current) if self.current is not None else None
        if row is None:
            target = self._row if step > 0 else self._row - 1
        else:
            target = row + step
        if 0 <= target < self.proxy.rowCount():
            self._select(target)
        self.setFocus()

    def skip(self) -> None:
        """S: on to the next decision, recording nothing."""
        self.step_by(1)

    # -- giving verdicts ---------------------------------------------------------------------
    def give(self, value: str) -> None:
        decision = self.current
        if decision is None:
            return
        if not self.session.rater:
            self.status.setText("Type your name in the Rater box first: your verdicts are stored under it.")
            self.rater_combo.setFocus()
            return
        note = self._pending_note
        if note is None:
            earlier = decision.ratings.get(self.session.rater)
            note = earlier.note if earlier is not None else None
        verdict, problem = recorded_or_refused(lambda: self.session.give(decision, value, note=note))
        if verdict is None:
            self.status.setText(problem)
            return
        self._pending_note = None
        self.status.setText(f"Stored {shown(verdict)} for {decision.criterion.id} in "
                            f"{self.session.queue.store.path(decision.submission, verdict.rater).name}.  {KEY_HINT}")
        if not self.session.blind:
            self.step_by(1)

    def own_verdict(self, decision: Decision) -> Verdict | None:
        return decision.ratings.get(self.session.rater) if self.session.rater else None

    def record_note(self, decision: Decision, value: str, note: str) -> tuple[Verdict | None, str]:
        return recorded_or_refused(lambda: self.session.give(decision, value, note=note))

    def show_detail(self) -> None:
        self._show_detail()

    def _rater_typed(self) -> None:
        self.session.set_rater(self.rater_combo.currentText())

    def _rater_changed(self, name: str) -> None:
        if self.rater_combo.currentText().strip() != name:
            self.rater_combo.setCurrentText(name)
        mine = self.mine_filter.isChecked() or self.my_queue_filter.isChecked()
        self._filters_changed() if mine else self._count_changed()
        self._show_detail()

    def _blind_changed(self, on: bool) -> None:
        if self.blind_toggle.isChecked() != on:
            self.blind_toggle.blockSignals(True)
            self.blind_toggle.setChecked(on)
            self.blind_toggle.blockSignals(False)
        self._filters_changed() if self.disagree_filter.isChecked() else self._show_detail()

    def _recorded(self, position: int) -> None:
        self._count_changed()
        if self.current is not None and self.session.queue.index_of(self.current) == position:
            self._show_detail()

    # -- the right side ----------------------------------------------------------------------
    def _show_detail(self) -> None:
        decision = self.current
        self.judge_refs.clear()
        if decision is None:
            self.criterion.setText("<i>No decision to review with these filters.</i>")
            self.instruction.clear()
            self._instruction_shown = ""
            self.judge_verdict.setText("")
            self.judge_rationale.setText("")
            self.judge_cost.setText("")
            self.judge_trace.hide()
            self.your_verdict.setText("")
            return
        criterion = decision.criterion
        kind = "fatal gate" if criterion.gate else ("requirement" if criterion.weight > 0 else "failure condition")
        weight = "" if criterion.gate else f" · weight {criterion.weight:+d}"
        self.criterion.setText(
            f"<b>{html.escape(criterion.id)}</b> · {html.escape(decision.submission)} · {html.escape(decision.scope)}"
            f" · {kind}{weight} · {html.escape(criterion.target)} · {html.escape(criterion.dimension)}"
            f"<p style='font-size:110%'>{html.escape(criterion.text)}</p>")
        instruction = self.session.queue.instruction(decision.scope)
        markdown = f"### {instruction.title}\n\n{instruction.text}"
        if markdown != self._instruction_shown:  # the next decision is mostly of the same subtask: laid out once
            self.instruction.setMarkdown(markdown)
            self._instruction_shown = markdown
        judge = decision.judge_verdict()
        self.judge_cost.setText("")
        conversation = None
        if judge is None:
            self.judge_verdict.setText("<b>Judge:</b> no verdict on this decision")
            self.judge_rationale.setText("")
        elif self.session.judge_hidden(decision):
            self.judge_verdict.setText(f"<b>Judge:</b> {HIDDEN} until you give your verdict (blind mode)")
            self.judge_rationale.setText("")
        else:
            self.judge_verdict.setText(f"<b>Judge</b> ({html.escape(judge.rater)}): <b>{shown(judge)}</b>")
            self.judge_rationale.setText(judge.note or "")
            self.judge_cost.setText(judged_by_text(self._provenance, decision.submission, decision.scope,
                                                   criterion.id, judge.rater))
            conversation = trace_of(self._provenance, decision.submission, decision.scope, criterion.id, judge.rater)
            for ref in judge.evidence:
                QListWidgetItem(ref, self.judge_refs)
        if conversation is not None:
            self.judge_trace.setPlainText("\n".join(conversation))
        self.judge_trace.setVisible(conversation is not None)
        self.judge_refs.setVisible(self.judge_refs.count() > 0)
        mine = decision.ratings.get(self.session.rater) if self.session.rater else None
        others = [f"{html.escape(name)}: {shown(v)}" for name, v in decision.experts().items()
                  if name != self.session.rater]
        lines = [f"<b>You</b> ({html.escape(self.session.rater) or 'no name yet'}): "
                 + (f"<b>{shown(mine)}</b>" if mine is not None else "not given")]
        note = self._pending_note if mine is None else mine.note
        if note:
            lines.append(f"<i>Note:</i> {html.escape(note)}")
        if others and not self.session.judge_hidden(decision):
            lines.append("<b>Other experts:</b> " + ", ".join(others))
        if decision.adjudicated is not None and not self.session.judge_hidden(decision):
            lines.append(f"<b>Adjudicated:</b> {settled_text(decision.adjudicated)}")
        self.your_verdict.setText("<br>".join(lines))

    def _ref_chosen(self, item: QListWidgetItem) -> None:
        if not self.evidence.show_ref(item.text()):
            self.status.setText(f"{item.text()}: the submission has no such file")

    # -- the left side -----------------------------------------------------------------------
    def _load_evidence(self, decision: Decision) -> None:
        key = (decision.submission, decision.scope)
        title = f"Evidence: {decision.submission} · {decision.scope}"
        found = self._submissions.get(key)
        if found is not None:
            self._show_submission(decision, found)
            return
        self.evidence.show_submission(title, None, "Opening the submission's files…")
        queue = self.session.queue

        def work() -> Submission | str:
            try:
                return queue.submission(decision)
            except JudgingError as exc:
                return str(exc)

        def done(result: Submission | str) -> None:
            self._submissions[key] = result
            if self.current is decision:
                self._show_submission(decision, result)

        self.runner.run(f"Opening the files of {decision.submission} {decision.scope}", work, done)

    def _show_submission(self, decision: Decision, found: Submission | str) -> None:
        title = f"Evidence: {decision.submission} · {decision.scope}"
        if isinstance(found, str):
            self.evidence.show_submission(title, None, found)
            return
        self.evidence.show_submission(title, found.folder)
        judge = decision.judge_verdict()
        cited = [] if judge is None or self.session.judge_hidden(decision) else judge.evidence
        if not any(self.evidence.show_ref(ref) for ref in cited[:1]) and self.evidence.files.count():
            self.evidence.files.setCurrentRow(0)
