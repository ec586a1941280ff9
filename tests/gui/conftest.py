"""GUI tests: offscreen Qt, and QSettings kept out of the user's real configuration."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def isolated_qsettings(tmp_path, qapp, monkeypatch):
    from PySide6.QtCore import QSettings

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    qapp.setOrganizationName("DeliverBenchTests")
    monkeypatch.setenv("DBSTUDIO_WORKSPACE", str(tmp_path / "workspace"))
    monkeypatch.setenv("DBSTUDIO_LOG_DIR", str(tmp_path / "crash-logs"))  # run_app opens a native crash log
    yield
