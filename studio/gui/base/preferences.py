"""The window's copy of the user's preferences (studio.preferences): read once on first use, written
at each change, `changed` sent so that every view showing a preference (the reviewer's name and
role, blind review) follows. A file that cannot be read gives the defaults and one message."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from studio.preferences import Preferences


class PreferencesStore(QObject):
    changed = Signal(object)
    """The preferences (a Preferences) after a change made in the window."""
    unreadable = Signal(object)
    """A PreferencesError: the file could not be read (or written); the defaults are in use."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._preferences: Preferences | None = None

    @property
    def current(self) -> Preferences:
        if self._preferences is None:
            from studio.preferences import Preferences, PreferencesError, load_preferences

            try:
                self._preferences = load_preferences()
            except PreferencesError as error:
                self._preferences = Preferences()
                self.unreadable.emit(error)
        return self._preferences

    def update(self, **changes: Any) -> Preferences:
        """Change some preferences (checked as the file is), save them, and send `changed`."""
        from studio.preferences import Preferences, save_preferences
        from studio.store.atomic import AtomicWriteError

        updated = Preferences.model_validate({**self.current.model_dump(), **changes})
        if updated == self.current:
            return updated
        self._preferences = updated
        try:
            save_preferences(updated)
        except (AtomicWriteError, OSError) as error:
            from studio.preferences import PreferencesError, preferences_path

            self.unreadable.emit(PreferencesError(f"{preferences_path()}: cannot save the preferences ({error}); "
                                                  "they hold until the app closes"))
        self.changed.emit(updated)
        return updated

    def remember_project(self, folder: str) -> None:
        self.update(recent_projects=self.current.with_recent(folder).recent_projects)
