"""The project editor: who the agent is and for whom, the delivery contract (scope, acceptance
requirements, final deliverables with the output each grows from) and the brief."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QGroupBox, QVBoxLayout, QWidget

from studio.editing.delivery import add_acceptance, add_deliverable, remove_acceptance, remove_deliverable
from studio.editing.fields import ACCEPTANCE, DELIVERABLES, brief_file, set_brief, subtask_file
from studio.editing.list_items import set_item
from studio.gui.base.project_context import ProjectContext
from studio.gui.project.editors.base import ObjectForm
from studio.gui.project.editors.widgets import RowTable, TextItems
from studio.gui.widgets.markdown import MarkdownEditor
from studio.model.project import ProjectInfo
from studio.store import layout

DELIVERABLE_COLUMNS = ("id", "path", "title", "produced_by", "audience")
OPTIONAL_COLUMNS = {"audience"}


class ProjectEditor(ObjectForm):
    kind = "project"
    heading = "Project"

    def build(self) -> None:
        self.setObjectName("projectEditor")
        self.add_readonly("Id", lambda p: p.id, "projectId")
        self.add_line("Title", "title", lambda p: p.title)
        self.add_line("Domain", "domain", lambda p: p.domain, tip="e.g. Finance, Law, Audit")
        self.add_line("Role", "role", lambda p: p.role, tip="The professional role the agent plays.")
        self.add_line("Client", "client", lambda p: p.client)
        self.add_text("Objective", "objective", lambda p: p.objective, 3, "The shared business objective.")
        self.add_text("Delivery scope", "delivery.scope", lambda p: p.delivery.scope, 3,
                      "What the final package covers.")

        acceptance_box = QGroupBox("Acceptance requirements", self.body)
        self.acceptance = TextItems(acceptance_box)
        self.acceptance.setObjectName("acceptanceList")
        self.acceptance.list.setToolTip("Final criteria name these ids in 'tests'. Tick the item that keeps internal "
                                        "information (fees, working notes, negotiating positions) out of external "
                                        "deliverables.")
        QVBoxLayout(acceptance_box).addWidget(self.acceptance)
        self.acceptance.edited.connect(self._edit_acceptance)
        self.acceptance.toggled.connect(self._mark_confidentiality)
        self.acceptance.added.connect(self._add_acceptance)
        self.acceptance.removed.connect(self._remove_acceptance)
        self.body_layout.addWidget(acceptance_box)

        deliverables_box = QGroupBox("Final deliverables", self.body)
        self.deliverables = RowTable(("Id", "Path in package", "Title", "Produced by", "Audience"),
                                     parent=deliverables_box)
        self.deliverables.setObjectName("deliverablesTable")
        self.deliverables.fit_columns((50, 220, 230, 300))
        QVBoxLayout(deliverables_box).addWidget(self.deliverables)
        self.deliverables.edited.connect(self._edit_deliverable)
        self.deliverables.added.connect(self._add_deliverable)
        self.deliverables.removed.connect(self._remove_deliverable)
        self.body_layout.addWidget(deliverables_box)

    def __init__(self, context: ProjectContext, object_id: str, parent: QWidget | None = None) -> None:
        super().__init__(context, object_id, parent)
        # The details form and the brief as two tabs: the brief wants the full width.
        self.brief = MarkdownEditor(context, brief_file, set_brief, self)
        self.tabs = self.add_page("Details", "Brief", self.brief)
        self.setObjectName("projectEditor")

    def current(self) -> ProjectInfo | None:
        return self.project.info

    def files(self) -> set[str]:
        # Deliverables are picked from the subtasks' outputs, in timeline order.
        return {layout.STAGES_FILE} | {subtask_file(sid) for sid in self.project.subtasks}

    def heading_text(self, obj: Any) -> str:
        return f"Project — {obj.title}" if obj is not None else "Project"

    def show_extra(self, info: ProjectInfo | None) -> None:
        items = info.delivery.acceptance if info else []
        self.acceptance.set_texts([item.text for item in items], [item.id for item in items],
                                  [item.confidentiality for item in items])
        rows = []
        for deliverable in info.delivery.final_deliverables if info else []:
            rows.append([deliverable.id, deliverable.path, deliverable.title, deliverable.produced_by,
                         deliverable.audience or ""])
        self.deliverables.set_rows(rows)
        outputs = sorted(self.project.outputs(), key=self._timeline_key)
        for row, values in enumerate(rows):
            combo = self.deliverables.table.cellWidget(row, 3)
            if not isinstance(combo, QComboBox):
                combo = QComboBox()
                combo.activated.connect(lambda _i, c=combo: self._pick_producer(c))
                self.deliverables.table.setCellWidget(row, 3, combo)
            combo.setProperty("row", row)
            self._fill_producers(combo, outputs, values[3])

    def _timeline_key(self, ref: str) -> tuple[int, str]:
        subtask, _, path = ref.partition(":")
        return (self.project.position(subtask) or 10**6, ref)

    @staticmethod
    def _fill_producers(combo: QComboBox, outputs: list[str], value: str) -> None:
        choices = outputs if value in outputs else [value, *outputs]
        if [combo.itemData(i) for i in range(combo.count())] != choices:
            combo.blockSignals(True)
            combo.clear()
            for ref in choices:
                combo.addItem(ref if ref in outputs else f"{ref} (not an output)", ref)
            combo.blockSignals(False)
        combo.setCurrentIndex(combo.findData(value))

    # -- acceptance ------------------------------------------------------------------------
    def _edit_acceptance(self, row: int, text: str) -> None:
        info = self.current()
        if info is None or row >= len(info.delivery.acceptance) or not text.strip():
            self.show_extra(info)  # an emptied text is put back: remove the item instead
            return
        item_id = info.delivery.acceptance[row].id
        if text.strip() == info.delivery.acceptance[row].text:
            return
        self.apply(lambda d: set_item(d, "project", self.object_id, ".".join(ACCEPTANCE), row, text.strip(), "text",
                                      f"Edit acceptance item {item_id}"))

    def _mark_confidentiality(self, row: int, on: bool) -> None:
        info = self.current()
        if info is None or row >= len(info.delivery.acceptance):
            return
        item_id = info.delivery.acceptance[row].id
        # Unticked is the default: the key goes rather than reading `confidentiality: false`.
        if not self.apply(lambda d: set_item(d, "project", self.object_id, ".".join(ACCEPTANCE), row, True if on else None,
                                             "confidentiality", f"{'Mark' if on else 'Unmark'} {item_id} as confidentiality")):
            self.show_extra(self.current())

    def _add_acceptance(self, row: int) -> None:
        if self.apply(lambda d: add_acceptance(d, "New acceptance requirement", row)):
            item = self.acceptance.list.item(row)
            if item is not None:
                self.acceptance.list.setCurrentItem(item)
                self.acceptance.list.editItem(item)

    def _remove_acceptance(self, row: int) -> None:
        self.apply(lambda d: remove_acceptance(d, row))

    # -- deliverables ----------------------------------------------------------------------
    def _deliverable_id(self, row: int) -> str | None:
        info = self.current()
        if info is None or row >= len(info.delivery.final_deliverables):
            return None
        return info.delivery.final_deliverables[row].id

    def _edit_deliverable(self, row: int, column: int, text: str) -> None:
        key = DELIVERABLE_COLUMNS[column]
        value: str | None = text.strip()
        if not value and key in OPTIONAL_COLUMNS:
            value = None
        self.apply(lambda d: set_item(d, "project", self.object_id, ".".join(DELIVERABLES), row, value, key,
                                      f"Set {key} of deliverable {self._deliverable_id(row)}"))

    def _pick_producer(self, combo: QComboBox) -> None:
        row = int(combo.property("row"))
        value = combo.currentData()
        info = self.current()
        if info is None or row >= len(info.delivery.final_deliverables) or \
                info.delivery.final_deliverables[row].produced_by == value:
            return
        self.apply(lambda d: set_item(d, "project", self.object_id, ".".join(DELIVERABLES), row, value,
                                      "produced_by", f"Set produced_by of deliverable {self._deliverable_id(row)}"))

    def _add_deliverable(self) -> None:
        info = self.current()
        taken = {d.id for d in info.delivery.final_deliverables} if info else set()
        number = 1
        while f"F{number}" in taken:
            number += 1
        outputs = sorted(self.project.outputs(), key=self._timeline_key)
        producer = outputs[-1] if outputs else "T01:outputs/file.md"
        entry = {"id": f"F{number}", "path": f"final/{producer.partition(':')[2].rsplit('/', 1)[-1]}",
                 "title": "New deliverable", "produced_by": producer}
        self.apply(lambda d: add_deliverable(d, entry))

    def _remove_deliverable(self, row: int) -> None:
        deliverable_id = self._deliverable_id(row)
        if deliverable_id is not None:
            self.apply(lambda d: remove_deliverable(d, deliverable_id))

