"""What changed in one subtask or criterion between two saved revisions (`dbstudio diff`):
field-level changes of its YAML and a text diff of a subtask's instruction."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.model.base import ID_PATTERN
from studio.store import layout
from studio.store.history import HistoryError, ProjectRepository
from studio.store.yamlfile import YamlDocument, YamlSyntaxError, plain


@dataclass
class FieldChange:
    field: str
    old: Any
    new: Any


@dataclass
class ObjectDiff:
    """What changed in one subtask or criterion between two revisions."""

    object_id: str
    kind: str  # "criterion" or "subtask"
    old_file: str | None
    new_file: str | None
    changes: list[FieldChange] = field(default_factory=list)
    text_diff: list[str] = field(default_factory=list)

    @property
    def added(self) -> bool:
        return self.old_file is None and self.new_file is not None

    @property
    def removed(self) -> bool:
        return self.old_file is not None and self.new_file is None

    def render(self) -> str:
        if self.old_file is None and self.new_file is None:
            return f"{self.kind} {self.object_id}: not present in either revision"
        if self.added:
            return f"{self.kind} {self.object_id}: added in {self.new_file}"
        if self.removed:
            return f"{self.kind} {self.object_id}: removed from {self.old_file}"
        lines = [f"{self.kind} {self.object_id} ({self.new_file})"]
        if not self.changes and not self.text_diff:
            lines.append("  no changes")
        for change in self.changes:
            lines.append(f"  {change.field}: {_show(change.old)} -> {_show(change.new)}")
        lines += [f"  {line}" for line in self.text_diff]
        return "\n".join(lines)


def _show(value: Any) -> str:
    return "(absent)" if value is _ABSENT else repr(value)


_ABSENT = object()


def diff_object(repo: ProjectRepository, object_id: str, old_rev: str, new_rev: str | None = None) -> ObjectDiff:
    """What changed in one subtask or criterion between two revisions (new: working tree)."""
    if not re.fullmatch(ID_PATTERN, object_id):
        raise HistoryError(f"'{object_id}' is not a subtask or criterion id: ids use letters, digits, '.', '-' "
                           "and '_' and start with a letter or digit, e.g. T03 or T03-C02")
    old_sha = repo.resolve(old_rev)
    new_sha = repo.resolve(new_rev) if new_rev is not None else None
    old = _find_object(repo, object_id, old_sha)
    new = _find_object(repo, object_id, new_sha)
    if old is None and new is None:
        raise HistoryError(f"no subtask or criterion '{object_id}' in either revision")
    kind = (new or old)[0]  # type: ignore[index]
    result = ObjectDiff(object_id, kind, old[1] if old else None, new[1] if new else None)
    if old and new:
        result.changes = _field_changes(old[2], new[2])
        if kind == "subtask":
            result.text_diff = list(difflib.unified_diff(
                old[3].splitlines(), new[3].splitlines(), "instruction (old)", "instruction (new)", lineterm="", n=1
            ))
    return result


def _rubric_files(repo: ProjectRepository, rev: str | None) -> list[str]:
    if rev is None:
        return [p.relative_to(repo.root).as_posix() for p in layout.yaml_files(repo.root)]
    return repo.files_at(rev)


def _find_object(repo: ProjectRepository, object_id: str, rev: str | None) -> tuple[str, str, Any, str] | None:
    subtask_rel = layout.subtask_file(Path(), object_id).as_posix()
    data = _parse(repo.read_version(rev, subtask_rel))
    if isinstance(data, dict):
        instruction = str(data.get("instruction", "instruction.md"))
        text = repo.read_version(rev, (layout.subtask_dir(Path(), object_id) / instruction).as_posix()) or b""
        return "subtask", subtask_rel, data, text.decode("utf-8", "replace")
    for rel in _rubric_files(repo, rev):
        if not (rel.endswith("/" + layout.CHECKPOINT_RUBRIC_FILE) or rel == layout.FINAL_RUBRIC_FILE):
            continue
        rubric = _parse(repo.read_version(rev, rel))
        criteria = rubric.get("criteria") if isinstance(rubric, dict) else None
        for item in criteria if isinstance(criteria, list) else []:
            if isinstance(item, dict) and item.get("id") == object_id and "reuse_of" not in item:
                return "criterion", rel, item, ""
    return None


def _parse(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return plain(YamlDocument.parse(Path("<rev>"), data.decode("utf-8")).data)
    except (YamlSyntaxError, UnicodeDecodeError):
        return None


def _field_changes(old: Any, new: Any, prefix: str = "") -> list[FieldChange]:
    if isinstance(old, dict) and isinstance(new, dict):
        changes = []
        for key in list(old) + [k for k in new if k not in old]:
            name = f"{prefix}.{key}" if prefix else str(key)
            changes += _field_changes(old.get(key, _ABSENT), new.get(key, _ABSENT), name)
        return changes
    if old != new:
        return [FieldChange(prefix, old, new)]
    return []
