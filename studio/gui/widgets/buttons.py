"""The OK / Cancel row of the app's dialogs: OK renamed for what it does and the default button, Cancel never
the default (Enter never cancels, whichever button had the focus)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox


def ok_cancel(dialog: QDialog, ok_text: str, ok_name: str | None = None) -> QDialogButtonBox:
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, dialog)
    ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
    cancel = buttons.button(QDialogButtonBox.StandardButton.Cancel)
    if ok is not None and cancel is not None:
        ok.setText(ok_text)
        if ok_name:
            ok.setObjectName(ok_name)
        ok.setDefault(True)
        cancel.setAutoDefault(False)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons
