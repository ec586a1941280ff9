"""The conflict view (`conflictView`): every field a sync could not merge, and for the one chosen its
base, mine and theirs side by side; keep mine, take theirs or the base, or edit the value. Each
choice is `studio.collab.resolve` on the background helper, as `dbstudio resolve` does it; the last
one validates the project and commits the merge."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.gui.base.tasks import TaskRunner

if TYPE_CHECKING:
    from studio.collab.conflicts import Conflict
    from studio.collab.resolve import Resolved

HEADERS = ("File", "Field", "Base", "Mine", "Theirs")
SIDE_TITLES = {"base": "Base (before either change)", "ours": "Mine (this clone)", "theirs": "Theirs (the remote)"}


class ConflictView(QWidget):
    """The open conflicts of the merge in progress in one project."""

    merge_settled = Signal(str)
    """A conflict was settled, the merge committed or abandoned: a line for the status bar."""

    def __init__(self, root: Path, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflictView")
        self.root = Path(root)
        self.runner = runner
        self.conflicts: list[Conflict] = []
        self.summary = QLabel(self)
        self.summary.setObjectName("conflictSummary")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, len(HEADERS), self)
        self.table.setObjectName("conflictTable")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._show_chosen)

        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.sides: dict[str, QPlainTextEdit] = {}
        sides = QWidget(self)
        grid = QGridLayout(sides)
        grid.setContentsMargins(0, 0, 0, 0)
        for column, (side, title) in enumerate(SIDE_TITLES.items()):
            label = QLabel(title, sides)
            pane = QPlainTextEdit(sides)
            pane.setObjectName(f"conflict{side.capitalize()}")
            pane.setReadOnly(True)
            pane.setFont(mono)
            label.setBuddy(pane)
            grid.addWidget(label, 0, column)
            grid.addWidget(pane, 1, column)
            self.sides[side] = pane
        self.value_label = QLabel("&Result (edit it, then Use This Value)", sides)
        self.value = QPlainTextEdit(sides)
        self.value.setObjectName("conflictValue")
        self.value.setFont(mono)
        self.value_label.setBuddy(self.value)
        grid.addWidget(self.value_label, 2, 0, 1, 3)
        grid.addWidget(self.value, 3, 0, 1, 3)

        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for name, text, slot in (("takeOursButton", "Keep &Mine", lambda: self.take("ours")),
                                 ("takeTheirsButton", "Take &Theirs", lambda: self.take("theirs")),
                                 ("takeBaseButton", "Take &Base", lambda: self.take("base")),
                                 ("useValueButton", "&Use This Value", self.use_value)):
            button = QPushButton(text, self)
            button.setObjectName(name)
            button.clicked.connect(slot)
            row.addWidget(button)
            self.buttons[name] = button
        row.addStretch(1)
        self.commit_button = QPushButton("&Commit Merge", self)
        self.commit_button.setObjectName("commitMergeButton")
        self.commit_button.setToolTip("Every conflict is settled: validate the merged project and commit the merge")
        self.commit_button.clicked.connect(self.commit_merge)
        self.commit_button.hide()
        row.addWidget(self.commit_button)
        self.abort_button = QPushButton("&Abandon Merge", self)
        self.abort_button.setObjectName("abortMergeButton")
        self.abort_button.setToolTip("Put the project back as it was before the sync (nothing of the remote is kept)")
        self.abort_button.clicked.connect(self.abort)
        row.addWidget(self.abort_button)

        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.setObjectName("conflictSplitter")
        splitter.addWidget(self.table)
        splitter.addWidget(sides)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)
        layout.addLayout(row)
        self.setFocusProxy(self.table)
        self.refresh()

    # -- reading ----------------------------------------------------------------------------------
    def refresh(self) -> None:
        root = self.root

        def read() -> tuple[list[Conflict], bool]:
            from studio.collab.resolve import conflicts, merging

            return conflicts(root), merging(root)
        self.runner.run("Reading the conflicts", read, self._read, self._failed)

    def _read(self, read: tuple[list[Conflict], bool]) -> None:
        found, merging = read
        self.show_conflicts(found, settled_merge=merging and not found)

    def show_conflicts(self, found: list[Conflict], settled_merge: bool = False) -> None:
        chosen = self.chosen()
        self.conflicts = list(found)
        self.table.setRowCount(len(found))
        for row, conflict in enumerate(found):
            cells = (conflict.file, conflict.field, *(conflict.short(side) for side in ("base", "ours", "theirs")))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, column, item)
        if found:
            self.summary.setText(f"{len(found)} conflict(s) from the last sync. Settle each one: the merge is "
                                 "committed once the last is settled and the project validates.")
            keys = [(conflict.file, conflict.field) for conflict in found]
            again = keys.index((chosen.file, chosen.field)) if chosen and (chosen.file, chosen.field) in keys else 0
            self.table.selectRow(again)
        elif settled_merge:
            self.summary.setText("Every conflict is settled, but the merge is not committed: the merged project did "
                                 "not validate. Fix the findings (and Save), then Commit Merge.")
        else:
            self.summary.setText("No conflicts: no merge is waiting to be settled.")
        if not found:
            for pane in (*self.sides.values(), self.value):
                pane.setPlainText("")
        for button in self.buttons.values():
            button.setEnabled(bool(found))
        self.abort_button.setEnabled(bool(found) or settled_merge)
        self.commit_button.setVisible(settled_merge)

    def chosen(self) -> Conflict | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        row = rows[0].row() if rows else -1
        return self.conflicts[row] if 0 <= row < len(self.conflicts) else None

    def _show_chosen(self) -> None:
        from studio.collab.merge import MISSING

        conflict = self.chosen()
        if conflict is None:
            return
        for side, pane in self.sides.items():
            pane.setPlainText(conflict.shown(side))
        self.value.setPlainText(conflict.shown("ours") if conflict.ours is not MISSING else "")
        self.buttons["takeBaseButton"].setEnabled(conflict.kind != "file")
        self.buttons["useValueButton"].setEnabled(conflict.kind != "file")
        self.value.setReadOnly(conflict.kind == "file")

    # -- settling -----------------------------------------------------------------------------------
    def take(self, side: str) -> None:
        conflict = self.chosen()
        if conflict is not None:
            self._resolve(conflict, side, None)

    def use_value(self) -> None:
        conflict = self.chosen()
        if conflict is None:
            return
        text = self.value.toPlainText()
        if conflict.kind == "text":
            self._resolve(conflict, None, text)
            return
        import yaml

        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as error:
            QMessageBox.warning(self, "Use This Value", f"The value is not YAML: {error}")
            return
        self._resolve(conflict, None, value)

    def _resolve(self, conflict: Conflict, side: str | None, value: Any) -> None:
        root = self.root

        def work() -> Resolved:
            from studio.collab.merge import MISSING
            from studio.collab.resolve import resolve

            return resolve(root, conflict, take=side, value=MISSING if side else value)

        def done(result: Resolved) -> None:
            if result.problems:
                QMessageBox.warning(self, "Merge not committed",
                                    "Every conflict is settled, but the merged project does not validate:\n\n"
                                    + "\n".join(result.problems) + "\n\nFix these (and Save), then Commit Merge.")
            settled = f"{conflict.file} {conflict.field}: " + (f"took {side}" if side else "set by hand")
            message = (f"Merge committed ({result.commit[:12]}): sync again to share it" if result.commit
                       else f"Settled {settled}; {len(result.remaining)} conflict(s) left")
            self.show_conflicts(result.remaining, settled_merge=bool(result.problems))
            self.merge_settled.emit(message)
        self.runner.run("Settling a conflict", work, done, self._failed)

    def commit_merge(self) -> None:
        root = self.root

        def work() -> Resolved:
            from studio.collab.resolve import finish

            return finish(root)

        def done(result: Resolved) -> None:
            if result.problems:
                QMessageBox.warning(self, "Merge not committed", "The merged project still does not validate:\n\n"
                                    + "\n".join(result.problems))
                return
            self.show_conflicts([])
            self.merge_settled.emit(f"Merge committed ({(result.commit or '')[:12]}): sync again to share it")
        self.runner.run("Committing the merge", work, done, self._failed)

    def abort(self) -> None:
        answer = QMessageBox.question(self, "Abandon Merge",
                                      "Put the project back as it was before the sync? Nothing from the remote is "
                                      "kept; the next sync merges it again.")
        if answer != QMessageBox.StandardButton.Yes:
            return
        root = self.root

        def work() -> None:
            from studio.collab.resolve import abort

            abort(root)

        def done(_: None) -> None:
            self.show_conflicts([])
            self.merge_settled.emit("Merge abandoned: the project is as it was before the sync")
        self.runner.run("Abandoning the merge", work, done, self._failed)

    def _failed(self, error: Any) -> None:
        self.summary.setText(str(error).splitlines()[0] if str(error) else "The conflicts could not be read")
        QMessageBox.warning(self, "Conflicts", str(error))

