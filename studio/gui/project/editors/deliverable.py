"""The final deliverable editor: one file of the final package and the subtask output it is the
final version of."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox

from studio.editing.fields import subtask_file
from studio.gui.project.editors.base import ObjectForm
from studio.model.project import FinalDeliverable
from studio.store import layout


class DeliverableEditor(ObjectForm):
    kind = "deliverable"
    heading = "Final deliverable"

    def build(self) -> None:
        self.setObjectName("deliverableEditor")
        self.add_readonly("Id", lambda d: d.id, "deliverableId")
        self.add_line("Title", "title", lambda d: d.title)
        self.add_line("Path in the package", "path", lambda d: d.path, name="deliverablePath")
        self.producer = QComboBox(self.body)
        self.producer.setObjectName("deliverableProducer")
        self.producer.activated.connect(self._pick_producer)
        self.add_row("Produced by", self.producer, "The subtask output whose final version this file is.")
        self.add_line("Audience", "audience", lambda d: d.audience, optional=True, name="deliverableAudience")
        self.add_combo("Circulation", "circulation", lambda d: d.circulation.value,
                       [("Internal (the firm and its client)", "internal"),
                        ("External (lenders, counterparties, regulators)", "external")],
                       "External files must be checked for internal information (fees, working notes, "
                       "negotiating positions) by a final criterion.", name="deliverableCirculation")

    def current(self) -> FinalDeliverable | None:
        info = self.project.info
        if info is None:
            return None
        return next((d for d in info.delivery.final_deliverables if d.id == self.object_id), None)

    def files(self) -> set[str]:
        return {layout.PROJECT_FILE, layout.STAGES_FILE} | {subtask_file(sid) for sid in self.project.subtasks}

    def show_extra(self, deliverable: FinalDeliverable | None) -> None:
        positions = {sid: self.project.position(sid) or 10**6 for sid in self.project.subtasks}
        outputs = sorted(self.project.outputs(), key=lambda ref: (positions.get(ref.partition(":")[0], 10**6), ref))
        value = deliverable.produced_by if deliverable else ""
        choices = outputs if value in outputs or not value else [value, *outputs]
        self.producer.blockSignals(True)
        self.producer.clear()
        for ref in choices:
            self.producer.addItem(ref if ref in outputs else f"{ref} (not an output)", ref)
        self.producer.setCurrentIndex(self.producer.findData(value))
        self.producer.blockSignals(False)

    def _pick_producer(self) -> None:
        self._finish_value("produced_by", lambda d: d.produced_by, self.producer.currentData())
