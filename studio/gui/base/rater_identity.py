"""Who is reviewing at this screen: their rater name, their role (rater or adjudicator) and blind
mode, shared by every judging view and the rubric editor's calibration so that all of them hide
the same verdicts (the rule is studio.judging.visibility). Kept in the user's preferences
(studio.preferences), so the next session starts as this one ended."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from studio.gui.base.preferences import PreferencesStore
from studio.judging.visibility import ROLES, Role, Viewer


class RaterIdentity(QObject):
    """The reviewer's name, role and blind mode; `changed` after any of them changes."""

    changed = Signal()
    """The name, the role or blind mode changed: what a view may show has changed."""

    def __init__(self, parent: QObject | None = None, preferences: PreferencesStore | None = None) -> None:
        super().__init__(parent)
        self.preferences = preferences if preferences is not None else PreferencesStore(self)
        self._read()
        self.preferences.changed.connect(self._preferences_changed)

    def _read(self) -> None:
        current = self.preferences.current
        self.name = current.rater.strip()
        self.role: Role = "adjudicator" if current.role.value == "adjudicator" else "rater"
        self.blind = current.blind

    def _preferences_changed(self, _preferences: object) -> None:
        before = (self.name, self.role, self.blind)
        self._read()
        if (self.name, self.role, self.blind) != before:
            self.changed.emit()

    def viewer(self) -> Viewer:
        return Viewer(self.name, self.role, self.blind)

    def known_raters(self) -> list[str]:
        """The names typed here before (the store's own experts are the review session's to add)."""
        return list(self.preferences.current.raters)

    def remember(self) -> None:
        """Add the reviewer's name to the names offered next time."""
        if self.name and self.name not in self.preferences.current.raters:
            self.preferences.update(raters=[*self.preferences.current.raters, self.name])

    def set_name(self, name: str) -> None:
        name = name.strip()
        if name != self.name:
            self.preferences.update(rater=name)

    def set_role(self, role: str) -> None:
        if role not in ROLES:
            raise ValueError(f"role {role!r}: a reviewer is a rater or an adjudicator")
        if role != self.role:
            self.preferences.update(role=role)

    def set_blind(self, on: bool) -> None:
        if on != self.blind:
            self.preferences.update(blind=on)
