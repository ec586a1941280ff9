"""docs/project-format.md documents every key the models accept, in the section of its file, so
the format's reference cannot drift from the code: a new model field fails here until documented."""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from studio.model import (
    DependenciesFile,
    MaterialsFile,
    ProjectInfo,
    ReferencesFile,
    Rubric,
    StagesFile,
    Subtask,
)
from tests.helpers import REPO_ROOT

DOC = REPO_ROOT / "docs" / "project-format.md"

# Each file's model, and the words of the heading of its section in the doc.
FILES: dict[str, tuple[type[BaseModel], str]] = {
    "project.yaml": (ProjectInfo, "`project.yaml`"),
    "stages.yaml": (StagesFile, "`stages.yaml`"),
    "subtask.yaml": (Subtask, "`subtasks/<ID>/subtask.yaml`"),
    "materials.yaml": (MaterialsFile, "`materials.yaml`"),
    "dependencies.yaml": (DependenciesFile, "`dependencies.yaml`"),
    "rubric.yaml": (Rubric, "Rubrics:"),
    "references.yaml": (ReferencesFile, "`evaluator/references.yaml`"),
}


def nested_models(annotation: object) -> list[type[BaseModel]]:
    """The models inside a field's type: `list[Criterion]`, `Release | None`, `Annotated[...]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    if typing.get_origin(annotation) is typing.Annotated:
        return nested_models(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) is not None or isinstance(annotation, types.UnionType):
        for argument in typing.get_args(annotation):
            found += nested_models(argument)
    return found


def keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Every key a file of `model` may hold, as `parent.key` paths, by the name written in YAML (alias)."""
    found: list[str] = []
    for name, info in model.model_fields.items():
        key = info.alias or name
        path = f"{prefix}{key}"
        found.append(path)
        for inner in nested_models(info.annotation):
            found += keys(inner, f"{path}.")
    return found


def section(heading: str) -> str:
    """The doc's text from the `## ` heading holding `heading` to the next `## ` heading."""
    text = DOC.read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.MULTILINE)
    matches = [part for part in parts if part.splitlines()[0].find(heading) >= 0]
    assert len(matches) == 1, f"no single section headed {heading!r} in {DOC.name}"
    return matches[0]


def documented(key: str, text: str) -> bool:
    """`key` written in code style: `key`, `parent.key`, `key.child` or `key: value`."""
    return re.search(rf"`(?:[\w.]*\.)?{re.escape(key)}(?:[.:][^`]*)?`", text) is not None


@pytest.mark.parametrize("file", list(FILES))
def test_every_key_of_the_file_is_documented_in_its_section(file: str) -> None:
    model, heading = FILES[file]
    text = section(heading)
    paths = keys(model)
    assert paths, model
    missing = [path for path in paths if not documented(path.rsplit(".", 1)[-1], text)]
    assert missing == [], f"docs/project-format.md, section {heading}: document {missing}"


def test_the_walk_finds_nested_keys_and_aliases() -> None:
    # The walk itself: nested models through lists, optionals and aliases (`for`, `from`).
    assert {"criteria.propagates", "criteria.review.note", "criteria.reuse_of"} <= set(keys(Rubric))
    assert {"materials.generated.from", "materials.release.at", "materials.note"} <= set(keys(MaterialsFile))
    assert "references.for" in keys(ReferencesFile) and "handoffs.from" in keys(DependenciesFile)
    assert "delivery.final_deliverables.audience" in keys(ProjectInfo)


def test_an_undocumented_key_is_caught(tmp_path: Path) -> None:
    text = section("Rubrics:")
    assert documented("propagates", text)
    assert not documented("propagates", text.replace("`propagates`", "propagates"))
