"""The main window: the project tree, validation findings and git state. Thin over the core."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QMainWindow, QSplitter, QTableView, QTreeView

from studio.gui.findings_model import FindingsModel
from studio.gui.project_tree_model import ProjectTreeModel
from studio.store.history import HistoryError, ProjectRepository
from studio.store.loader import load_project
from studio.validation.validate import validate_loaded


class MainWindow(QMainWindow):
    project_opened = Signal(str)
    """Emitted with the folder path once a project is loaded and validated."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("DeliverBench Studio")
        self.tree_model = ProjectTreeModel(self)
        self.findings_model = FindingsModel(self)
        self.tree = QTreeView()
        self.tree.setModel(self.tree_model)
        self.tree.setUniformRowHeights(True)
        self.findings = QTableView()
        self.findings.setModel(self.findings_model)
        self.findings.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.findings.verticalHeader().setVisible(False)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("MainWindow.splitter")
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(self.findings)
        self.splitter.setSizes([520, 180])
        self.setCentralWidget(self.splitter)
        self.git_label = QLabel()
        self.statusBar().addPermanentWidget(self.git_label)
        self.resize(1100, 760)
        self._restore_layout()

    def open_project(self, folder: Path) -> None:
        loaded = load_project(Path(folder))
        findings = validate_loaded(loaded)
        self.tree_model.set_project(loaded.project)
        self.tree.expandToDepth(1)
        self.tree.setColumnWidth(0, 300)
        for column in range(1, self.tree_model.columnCount() - 1):
            self.tree.resizeColumnToContents(column)
        self.findings_model.set_findings(findings)
        info = loaded.project.info
        title = info.title if info else Path(folder).name
        self.setWindowTitle(f"{title} — DeliverBench Studio")
        n_criteria = len(loaded.project.all_criteria())
        self.statusBar().showMessage(
            f"{len(loaded.project.subtasks)} subtasks, {n_criteria} criteria; "
            + (f"{len(findings)} problem(s) found" if findings else "validates clean")
        )
        try:
            repository = ProjectRepository(Path(folder))
            changes = repository.status()
            warnings = repository.warnings()  # a detached HEAD, a merge left half-done
            text = f"git: {len(changes)} unsaved change(s)" if changes else "git: saved"
            self.git_label.setText("; ".join([text] + [f"warning: {w.split(': ')[0]}" for w in warnings]))
            self.git_label.setToolTip("\n\n".join(warnings))
        except HistoryError:
            self.git_label.setText("git: not versioned")
        self.project_opened.emit(str(folder))

    def _restore_layout(self) -> None:
        settings = QSettings()
        geometry = settings.value("MainWindow/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = settings.value(f"{self.splitter.objectName()}/state")
        if state is not None:
            self.splitter.restoreState(state)

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        settings = QSettings()
        settings.setValue("MainWindow/geometry", self.saveGeometry())
        settings.setValue(f"{self.splitter.objectName()}/state", self.splitter.saveState())
        super().closeEvent(event)
