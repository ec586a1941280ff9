"""Starting the desktop app: QApplication, the project to open, the main window."""

from __future__ import annotations

import sys
from pathlib import Path

from studio.store.workspace import WorkspaceError, ensure_workspace_sample


def resolve_project(path: str | None) -> Path:
    """The folder to open: the one given, else the user's workspace copy of the sample."""
    return Path(path) if path else ensure_workspace_sample()


def run_app(path: str | None = None) -> int:
    from PySide6.QtWidgets import QApplication, QMessageBox

    from studio.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("DeliverBench Studio")
    app.setOrganizationName("DeliverBench")
    try:
        folder = resolve_project(path)
    except WorkspaceError as exc:
        QMessageBox.critical(None, "DeliverBench Studio", str(exc))
        return 2
    window = MainWindow()
    window.open_project(folder)
    window.show()
    return app.exec()
