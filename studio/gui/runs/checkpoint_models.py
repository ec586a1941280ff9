"""The checkpoint browser's models: a checkpoint's file tree (`ManifestTreeModel`, lazy: a folder's
children are worked out from the manifest's sorted paths when the folder is first expanded) and
the list of what changed between two checkpoints (`CheckpointDiffModel`)."""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractItemModel, QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QStyle

from studio.views.formats import file_size

if TYPE_CHECKING:
    from studio.runs.store import CheckpointDiff, Entry, Manifest

Index = QModelIndex | QPersistentModelIndex
PATH_ROLE = Qt.ItemDataRole.UserRole + 1
"""The path of the row inside the workspace ("outputs/report.md"); a folder's ends without "/"."""
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 2
"""The manifest's Entry of a file, link or empty folder (None for a folder with contents)."""


@dataclass(eq=False)
class _Node:
    name: str
    path: str  # inside the workspace, no trailing slash ("" for the root)
    parent: _Node | None
    entry: Entry | None  # None for a folder that has contents
    children: list[_Node] | None = field(default=None)  # None until fetched
    row: int = 0

    @property
    def is_folder(self) -> bool:
        return self.entry is None or self.entry.kind == "dir"


class ManifestTreeModel(QAbstractItemModel):
    """A checkpoint's paths as folders and files: Name, Size."""

    headers = ("Name", "Size")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.entries: Mapping[str, Entry] = {}
        self._paths: list[str] = []
        self.root = _Node("", "", None, None, children=[])

    def set_manifest(self, manifest: Manifest | None) -> None:
        self.beginResetModel()
        self.entries = manifest.entries if manifest is not None else {}
        self._paths = sorted(self.entries)
        self.root = _Node("", "", None, None)
        self._fill(self.root)
        self.endResetModel()

    def _children_of(self, folder: _Node) -> list[_Node]:
        """The direct children of `folder`, folders first, found by bisecting the sorted paths."""
        prefix = folder.path + "/" if folder.path else ""
        start = bisect.bisect_left(self._paths, prefix)
        names: dict[str, Entry | None] = {}
        for position in range(start, len(self._paths)):
            path = self._paths[position]
            if not path.startswith(prefix):
                break
            name, slash, _rest = path[len(prefix):].partition("/")
            if slash:
                names[name] = None
            elif name not in names:
                names[name] = self.entries[path]
        nodes = [_Node(name, prefix + name, folder, entry) for name, entry in names.items()]
        nodes.sort(key=lambda node: (not node.is_folder, node.name.lower(), node.name))
        for row, node in enumerate(nodes):
            node.row = row
        return nodes

    def _fill(self, folder: _Node) -> None:
        folder.children = self._children_of(folder)

    def _node(self, index: Index) -> _Node:
        return index.internalPointer() if index.isValid() else self.root

    # -- structure ---------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        node = self._node(parent)
        children = node.children or []
        if not 0 <= row < len(children) or not 0 <= column < len(self.headers):
            return QModelIndex()
        return self.createIndex(row, column, children[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        node: _Node = index.internalPointer()
        up = node.parent
        if up is None or up is self.root:
            return QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children or [])

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return len(self.headers)

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: N802 (Qt naming)
        if parent.isValid() and parent.column() != 0:
            return False
        node = self._node(parent)
        if node.children is not None:
            return bool(node.children)
        return node.entry is None  # a folder with contents

    def canFetchMore(self, parent: Index) -> bool:  # noqa: N802 (Qt naming)
        node = self._node(parent)
        return node.children is None and node.entry is None and (not parent.isValid() or parent.column() == 0)

    def fetchMore(self, parent: Index) -> None:  # noqa: N802 (Qt naming)
        node = self._node(parent)
        if node.children is not None or node.entry is not None:
            return
        children = self._children_of(node)
        if not children:
            node.children = []
            return
        self.beginInsertRows(parent, 0, len(children) - 1)
        node.children = children
        self.endInsertRows()

    # -- content -----------------------------------------------------------------------------
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node: _Node = index.internalPointer()
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return node.name + ("/" if node.entry is not None and node.entry.kind == "dir" else "")
            if node.entry is not None and node.entry.kind == "file":
                return file_size(node.entry.size)
            if node.entry is not None and node.entry.kind == "link":
                return f"→ {node.entry.target}"
            return ""
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            style = QApplication.style()
            pixmap = QStyle.StandardPixmap.SP_DirIcon if node.is_folder else (
                QStyle.StandardPixmap.SP_FileLinkIcon if node.entry is not None and node.entry.kind == "link"
                else QStyle.StandardPixmap.SP_FileIcon)
            return style.standardIcon(pixmap)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return node.path
        if role == PATH_ROLE:
            return node.path
        if role == ENTRY_ROLE:
            return node.entry
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(self.headers):
            return self.headers[section]
        return None

    def index_of(self, path: str) -> QModelIndex:
        """The index of `path`, fetching the folders on the way (an invalid index if absent)."""
        parent = QModelIndex()
        for name in path.split("/"):
            if self.canFetchMore(parent):
                self.fetchMore(parent)
            node = self._node(parent)
            found = next((child for child in node.children or [] if child.name == name), None)
            if found is None:
                return QModelIndex()
            parent = self.createIndex(found.row, 0, found)
        return parent


CHANGE_TEXT = {"added": "Added", "removed": "Removed", "changed": "Changed"}
CHANGE_COLOUR = {"added": QColor("#1e7a34"), "removed": QColor("#b3261e"), "changed": QColor("#1c5fb8")}


class CheckpointDiffModel(QAbstractTableModel):
    """What changed from one checkpoint to another: Change, Path, Size (before → after)."""

    headers = ("Change", "Path", "Size")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, str, str]] = []

    def set_diff(self, diff: CheckpointDiff | None, before: Manifest | None = None,
                 after: Manifest | None = None) -> None:
        """A new pair of checkpoints compared: the table is reset."""
        self.beginResetModel()
        rows: list[tuple[str, str, str]] = []
        if diff is not None:
            def size(manifest: Manifest | None, path: str) -> str:
                entry = manifest.entries.get(path) if manifest is not None else None
                return file_size(entry.size) if entry is not None and entry.kind == "file" else ""

            rows += [("added", path, size(after, path)) for path in diff.added]
            rows += [("removed", path, size(before, path)) for path in diff.removed]
            for path in diff.changed:
                old, new = size(before, path), size(after, path)
                rows.append(("changed", path, new if old == new else f"{old} → {new}"))
            rows.sort(key=lambda row: row[1])
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        change, path, size = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (CHANGE_TEXT[change], path, size)[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0:
            return CHANGE_COLOUR[change]
        if role == PATH_ROLE:
            return path
        if role == Qt.ItemDataRole.ToolTipRole:
            return path
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt naming)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(self.headers):
            return self.headers[section]
        return None

    def row_of(self, path: str) -> int:
        return next((row for row, (_change, other, _size) in enumerate(self.rows) if other == path), -1)
