"""The project explorer's item model: the project's timeline, materials by release point, the
evaluator references (kept apart: never shown to the agent), final deliverables and rubric.

Rows are keyed by (kind, id). A node's children are built only when the view asks for them
(`fetchMore`), and an edit updates the built rows in place by comparing their keys with what the
project says now (remove, move, insert, dataChanged): an edit never resets the model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QIcon
from PySide6.QtWidgets import QApplication, QStyle

from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout
from studio.views.explorer import (
    Key,
    Row,
    StagesSource,
    child_rows,
    expands,
    keyed,
    release_key,
    stage_entries,
    top_rows,
)

if TYPE_CHECKING:  # the models (pydantic) load with the project, not with the window
    from studio.model import Project

KIND_ROLE = Qt.ItemDataRole.UserRole + 1
"""The row's kind: project, stage, subtask, rubric, material, reference, deliverable, handoff or group."""
ID_ROLE = Qt.ItemDataRole.UserRole + 2
"""The row's object id (a subtask id, 'final' for the final rubric, a group's name)."""

COLUMNS = ("Item", "Detail")
REFERENCE_COLOUR = QColor("#8a3b12")  # evaluator-only rows read apart from what the agent sees
@dataclass(eq=False)
class _Node:
    row: Row
    parent: _Node | None
    key: Key = ("", "", 0)
    children: list[_Node] | None = None  # None until fetched
    position: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def renumber(self) -> None:
        """Each child's row number, after children were inserted, removed or moved."""
        for position, child in enumerate(self.children or []):
            child.position = position


