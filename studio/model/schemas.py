"""JSON Schemas of every project YAML file kind, generated from the models.

The files in schemas/ are this module's output, checked in so that editors (e.g. VS Code's
YAML extension) can validate project files; a test fails when they drift from the models.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from studio.benchmark.model import Benchmark
from studio.model.comments import CommentThread
from studio.model.project import ProjectInfo
from studio.model.review_work import AssignmentsFile, DoubleCodingPlan
from studio.model.rubric import Rubric
from studio.model.schedule import MaterialsFile, ReferencesFile
from studio.model.workflow import DependenciesFile, StagesFile, Subtask

SCHEMA_BASE_URI = "https://deliverbench.studio/schemas/"

# schema file name -> (model, the project files it describes)
SCHEMA_FILES: dict[str, tuple[type[BaseModel], str]] = {
    "project.schema.json": (ProjectInfo, "project.yaml"),
    "stages.schema.json": (StagesFile, "stages.yaml"),
    "materials.schema.json": (MaterialsFile, "materials.yaml"),
    "dependencies.schema.json": (DependenciesFile, "dependencies.yaml"),
    "subtask.schema.json": (Subtask, "subtasks/<ID>/subtask.yaml"),
    "rubric.schema.json": (Rubric, "subtasks/<ID>/rubric.yaml and final/rubric.yaml"),
    "references.schema.json": (ReferencesFile, "evaluator/references.yaml"),
    "assignments.schema.json": (AssignmentsFile, "review/assignments.yaml"),
    "double-coding.schema.json": (DoubleCodingPlan, "review/double-coding.yaml"),
    "comment.schema.json": (CommentThread, "comments/<THREAD-ID>.yaml (a comment thread on a subtask or criterion)"),
    "benchmark.schema.json": (Benchmark, "benchmark.yaml (a benchmark of many projects and systems)"),
}


def schema_texts() -> dict[str, str]:
    """File name -> JSON text, deterministic (sorted keys, trailing newline)."""
    texts = {}
    for name, (model, describes) in SCHEMA_FILES.items():
        schema = model.model_json_schema(by_alias=True, mode="validation")
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["$id"] = SCHEMA_BASE_URI + name
        kind = "benchmark" if model is Benchmark else "project"
        schema["description"] = f"DeliverBench {kind} file: {describes}. " + (schema.get("description") or "")
        texts[name] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return texts
