"""The adjudication queue: the decisions where raters differ (experts among themselves, or judge
and expert), every rater's verdict and note side by side, and the settled verdict recorded under
the rater `adjudicated`, with the adjudicator's name, by P, F or N (J/K next/previous, S skip,
E note). Settling takes the Adjudicator role; a rater reviewing blind sees here only the
decisions they have rated themselves (studio.judging.visibility)."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.gui.base.layout_state import remember_splitter
from studio.gui.judging.review_keys import DecisionPane, KeyRouter
from studio.gui.judging.review_models import (
    COLOURS,
    AdjudicationModel,
    ReviewSession,
    shown,
)
from studio.gui.judging.reviewer_widgets import RolePicker
from studio.judging.queue import Decision, recorded_or_refused
from studio.judging.verdicts import ADJUDICATED, Verdict, is_judge

KEY_HINT = "P pass · F fail · N not applicable · S skip · J/K next/previous · E note — the settled verdict"


class AdjudicationView(DecisionPane):
    """objectName `adjudicationView`: `adjudicationQueue` over `adjudicationRaters` (one row per rater)."""

    PENDING_TEXT = "The note will be stored with the verdict you settle (P, F or N)."
    STORED_TEXT = "Stored the note with the settled verdict of {criterion}."

    def __init__(self, session: ReviewSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("adjudicationView")
        self.session = session
        self.current: Decision | None = None
        self._pending_note: str | None = None
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.model = AdjudicationModel(session, self)
        self.heading = QLabel(self)
        self.heading.setObjectName("adjudicationCount")
        self.heading.setWordWrap(True)
        self.role_combo = RolePicker("adjudicationRole", session.identity, self)
        self.who = QLabel(self)
        self.who.setObjectName("adjudicatorName")
        session.rater_changed.connect(self._who_changed)
        session.blind_changed.connect(self._who_changed)
        self.queue = QTableView(self)
        self.queue.setObjectName("adjudicationQueue")
        self.queue.setModel(self.model)
        self.queue.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.queue.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.queue.setAlternatingRowColors(True)
        self.queue.setWordWrap(False)
        self.queue.verticalHeader().setVisible(False)
        self.queue.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.queue.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.queue.horizontalHeader().setStretchLastSection(True)
        self.queue.selectionModel().currentRowChanged.connect(self._row_chosen)
        self.model.modelReset.connect(self._reset)
        self.model.dataChanged.connect(lambda *_: self._show_detail())

        self.criterion = QLabel(self)
        self.criterion.setObjectName("adjudicationCriterion")
        self.criterion.setWordWrap(True)
        self.criterion.setTextFormat(Qt.TextFormat.RichText)
        self.raters = QTableWidget(0, 4, self)
        self.raters.setObjectName("adjudicationRaters")
        self.raters.setHorizontalHeaderLabels(["Rater", "Verdict", "Note or rationale", "Cited"])
        self.raters.verticalHeader().setVisible(False)
        self.raters.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.raters.setWordWrap(True)
        # rows follow their wrapped text as the columns are resized (one pass at build time saw narrow columns)
        self.raters.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.raters.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        self.raters.setColumnWidth(3, 320)
        self.note_editor = QLineEdit(self)
        self.note_editor.setObjectName("adjudicationNote")
        self.note_editor.setPlaceholderText("Why this verdict (Enter saves, Esc cancels)")
        self.note_editor.returnPressed.connect(self.save_note)
        self.note_editor.hide()
        self.status = QLabel(KEY_HINT, self)
        self.status.setObjectName("adjudicationStatus")
        self.status.setWordWrap(True)

        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.criterion)
        lower_layout.addWidget(self.raters, 1)
        lower_layout.addWidget(self.note_editor)
        lower_layout.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.queue)
        split.addWidget(lower)
        split.setSizes([300, 320])
        remember_splitter(split, "adjudication/queue-detail")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.who)
        top.addWidget(self.role_combo)
        layout.addLayout(top)
        layout.addWidget(split, 1)

        self.keys = KeyRouter({Qt.Key.Key_P: lambda: self.settle("pass"), Qt.Key.Key_F: lambda: self.settle("fail"),
                               Qt.Key.Key_N: lambda: self.settle("na"), Qt.Key.Key_S: lambda: self.step_by(1),
                               Qt.Key.Key_J: lambda: self.step_by(1), Qt.Key.Key_K: lambda: self.step_by(-1),
                               Qt.Key.Key_E: self.edit_note}, self)
        self.keys.watch(self, self.queue, self.raters)
        self._who_changed()
        self._reset()

    def _who_changed(self, *_args: Any) -> None:
        name = self.session.rater or "no name yet (type it in the Review tab's Rater box)"
        self.who.setText(f"Settled verdicts are recorded as by {name}" if self.session.viewer().is_adjudicator
                         else f"Reviewing as {name}")

    def _reset(self) -> None:
        header = self.queue.horizontalHeader()
        for column in range(self.model.columnCount()):  # each rater's name readable in its header
            wanted = max(self.queue.sizeHintForColumn(column), header.sectionSizeHint(column)) + 16
            self.queue.setColumnWidth(column, max(70, min(260, wanted)))
        count = self.model.rowCount()
        settled = sum(1 for d in self.model.rows if d.adjudicated is not None)
        text = (f"{count} decision(s) where raters differ · {settled} settled" if count else
                "No decision where raters differ: nothing to adjudicate.")
        if self.model.hidden:
            text += (f" · {self.model.hidden} more hidden until you have given your own verdict on them (blind review;"
                     " the Adjudicator role sees them all)")
        self.heading.setText(text)
        keep = self.current
        self.current = None
        row = self.model.rows.index(keep) if keep in self.model.rows else 0
        self._select(row)

    def _select(self, row: int) -> None:
        if self.model.rowCount() == 0:
            self.current = None
            self._show_detail()
            return
        row = max(0, min(row, self.model.rowCount() - 1))
        index = self.model.index(row, 0)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.queue.selectionModel().setCurrentIndex(index, flags)
        self.queue.scrollTo(index)
        if self.current is not self.model.rows[row]:
            self._row_chosen(index)

    def _row_chosen(self, index: QModelIndex, _previous: Any = None) -> None:
        if not index.isValid() or index.row() >= len(self.model.rows):
            return
        decision = self.model.rows[index.row()]
        if decision is not self.current:
            self.current = decision
            self._pending_note = None
            self.note_editor.hide()
            self._show_detail()

    def step_by(self, step: int) -> None:
        if self.current is None:
            return
        row = self.model.rows.index(self.current) + step
        if 0 <= row < self.model.rowCount():
            self._select(row)
        self.setFocus()

    def settle(self, value: str) -> None:
        decision = self.current
        if decision is None:
            return
        note = self._pending_note
        if note is None and decision.adjudicated is not None:
            note = decision.adjudicated.note
        verdict, problem = recorded_or_refused(lambda: self.session.adjudicate(decision, value, note=note))
        if verdict is None:
            self.status.setText(problem)
            return
        self._pending_note = None
        self.status.setText(f"Settled {decision.criterion.id} as {shown(verdict)} (by {verdict.by}).  {KEY_HINT}")
        self._reset()
        self.step_by(1)

    def own_verdict(self, decision: Decision) -> Verdict | None:
        return decision.adjudicated

    def record_note(self, decision: Decision, value: str, note: str) -> tuple[Verdict | None, str]:
        return recorded_or_refused(lambda: self.session.adjudicate(decision, value, note=note))

    def _show_detail(self) -> None:
        decision = self.current
        self.raters.setRowCount(0)
        if decision is None:
            self.criterion.setText("")
            return
        criterion = decision.criterion
        weight = "gate" if criterion.gate else f"weight {criterion.weight:+d}"
        self.criterion.setText(f"<b>{html.escape(criterion.id)}</b> · {html.escape(decision.submission)} · "
                               f"{html.escape(decision.scope)} · {weight} · counted now: "
                               f"<b>{html.escape(decision.counted())}</b><p>{html.escape(criterion.text)}</p>")
        order = sorted(decision.ratings, key=lambda r: (0 if is_judge(r) else 2 if r == ADJUDICATED else 1, r))
        self.raters.setRowCount(len(order))
        for row, rater in enumerate(order):
            verdict = decision.ratings[rater]
            name = f"{rater} (by {verdict.by})" if verdict.by else rater
            cells = [name, shown(verdict), verdict.note or "", ", ".join(verdict.evidence)]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 1 and verdict.verdict in COLOURS:
                    item.setForeground(COLOURS[verdict.verdict])
                item.setToolTip(text)
                self.raters.setItem(row, column, item)
        if self._pending_note:
            self.status.setText(f"Note to store: {self._pending_note}")
