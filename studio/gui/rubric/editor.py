"""The rubric editor: one table over every criterion of the project (checkpoint rubrics along the
timeline, then the final rubric), filters above it, totals beside it, and the actions that add,
duplicate, delete, reorder and bulk-edit criteria. Every change goes through `context.push`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from studio.editing.commands import Command, Compound
from studio.editing.rubric import (
    add_criterion,
    edit_criterion,
    move_criterion_within,
    next_criterion_id,
    remove_criteria,
)
from studio.errors import StudioError
from studio.gui.base.layout_state import remember_splitter
from studio.gui.base.project_context import ProjectContext
from studio.gui.base.tasks import TaskRunner
from studio.gui.rubric.comments_panel import CommentsPanel
from studio.gui.rubric.delegates import RubricDelegate
from studio.gui.rubric.filter_model import RubricFilterModel
from studio.gui.rubric.model import COLUMN, RubricModel
from studio.gui.rubric.totals import RubricTotalsModel
from studio.model.criterion_choices import cover_choices, value_choices
from studio.model.vocabulary import FINAL_SCOPE, Dimension, Target

if TYPE_CHECKING:
    from studio.gui.rubric.edit_impact_view import EditImpactView

# Column widths that fit the sample's values; the requirement text takes what is left.
WIDTHS = {"rubric": 56, "id": 76, "text": 420, "weight": 60, "gate": 44, "target": 86, "dimension": 116,
          "covers": 200, "requires": 110, "propagates": 96, "tests": 80, "status": 80, "reviewer": 130,
          "judge": 150}
TOTALS_WIDTH = 380  # the totals panel: its labels and numbers fit; the criteria table gets the rest
KEEP = "(keep)"
# The item data of a filter's "any" entry: text like every other entry's, so reading the filters
# compares strings only.
ANY = ""


class RubricEditor(QWidget):
    """The table, its filters, totals and actions, over one open project."""

    disagreementsRequested = Signal(str, str)  # noqa: N815 (Qt naming)
    """(scope, criterion id): the expert asked for the decisions where judge and experts differ
    on this criterion (a click on its judge-agreement cell)."""

    def __init__(self, context: ProjectContext, parent: QWidget | None = None, runner: TaskRunner | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rubricEditor")
        self.context = context
        self.model = RubricModel(context, self)
        self.proxy = RubricFilterModel(self.model, self)
        self.totals_model = RubricTotalsModel(context, self)

        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("rubricFilter")
        self.filter_edit.setPlaceholderText("Filter by id, text or reviewer")
        self.filter_edit.setClearButtonEnabled(True)
        self.scope_filter = self._combo("rubricScopeFilter", "All rubrics", [])
        self.target_filter = self._combo("rubricTargetFilter", "Any target", [t.value for t in Target])
        self.dimension_filter = self._combo("rubricDimensionFilter", "Any dimension", [d.value for d in Dimension])
        self.status_filter = self._combo("rubricStatusFilter", "Any status", value_choices("status", ""))
        self._fill_scopes()

        self.table = QTableView(self)
        self.table.setObjectName("rubricTable")
        self.table.setModel(self.proxy)
        self.delegate = RubricDelegate(self.model, self.table)
        self.table.setItemDelegate(self.delegate)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.table.setWordWrap(False)
        # Latin text needs no shaping: without it a repaint of the table (every filter key that
        # changes the rows) takes a quarter less; scripts that need shaping still get it.
        font = self.table.font()
        font.setStyleStrategy(QFont.StyleStrategy.PreferNoShaping)
        self.table.setFont(font)
        self.table.setAlternatingRowColors(True)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        vertical = self.table.verticalHeader()
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no per-row measuring at 5,000 rows
        vertical.setDefaultSectionSize(self.fontMetrics().height() + 10)
        vertical.setVisible(False)
        header = self.table.horizontalHeader()
        for name, width in WIDTHS.items():
            self.table.setColumnWidth(COLUMN[name], width)
        header.setStretchLastSection(True)
        header.setMinimumSectionSize(40)

        self.totals = QTableView(self)
        self.totals.setObjectName("rubricTotals")
        self.totals.setModel(self.totals_model)
        self.totals.verticalHeader().setVisible(False)
        self.totals.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.totals.setWordWrap(False)
        totals_header = self.totals.horizontalHeader()
        totals_header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        totals_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.totals.setMinimumWidth(TOTALS_WIDTH)

        self.message = QLabel(self)
        self.message.setObjectName("rubricMessage")
        self.message.setWordWrap(True)

        self.toolbar = QToolBar(self)
        self.toolbar.setObjectName("rubricToolbar")
        self.action_add = self._action("actionAddCriterion", "Add criterion", "Ins", self.add_criterion)
        self.action_duplicate = self._action("actionDuplicateCriterion", "Duplicate", "Ctrl+D",
                                             self.duplicate_criterion)
        self.action_delete = self._action("actionDeleteCriterion", "Delete", QKeySequence.StandardKey.Delete,
                                          self.delete_criteria)
        self.action_up = self._action("actionMoveCriterionUp", "Move up", "Alt+Up", lambda: self.move_criterion(-1))
        self.action_down = self._action("actionMoveCriterionDown", "Move down", "Alt+Down",
                                        lambda: self.move_criterion(1))
        self.action_bulk = self._action("actionBulkEdit", "Bulk edit…", "Ctrl+B", self.open_bulk_edit)
        self.action_reuse = self._action("actionReuseInFinal", "Judge again on the final package", "Ctrl+Shift+F",
                                         self.reuse_current)
        self.action_reuse.setToolTip("Add the current checkpoint criterion to the final rubric (reuse_of), covering "
                                     "the deliverables its files become")
        self.action_pick_reuse = self._action("actionAddReusedCriterion", "Add reused criterion…", "",
                                              self.pick_reuse)
        # the table's context menu: the editor's actions on the criterion under the mouse
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for action in (self.action_add, self.action_duplicate, self.action_reuse, self.action_delete,
                       self.action_bulk):
            self.table.addAction(action)

        filters = QHBoxLayout()
        filters.addWidget(self.filter_edit, 3)
        for combo in (self.scope_filter, self.target_filter, self.dimension_filter, self.status_filter):
            filters.addWidget(combo, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("rubricSplitter")
        self.splitter.addWidget(self.table)
        # Beside the table: the totals, and under them the comment threads on the current criterion and,
        # with a background helper, the impact of the unsaved edits on the judged scores.
        self.comments = CommentsPanel(context, self)
        self.side_tabs = QTabWidget(self)
        self.side_tabs.setObjectName("rubricSideTabs")
        self.side_tabs.addTab(self.comments, "Comments")
        self.edit_impact: EditImpactView | None = None
        if runner is not None:
            from studio.gui.rubric.edit_impact_view import EditImpactView

            self.edit_impact = EditImpactView(context, runner, self)
            self.side_tabs.addTab(self.edit_impact, "Edit impact")
        self.side = QSplitter(Qt.Orientation.Vertical, self)
        self.side.setObjectName("rubricSideSplitter")
        self.side.addWidget(self.totals)
        self.side.addWidget(self.side_tabs)
        self.side.setChildrenCollapsible(False)
        remember_splitter(self.side, "rubric/totals-comments")
        self.splitter.addWidget(self.side)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 0)
        self.splitter.setChildrenCollapsible(False)
        # Sizes are shares until the splitter is laid out: the table gets all but the totals' minimum.
        self.splitter.setSizes([100 * TOTALS_WIDTH, TOTALS_WIDTH])
        remember_splitter(self.splitter, "rubric/table-totals")
        layout = QVBoxLayout(self)
        layout.addWidget(self.toolbar)
        layout.addLayout(filters)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.message)

        self.filter_edit.textChanged.connect(lambda text: self.proxy.set_filter(text=text))
        self.scope_filter.currentIndexChanged.connect(lambda _: self.proxy.set_filter(scope=self.scope_filter.currentData()))
        self.target_filter.currentIndexChanged.connect(
            lambda _: self.proxy.set_filter(target=self.target_filter.currentData()))
        self.dimension_filter.currentIndexChanged.connect(
            lambda _: self.proxy.set_filter(dimension=self.dimension_filter.currentData()))
        self.status_filter.currentIndexChanged.connect(
            lambda _: self.proxy.set_filter(status=self.status_filter.currentData()))
        self.model.refused.connect(self.show_message)
        self.table.selectionModel().selectionChanged.connect(self._update_actions)
        self.table.selectionModel().currentChanged.connect(self._update_actions)
        self.table.selectionModel().currentChanged.connect(self._show_comments)
        context.changed.connect(self._after_edit)
        context.reloaded.connect(self._fill_scopes)
        self._update_actions()
        # Judge calibration per criterion, computed in the background (none without a runner).
        self.table.clicked.connect(self._calibration_clicked)
        self.table.activated.connect(self._calibration_clicked)
        self.calibration = None
        if runner is not None:
            from studio.gui.rubric.calibration import CalibrationFeed

            self.calibration = CalibrationFeed(context, runner, self)
            self.calibration.updated.connect(self.model.set_calibration)
            self.calibration.refresh()

    def _calibration_clicked(self, index: QModelIndex) -> None:
        source = self.proxy.mapToSource(index)
        if not source.isValid() or source.column() != COLUMN["judge"]:
            return
        cell = self.model.calibration_of(source.row())
        if cell is not None and cell.disagreements:
            shown = self.model.shown(source.row())
            self.disagreementsRequested.emit(shown.scope, shown.key)

    # -- building -----------------------------------------------------------------------------
    def _combo(self, name: str, anything: str, values: list[str]) -> QComboBox:
        combo = QComboBox(self)
        combo.setObjectName(name)
        combo.addItem(anything, ANY)
        for value in values:
            combo.addItem(value, value)
        return combo

    def _fill_scopes(self) -> None:
        current = self.scope_filter.currentData()
        scopes = self.model.scopes()
        if [self.scope_filter.itemData(n) for n in range(1, self.scope_filter.count())] == scopes:
            return
        self.scope_filter.blockSignals(True)
        self.scope_filter.clear()
        self.scope_filter.addItem("All rubrics", ANY)
        for scope in scopes:
            self.scope_filter.addItem("Final rubric" if scope == FINAL_SCOPE else scope, scope)
        self.scope_filter.setCurrentIndex(max(0, self.scope_filter.findData(current)))
        self.scope_filter.blockSignals(False)

    def _action(self, name: str, text: str, shortcut: Any, slot: Any) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(slot)
        self.addAction(action)
        self.toolbar.addAction(action)
        return action

    # -- entry points the window calls ---------------------------------------------------------
    def show_scope(self, scope: str | None) -> None:
        """Filter to one rubric: a subtask id, 'final', or None for all."""
        self.scope_filter.setCurrentIndex(max(0, self.scope_filter.findData(scope or ANY)))

    def show_edit_impact(self) -> None:
        """Bring the Edit impact panel to the front (none without a background helper)."""
        if self.edit_impact is not None:
            self.side_tabs.setCurrentWidget(self.edit_impact)

    def select_criterion(self, criterion_id: str) -> None:
        """Select and scroll to a criterion (a findings click, the explorer); filters that hide it
        are cleared."""
        row = self.model.find(criterion_id)
        if row is None:
            self.show_message(f"no criterion {criterion_id} in the rubrics")
            return
        self._select_source_row(row, COLUMN["id"])

    def _select_source_row(self, row: int, column: int) -> None:
        index = self.proxy.mapFromSource(self.model.index(row, column))
        if not index.isValid():
            self.filter_edit.clear()
            for combo in (self.scope_filter, self.target_filter, self.dimension_filter, self.status_filter):
                combo.setCurrentIndex(0)
            index = self.proxy.mapFromSource(self.model.index(row, column))
        self.table.setCurrentIndex(index)
        self.table.selectionModel().select(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        # Centre the row from its first column, then bring the cell in: the row keeps its rubric and id in view.
        self.table.scrollTo(index.siblingAtColumn(0), QAbstractItemView.ScrollHint.PositionAtCenter)
        self.table.scrollTo(index)

    # -- what is selected ----------------------------------------------------------------------
    def current_row(self) -> int | None:
        index = self.table.currentIndex()
        return self.proxy.mapToSource(index).row() if index.isValid() else None

    def selected_rows(self) -> list[int]:
        """Source rows with a selected cell (or the current row), in table order."""
        rows = {self.proxy.mapToSource(index).row() for index in self.table.selectionModel().selectedIndexes()}
        current = self.current_row()
        if not rows and current is not None:
            rows.add(current)
        return sorted(rows)

    def _show_comments(self, *_: object) -> None:
        row = self.current_row()
        if row is None:
            self.comments.show_target(None)
            return
        scope, place = self.model.locate(row)
        self.comments.show_target(self.model.keys(scope)[place])

    def _update_actions(self, *_: object) -> None:
        row = self.current_row()
        picked = row is not None or self.table.selectionModel().hasSelection()
        self.action_duplicate.setEnabled(row is not None and not self.model.shown(row).reused)
        self.action_reuse.setEnabled(row is not None and self.model.locate(row)[0] != FINAL_SCOPE)
        self.action_delete.setEnabled(picked)
        self.action_bulk.setEnabled(picked)
        if row is None:
            self.action_up.setEnabled(False)
            self.action_down.setEnabled(False)
            return
        scope, place = self.model.locate(row)
        self.action_up.setEnabled(place > 0)
        self.action_down.setEnabled(place < len(self.model.keys(scope)) - 1)

    # -- actions ------------------------------------------------------------------------------
    def _push(self, command: Command) -> bool:
        try:
            self.context.push(command)
        except StudioError as error:
            self.show_message(str(error))
            return False
        self.message.clear()
        return True

    def show_message(self, text: str) -> None:
        self.message.setText(text)

    def _target_scope(self) -> tuple[str, int | None]:
        """Where a new criterion goes: after the current row, else the rubric the scope filter
        shows, else the first rubric."""
        row = self.current_row()
        if row is not None:
            scope, place = self.model.locate(row)
            return scope, place + 1
        scope = self.scope_filter.currentData() or (self.model.scopes() or [FINAL_SCOPE])[0]
        return scope, None

    def _taken_ids(self) -> set[str]:
        return {key for scope in self.model.scopes() for key in self.model.keys(scope)}

    def add_criterion(self) -> None:
        """A new draft criterion with the next free id, and its text open for typing."""
        scope, place = self._target_scope()
        target = Target.CHECKPOINT.value if scope != FINAL_SCOPE else Target.ARTIFACT.value
        new_id = next_criterion_id(scope, self._taken_ids(), target)
        covers = cover_choices(self.model.project, scope)[:1]
        criterion = {"id": new_id, "text": "New requirement: say what must hold.", "covers": covers,
                     "target": target, "dimension": Dimension.CORRECTNESS.value, "weight": 1,
                     "review": {"status": "draft"}}
        if self._insert(scope, criterion, place):
            self._edit_new(scope, new_id)

    def duplicate_criterion(self) -> None:
        row = self.current_row()
        if row is None:
            return
        shown = self.model.shown(row)
        if shown.reused:
            return
        scope, place = self.model.locate(row)
        copy = shown.own.model_dump(mode="json", exclude_defaults=True)
        copy["id"] = next_criterion_id(scope, self._taken_ids(), copy.get("target"))
        copy["review"] = {"status": "draft"}  # a copy is a new criterion: it needs its own review
        ordered: dict[str, Any] = {key: copy[key] for key in ("id", "text", "covers", "target", "dimension", "weight", "gate",
                                              "requires", "propagates", "tests", "review") if key in copy}
        if self._insert(scope, ordered, place + 1):
            self._edit_new(scope, copy["id"])

    def reuse_current(self) -> None:
        """The current checkpoint criterion judged again on the final package (a `reuse_of` entry)."""
        row = self.current_row()
        if row is None:
            return
        scope, place = self.model.locate(row)
        if scope != FINAL_SCOPE:
            self.reuse(self.model.keys(scope)[place])

    def reuse(self, criterion_id: str) -> bool:
        from studio.editing.rubric import reuse_in_final

        try:
            command = reuse_in_final(self.context.session.documents, criterion_id)
        except StudioError as error:
            self.show_message(str(error))
            return False
        if not self._push(command):
            return False
        self.scope_filter.setCurrentIndex(max(0, self.scope_filter.findData(ANY)))
        self._select_row(FINAL_SCOPE, criterion_id)  # the new final row, in view
        return True

    def _select_row(self, scope: str, key: str) -> None:
        row = self.model.row_of(scope, key)
        if row is not None:
            index = self.proxy.mapFromSource(self.model.index(row, 0))
            self.table.setCurrentIndex(index)
            self.table.scrollTo(index)

    def pick_reuse(self) -> QInputDialog:
        """A picker of the checkpoint criteria the final rubric does not judge again yet."""
        project = self.context.session.loaded.project
        reused = {c.reuse_of for c in (project.final_rubric.criteria if project.final_rubric else []) if c.reuse_of}
        choices = [f"{c.key}: {' '.join((c.text or '').split())[:90]}" for scope, c in project.all_criteria()
                   if scope != FINAL_SCOPE and c.key not in reused and c.reuse_of is None]
        dialog = QInputDialog(self)
        dialog.setObjectName("reusePickerDialog")
        dialog.setWindowTitle("Add a reused criterion")
        dialog.setLabelText("Judge this checkpoint criterion again on the final package:")
        dialog.setComboBoxItems(choices)
        dialog.setComboBoxEditable(False)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.textValueSelected.connect(lambda text: self.reuse(text.split(":", 1)[0]))
        dialog.open()
        return dialog

    def _insert(self, scope: str, criterion: dict[str, Any], place: int | None) -> bool:
        try:
            command = add_criterion(self.context.session.documents, scope, criterion, place)
        except StudioError as error:
            self.show_message(str(error))
            return False
        return self._push(command)

    def _edit_new(self, scope: str, key: str) -> None:
        row = self.model.row_of(scope, key)
        if row is not None:
            self._select_source_row(row, COLUMN["text"])
            self.table.edit(self.table.currentIndex())

    def delete_criteria(self) -> None:
        rows = self.selected_rows()
        if not rows:
            return
        picked = [(*self.model.locate(row), self.model.shown(row).key) for row in rows]
        try:
            command = remove_criteria(self.context.session.documents, [(s, k, p) for s, p, k in picked])
        except StudioError as error:
            self.show_message(str(error))
            return
        self._push(command)

    def move_criterion(self, step: int) -> None:
        row = self.current_row()
        if row is None:
            return
        scope, place = self.model.locate(row)
        target = place + step
        if not 0 <= target < len(self.model.keys(scope)):
            return
        key = self.model.shown(row).key
        column = self.table.currentIndex().column()
        try:
            command = move_criterion_within(self.context.session.documents, scope, key, target, place)
        except StudioError as error:
            self.show_message(str(error))
            return
        if self._push(command):
            self._select_source_row(self.model.row_of_place(scope, target), column)

    def open_bulk_edit(self) -> None:
        rows = self.selected_rows()
        if not rows:
            return
        dialog = BulkEditDialog(self, len(rows))
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.bulk_edit(rows, dialog.values())

    def bulk_edit(self, rows: list[int], values: dict[str, Any]) -> None:
        """Set status, reviewer or dimension on many criteria as one undoable step. Reused criteria
        keep their original's values and are left out (said in the message)."""
        if not values:
            return
        documents = self.context.session.documents
        edits: list[Command] = []
        skipped = 0
        for row in rows:
            shown = self.model.shown(row)
            if shown.reused:
                skipped += 1
                continue
            scope, place = self.model.locate(row)
            try:
                edit = edit_criterion(documents, scope, shown.key, values, hint=place)
            except StudioError as error:
                self.show_message(str(error))
                return
            edits.extend(edit.commands)
        if edits:
            names = ", ".join(name.removeprefix("review.") for name in values)
            self._push(Compound(f"Set {names} of {len(rows) - skipped} criteria", edits))
        if skipped:
            self.show_message(f"{skipped} reused criteria left as they are: edit them in their checkpoint rubric")

    def _after_edit(self, _changes: object) -> None:
        self.message.clear()  # an earlier refusal no longer applies
        self._fill_scopes()
        self._update_actions()


class BulkEditDialog(QDialog):
    """Status, reviewer and dimension for the selected criteria; '(keep)' leaves a field as it is."""

    def __init__(self, parent: QWidget, count: int) -> None:
        super().__init__(parent)
        self.setObjectName("rubricBulkEdit")
        self.setWindowTitle(f"Edit {count} criteria")
        self.status = QComboBox(self)
        self.status.setObjectName("bulkStatus")
        self.status.addItems([KEEP, *value_choices("status", "")])
        self.reviewer = QLineEdit(self)
        self.reviewer.setObjectName("bulkReviewer")
        self.reviewer.setPlaceholderText(KEEP)
        self.dimension = QComboBox(self)
        self.dimension.setObjectName("bulkDimension")
        self.dimension.addItems([KEEP, *(d.value for d in Dimension)])
        form = QFormLayout(self)
        form.addRow("Review status", self.status)
        form.addRow("Reviewer", self.reviewer)
        form.addRow("Dimension", self.dimension)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if self.status.currentText() != KEEP:
            values["review.status"] = self.status.currentText()
        if self.reviewer.text().strip():
            values["review.reviewer"] = self.reviewer.text().strip()
        if self.dimension.currentText() != KEEP:
            values["dimension"] = self.dimension.currentText()
        return values