class ExplorerModel(QAbstractItemModel):
    """The explorer tree of one project; `set_project` on open/reload, `refresh` after an edit."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project: Project | None = None
        self._files: frozenset[str] | None = None
        self.stages_source: StagesSource | None = None  # the stages' text, while stages.yaml does not validate
        self._root = _Node(Row("root", "", ""), None, children=[])
        self._icons: dict[str, QIcon] = {}

    # -- feeding ---------------------------------------------------------------------------
    def set_project(self, project: Project | None) -> None:
        """Show another project (or none): the one place the model resets."""
        self.beginResetModel()
        try:
            self._project = project
            self._root.children = [self._make(key, row, self._root, i)
                                    for i, (key, row) in enumerate(keyed(top_rows(project) if project else []))]
        finally:
            self.endResetModel()

    def refresh(self, project: Project, files: frozenset[str] | None = None) -> None:
        """Bring the built rows in line with `project` after an edit, row by row; with `files`
        (those the edit touched) only the branches those files feed are compared."""
        self._project = project
        self._files = files
        try:
            self._sync(self._root, top_rows(project))
        finally:
            self._files = None

    def _touched(self, node: _Node) -> bool:
        """Whether the last edit's files can change the rows under `node`."""
        files = self._files
        if files is None:
            return True
        kind, object_id = node.row.kind, node.row.object_id

        def in_subtask(sid: str) -> bool:
            return any(f.split("/")[:2] == [layout.SUBTASKS_DIR, sid] for f in files)
        if kind == "project":
            return layout.STAGES_FILE in files or any(f.startswith(layout.SUBTASKS_DIR + "/") for f in files)
        if kind == "stage":
            return layout.STAGES_FILE in files or any(in_subtask(c.row.object_id) for c in node.children or [])
        if kind == "subtask":
            return in_subtask(object_id)
        if kind == "release" or (kind, object_id) == ("group", "materials"):
            return bool({layout.MATERIALS_FILE, layout.STAGES_FILE} & files)
        if kind == "group":
            return {"handoffs": layout.DEPENDENCIES_FILE, "deliverables": layout.PROJECT_FILE,
                    "references": layout.REFERENCES_FILE}.get(object_id) in files
        return True

    def _wanted(self, node: _Node) -> list[Row]:
        if self._project is None:
            return []
        if node is self._root:
            return top_rows(self._project)
        return child_rows(self._project, node.row.kind, node.row.object_id, self.stages_source)

    def _make(self, key: Key, row: Row, parent: _Node, position: int) -> _Node:
        return _Node(row, parent, key, None if expands(row) else [], position)

    def _sync(self, node: _Node, rows: list[Row]) -> None:
        assert node.children is not None
        parent_index = self._index_of(node)
        wanted = keyed(rows)
        wanted_keys = {key for key, _ in wanted}
        # 1. rows that went away, removed in runs from the end so positions stay right
        current = node.children
        i = len(current) - 1
        while i >= 0:
            if current[i].key in wanted_keys:
                i -= 1
                continue
            last = i
            while i - 1 >= 0 and current[i - 1].key not in wanted_keys:
                i -= 1
            self.beginRemoveRows(parent_index, i, last)
            del current[i:last + 1]
            node.renumber()
            self.endRemoveRows()
            i -= 1
        # 2. walk the wanted order: move or insert what is not in place
        for position, (key, row) in enumerate(wanted):
            if position < len(current) and current[position].key == key:
                child = current[position]
            else:
                found = next((j for j in range(position + 1, len(current)) if current[j].key == key), None)
                if found is not None:
                    self.beginMoveRows(parent_index, found, found, parent_index, position)
                    current.insert(position, current.pop(found))
                    node.renumber()
                    self.endMoveRows()
                    child = current[position]
                else:
                    self.beginInsertRows(parent_index, position, position)
                    current.insert(position, self._make(key, row, node, position))
                    node.renumber()
                    self.endInsertRows()
                    continue
            if child.row != row:
                child.row = row
                index = self.createIndex(position, 0, child)
                self.dataChanged.emit(index, index.siblingAtColumn(len(COLUMNS) - 1))
            if child.children is not None and expands(child.row) and self._touched(child):
                self._sync(child, self._wanted(child))

    # -- lookups ---------------------------------------------------------------------------
    def _node(self, index: QModelIndex | QPersistentModelIndex) -> _Node:
        return index.internalPointer() if index.isValid() else self._root

    def _index_of(self, node: _Node) -> QModelIndex:
        return QModelIndex() if node is self._root else self.createIndex(node.position, 0, node)

    def find(self, kind: str, object_id: str) -> QModelIndex:
        """The index of the row (kind, object_id), fetching the branches on the way."""
        path = self._path_to(kind, object_id)
        index = QModelIndex()
        for step_kind, step_id in path:
            if self.canFetchMore(index):
                self.fetchMore(index)
            node = self._node(index)
            child = next((c for c in node.children or [] if c.row.kind == step_kind and c.row.object_id == step_id),
                         None)
            if child is None:
                return QModelIndex()
            index = self.createIndex(child.position, 0, child)
        return index

    def _path_to(self, kind: str, object_id: str) -> list[tuple[str, str]]:
        project = self._project
        if project is None:
            return []
        top = ("project", project.info.id if project.info else "")
        if kind == "project":
            return [top]
        if kind == "stage":
            return [top, ("stage", object_id)]
        if kind in ("subtask", "rubric") and object_id != FINAL_SCOPE:
            stage = next((s[0] for s in stage_entries(project, self.stages_source) if object_id in s[2]), None)
            path = [top, ("stage", stage or ""), ("subtask", object_id)]
            return path + ([("rubric", object_id)] if kind == "rubric" else [])
        if kind == "rubric":
            return [("rubric", FINAL_SCOPE)]
        if kind == "material":
            material = project.material(object_id)
            return [("group", "materials"), ("release", release_key(material) if material else ""),
                    ("material", object_id)]
        groups = {"reference": "references", "deliverable": "deliverables", "handoff": "handoffs"}
        if kind in groups:
            return [("group", groups[kind]), (kind, object_id)]
        return []

    # -- QAbstractItemModel ----------------------------------------------------------------
    def index(self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        children = self._node(parent).children or []
        return self.createIndex(row, column, children[row])

    def parent(self, index: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        node = self._node(index).parent
        if node is None or node is self._root:
            return QModelIndex()
        return self.createIndex(node.position, 0, node)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children or [])

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return len(COLUMNS)

    def hasChildren(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:
        if parent.isValid() and parent.column() != 0:
            return False
        node = self._node(parent)
        if node.children is None:
            return expands(node.row)
        return bool(node.children)

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> bool:
        if parent.isValid() and parent.column() != 0:
            return False
        return self._node(parent).children is None

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> None:
        node = self._node(parent)
        if node.children is not None:
            return
        rows = keyed(self._wanted(node))
        node.children = []
        if not rows:
            return
        self.beginInsertRows(self._index_of(node), 0, len(rows) - 1)
        node.children = [self._make(key, row, node, i) for i, (key, row) in enumerate(rows)]
        self.endInsertRows()

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.ItemIsDropEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDropEnabled

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self._node(index).row
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return row.label if column == 0 else row.detail
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.tooltip or None
        if role == KIND_ROLE:
            return row.kind
        if role == ID_ROLE:
            return row.object_id
        evaluator_only = row.kind == "reference" or (row.kind, row.object_id) == ("group", "references")
        if role == Qt.ItemDataRole.ForegroundRole and evaluator_only:
            return QBrush(REFERENCE_COLOUR)
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return self._icon("reference" if evaluator_only else row.kind)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction

    def _icon(self, kind: str) -> QIcon | None:
        if kind not in self._icons:
            style = QApplication.style()
            pixmap = {
                "project": QStyle.StandardPixmap.SP_DirHomeIcon,
                "stage": QStyle.StandardPixmap.SP_DirIcon,
                "subtask": QStyle.StandardPixmap.SP_FileDialogDetailedView,
                "rubric": QStyle.StandardPixmap.SP_DialogApplyButton,
                "group": QStyle.StandardPixmap.SP_DirOpenIcon,
                "release": QStyle.StandardPixmap.SP_DirClosedIcon,  # not an arrow: it read as a 2nd expander
                "material": QStyle.StandardPixmap.SP_FileIcon,
                "reference": QStyle.StandardPixmap.SP_MessageBoxWarning,
                "deliverable": QStyle.StandardPixmap.SP_DialogSaveButton,
                "handoff": QStyle.StandardPixmap.SP_ArrowForward,
            }.get(kind)
            if pixmap is None or style is None:
                return None
            self._icons[kind] = style.standardIcon(pixmap)
        return self._icons[kind]
