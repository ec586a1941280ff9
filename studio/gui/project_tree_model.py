"""Item model over a loaded project: stages > subtasks > criteria, plus the final rubric."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt

from studio.model import Criterion, Project

COLUMNS = ("Item", "Target", "Dimension", "Weight", "Review", "Requirement")


@dataclass(eq=False)
class _Node:
    label: str
    kind: str
    parent: _Node | None = None
    criterion: Criterion | None = None
    children: list[_Node] = field(default_factory=list)
    # Place among the parent's children, kept when added: the view asks for it on every repaint,
    # and a search of the parent's list would cost 5,000 steps under a 5,000-criterion rubric.
    row_in_parent: int = 0

    def add(self, child: _Node) -> _Node:
        child.parent = self
        child.row_in_parent = len(self.children)
        self.children.append(child)
        return child

    def row(self) -> int:
        return self.row_in_parent if self.parent else 0


def _build(project: Project) -> _Node:
    root = _Node("", "root")
    for stage in project.stages.stages if project.stages else []:
        stage_node = root.add(_Node(f"{stage.id}  {stage.title}", "stage"))
        for sid in stage.subtasks:
            subtask = project.subtasks.get(sid)
            sub_node = stage_node.add(_Node(f"{sid}  {subtask.title if subtask else '(missing)'}", "subtask"))
            rubric = project.checkpoint_rubrics.get(sid)
            for criterion in rubric.criteria if rubric is not None else []:
                sub_node.add(_Node(criterion.key, "criterion", criterion=criterion))
    if project.final_rubric is not None:
        final = root.add(_Node("Final rubric", "final"))
        for criterion in project.final_rubric.criteria:
            resolved = criterion
            if criterion.reuse_of:
                found = project.checkpoint_criterion(criterion.reuse_of)
                resolved = found[1] if found else criterion
            final.add(_Node(criterion.key + ("  (reused)" if criterion.reuse_of else ""), "criterion", criterion=resolved))
    return root


class ProjectTreeModel(QAbstractItemModel):
    """Read-only tree of the project's timeline and rubrics."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._root = _Node("", "root")

    def set_project(self, project: Project) -> None:
        self.beginResetModel()
        try:
            self._root = _build(project)
        finally:
            self.endResetModel()

    def _node(self, index: QModelIndex | QPersistentModelIndex) -> _Node:
        return index.internalPointer() if index.isValid() else self._root

    def index(self, row: int, column: int, parent=QModelIndex()) -> QModelIndex:
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        return self.createIndex(row, column, self._node(parent).children[row])

    def parent(self, index=QModelIndex()):
        if not index.isValid():
            return QModelIndex()
        node = index.internalPointer().parent
        if node is None or node is self._root:
            return QModelIndex()
        return self.createIndex(node.row(), 0, node)

    def rowCount(self, parent=QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent=QModelIndex()) -> int:
        return len(COLUMNS)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        node = self._node(index)
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                return node.label
            c = node.criterion
            if c is None:
                return None
            values = (None, c.target.value if c.target else None, c.dimension.value if c.dimension else None,
                      ("gate" if c.gate else str(c.weight)), c.review.status.value, c.text)
            return values[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and node.criterion is not None:
            return node.criterion.text
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None
