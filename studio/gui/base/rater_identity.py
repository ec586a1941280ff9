"""Who is reviewing at this screen: their rater name, their role (rater or adjudicator) and blind
mode, shared by every judging view and the rubric editor's calibration so that all of them hide
the same verdicts (the rule is studio.judging.visibility). Remembered across sessions."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, Signal

from studio.judging.visibility import ROLES, Role, Viewer

RATER_KEY = "review/rater"
ROLE_KEY = "review/role"
BLIND_KEY = "review/blind"


class RaterIdentity(QObject):
    """The reviewer's name, role and blind mode; `changed` after any of them changes."""

    changed = Signal()
    """The name, the role or blind mode changed: what a view may show has changed."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        settings = QSettings()
        self.name = str(settings.value(RATER_KEY, "") or "").strip()
        role = str(settings.value(ROLE_KEY, "rater") or "rater")
        self.role: Role = "adjudicator" if role == "adjudicator" else "rater"
        self.blind = str(settings.value(BLIND_KEY, "true")).lower() in ("true", "1")

    def viewer(self) -> Viewer:
        return Viewer(self.name, self.role, self.blind)

    def set_name(self, name: str) -> None:
        name = name.strip()
        if name != self.name:
            self.name = name
            QSettings().setValue(RATER_KEY, name)
            self.changed.emit()

    def set_role(self, role: str) -> None:
        if role not in ROLES:
            raise ValueError(f"role {role!r}: a reviewer is a rater or an adjudicator")
        if role != self.role:
            self.role = "adjudicator" if role == "adjudicator" else "rater"
            QSettings().setValue(ROLE_KEY, self.role)
            self.changed.emit()

    def set_blind(self, on: bool) -> None:
        if on != self.blind:
            self.blind = on
            QSettings().setValue(BLIND_KEY, "true" if on else "false")
            self.changed.emit()
