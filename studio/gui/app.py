"""Starting the desktop app: QApplication, the project to open, the main window."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studio.errors import StudioError
    from studio.gui.main_window import MainWindow


def resolve_project(path: str | None) -> Path:
    """The folder to open: the one given, else the user's workspace copy of the sample."""
    if path:
        return Path(path)
    from studio.store.workspace import ensure_workspace_sample  # git and YAML: after the window is drawn

    return ensure_workspace_sample()


def no_display_reason() -> str | None:
    """Why a window cannot open here (Linux without a display), or None."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return ("no display to open a window on: run it in a desktop session, under Xvfb "
            "(xvfb-run dbstudio), or use the command line (dbstudio --help)")


def run_app(path: str | None = None) -> int:
    reason = no_display_reason()
    if reason is not None:
        print(f"dbstudio: {reason}", file=sys.stderr)
        return 2
    from studio.crashlog import enable_native_crash_log

    # First: a segmentation fault in Qt gets no crash dialog, but it leaves its stacks in a log.
    enable_native_crash_log(shlex.join(["dbstudio", "gui", *([str(path)] if path else [])]))
    from PySide6.QtWidgets import QApplication, QMessageBox

    from studio.gui.base.feature_hook import drop_feature_import_hook

    drop_feature_import_hook()  # before the window's modules and the project core are imported
    # The app uses no pydantic plugin; looking for one reads the entry points of every installed
    # distribution as the first model is built (tens of ms of the opening). Set it to "" to load them.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from studio.gui.main_window import MainWindow
    from studio.gui.widgets.icons import app_icon

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setApplicationName("DeliverBench Studio")
    app.setOrganizationName("DeliverBench")
    app.setDesktopFileName("dbstudio")  # matches resources/dbstudio.desktop on Wayland/X11 docks
    app.setWindowIcon(app_icon())
    window = MainWindow()
    install_crash_hook(window)
    # The window first, drawn before the project core is imported: the sample is copied to the
    # workspace (first start) and the project opened in the background (docs/gui.md, start-up).
    window.show()
    if path:
        window.open_project(Path(path))
    else:
        def refused(error: StudioError) -> None:  # the workspace cannot hold the sample (a WorkspaceError)
            QMessageBox.critical(window, "DeliverBench Studio", str(error))
            app.exit(2)
        window.runner.run("Preparing the sample project", lambda: resolve_project(None), window.open_project,
                          refused)
    return app.exec()


def install_crash_hook(window: MainWindow) -> None:
    """A bug in a slot on the UI thread gets the crash dialog and log too, not a silent traceback."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if not isinstance(error, Exception):  # KeyboardInterrupt and friends keep their meaning
            previous(kind, error, trace)
            return
        window.show_crash("An action", error)
    sys.excepthook = hook
