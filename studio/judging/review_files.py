"""Reading and writing the project's review-work files (review/assignments.yaml and
review/double-coding.yaml): validated with every problem located at its file, line and column, and
written atomically through the round-trip YAML tree, so comments and order in them survive an edit."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from studio.judging.errors import JudgingError
from studio.store import fastyaml
from studio.store.schema_messages import clean_loc, describe
from studio.store.yamlfile import YamlDocument, YamlSyntaxError

M = TypeVar("M", bound=BaseModel)


class ReviewFileError(JudgingError):
    """A review-work file that does not load: each problem at its file:line:column, with the fix."""


def located(path: Path, document: Any, loc: tuple[str | int, ...], message: str) -> str:
    line, column = document.locate(loc)
    return f"{path}:{line}:{column}: {message}"


def read_model(path: Path, model: type[M]) -> tuple[M, Any] | None:
    """The file's model and its located document (for checking references), None when there is no file;
    ReviewFileError listing every located problem otherwise."""
    if not path.is_file():
        return None
    try:
        document, data = fastyaml.load(path)
    except YamlSyntaxError as exc:
        raise ReviewFileError(f"{path}:{exc.line or 1}:{exc.column or 1}: {exc.message}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewFileError(f"{path}: cannot read the file ({exc}): check its permissions") from None
    if not isinstance(data, dict):
        raise ReviewFileError(f"{path}:1:1: the file must hold a mapping (docs/review-work.md shows one)")
    try:
        return model.model_validate(data), document
    except ValidationError as exc:
        problems = [located(path, document, clean_loc(error["loc"]), describe(error, data)[0])
                    for error in exc.errors()]
        raise ReviewFileError("\n".join(problems)) from None


def write(path: Path, values: Mapping[str, Any], header: str) -> None:
    """Write top-level `values` into the file atomically: an existing file keeps its comments and the
    entries of its lists that `values` keeps (lists are matched item by item, as plain data)."""
    if path.is_file():
        document = YamlDocument.load(path)
        data = document.data if isinstance(document.data, CommentedMap) else CommentedMap()
    else:
        document = YamlDocument(path=path, data=CommentedMap(), text="")
        data = document.data
        data.yaml_set_start_comment(header)
    for key, value in values.items():
        old = data.get(key)
        if isinstance(value, list) and isinstance(old, CommentedSeq):
            _merge_list(old, value)
        else:
            data[key] = _tree(value)
    document.data = data
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(path)


def _merge_list(old: CommentedSeq, new: list[Any]) -> None:
    """Make `old` hold `new`, keeping each item (and its comments) that `new` keeps, in `new`'s order."""
    from studio.store.yamlfile import plain

    kept = [item for item in old]
    plains = [plain(item) for item in kept]
    result = []
    for value in new:
        if value in plains:
            index = plains.index(value)
            result.append(kept[index])
            plains[index] = object()  # each old item stands for one new one
        else:
            result.append(_tree(value))
    old[:] = result


def _tree(value: Any) -> Any:
    if isinstance(value, dict):
        node = CommentedMap()
        for key, item in value.items():
            if item is not None:
                node[key] = _tree(item)
        return node
    if isinstance(value, list):
        return CommentedSeq(_tree(item) for item in value)
    return value
