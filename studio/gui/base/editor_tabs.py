"""The editor area's tabs by what they show: one tab per (kind, id) key (an object's editor, the
rubric editor, the release timeline, the dependency map), raised when asked for again, forgotten
and deleted when closed. Tabs a feature adds through the shell have no key and are closed alike."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QTabWidget, QWidget

Key = tuple[str, str]


class EditorTabs(QObject):
    """Keyed tabs of one QTabWidget; its close buttons close them."""

    closed = Signal(object)
    """(kind, id) of a keyed tab just closed (its widget is being deleted)."""

    def __init__(self, tabs: QTabWidget) -> None:
        super().__init__(tabs)
        self.tabs = tabs
        self._by_key: dict[Key, QWidget] = {}
        tabs.tabCloseRequested.connect(self.close)

    def get(self, key: Key) -> QWidget | None:
        return self._by_key.get(key)

    def keys(self) -> list[Key]:
        return list(self._by_key)

    def show(self, key: Key, widget: QWidget, title: str) -> QWidget:
        """Add `widget` as the tab of `key` (unless it is already), and make it current."""
        if self._by_key.get(key) is not widget:
            self._by_key[key] = widget
            self.tabs.addTab(widget, title)
        self.tabs.setCurrentWidget(widget)
        return widget

    def close(self, position: int) -> None:
        widget = self.tabs.widget(position)
        if position < 0 or widget is None:
            return
        self.tabs.removeTab(position)
        gone = [key for key, value in self._by_key.items() if value is widget]
        for key in gone:
            del self._by_key[key]
        widget.deleteLater()
        for key in gone:
            self.closed.emit(key)

    def close_key(self, key: Key) -> None:
        widget = self._by_key.get(key)
        if widget is not None:
            self.close(self.tabs.indexOf(widget))

    def close_all(self) -> None:
        """Every tab, keyed or not (the project they show was closed)."""
        while self.tabs.count():
            widget = self.tabs.widget(0)
            self.tabs.removeTab(0)
            if widget is not None:
                widget.deleteLater()
        self._by_key.clear()
