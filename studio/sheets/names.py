"""The names a rubric row may point at, read from the project's documents: materials, each
subtask's outputs and the final deliverables."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.editing.documents import ProjectDocuments
from studio.sheets.current import file_data
from studio.store import layout


def _mappings(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _top(documents: ProjectDocuments, rel: str) -> dict[str, Any]:
    data = file_data(documents, rel)
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class ProjectNames:
    materials: frozenset[str] = frozenset()
    outputs: dict[str, list[str]] = field(default_factory=dict)  # subtask -> ["T01:outputs/x.xlsx", ...]
    deliverables: tuple[str, ...] = ()

    @classmethod
    def read(cls, documents: ProjectDocuments) -> ProjectNames:
        materials = frozenset(str(item["id"]) for item in _mappings(_top(documents, layout.MATERIALS_FILE)
                                                                    .get("materials")) if "id" in item)
        outputs = {}
        for folder in layout.subtask_folders(documents.root):
            rel = layout.subtask_file(Path(), folder.name).as_posix()
            outputs[folder.name] = [f"{folder.name}:{item['path']}" for item in
                                    _mappings(_top(documents, rel).get("outputs")) if "path" in item]
        delivery = _top(documents, layout.PROJECT_FILE).get("delivery")
        deliverables = tuple(str(item["id"]) for item in _mappings(
            delivery.get("final_deliverables") if isinstance(delivery, dict) else None) if "id" in item)
        return cls(materials, outputs, deliverables)
