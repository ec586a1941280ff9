"""The status bar's live parts: git state, the running background task, findings counts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QWidget

from studio.validation.findings import Severity

if TYPE_CHECKING:
    from studio.store.git_state import GitState


class StatusParts:
    """The permanent widgets of the window's status bar."""

    def __init__(self, bar: QStatusBar, parent: QWidget) -> None:
        self.busy_label = QLabel(parent)
        self.busy_label.setObjectName("busyLabel")
        self.busy_bar = QProgressBar(parent)
        self.busy_bar.setObjectName("busyIndicator")
        self.busy_bar.setRange(0, 0)  # no measure of progress: a moving bar says "working"
        self.busy_bar.setMaximumWidth(90)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        self.findings_label = QLabel(parent)
        self.findings_label.setObjectName("findingsCount")
        self.branch_label = QLabel(parent)
        self.branch_label.setObjectName("branchLabel")
        self.git_label = QLabel(parent)
        self.git_label.setObjectName("gitState")
        for widget in (self.busy_label, self.busy_bar, self.findings_label, self.branch_label, self.git_label):
            bar.addPermanentWidget(widget)

    def show_busy(self, busy: bool, label: str) -> None:
        self.busy_bar.setVisible(busy)
        self.busy_label.setText(f"{label}…" if busy and label else "")

    def show_git(self, state: GitState | None) -> None:
        if state is None:
            self.git_label.setText("")
            self.git_label.setToolTip("")
            self.branch_label.setText("")
            return
        self.git_label.setText(state.text())
        self.git_label.setToolTip("\n\n".join(state.warnings))
        self.branch_label.setText(f"⎇ {state.branch}" if state.branch else "")

    def show_counts(self, counts: dict[Severity, int] | None) -> None:
        if counts is None:
            self.findings_label.setText("")
            return
        errors, warnings, infos = (counts.get(s, 0) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
        self.findings_label.setText(f"{errors} error(s), {warnings} warning(s), {infos} note(s)"
                                    if errors or warnings or infos else "no findings")
