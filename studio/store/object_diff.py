"""What changed in one subtask or criterion between two saved revisions (`dbstudio diff`):
field-level changes of its YAML; for a subtask also a text diff of its instruction and what
changed in its checkpoint rubric. A changed sentence (a criterion's text, a review note) is
shown as the words that changed, not as two whole sentences."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.model.base import ID_PATTERN
from studio.store import fastyaml, layout
from studio.store.history_errors import HistoryError
from studio.store.yamlfile import YamlSyntaxError

if TYPE_CHECKING:
    from studio.store.history import ProjectRepository  # gitpython: the caller opens the repository


@dataclass(frozen=True)
class ItemId:
    """A step of a field's path: the item of a list of mappings whose `id` is `id` (where it sits
    in the list may differ between the two versions compared)."""

    id: str


PathStep = str | int | ItemId


@dataclass
class FieldChange:
    field: str
    old: Any
    new: Any
    path: tuple[PathStep, ...] = ()
    """Where the field is in the YAML data (keys, and ItemId for an item of a list keyed by id)."""

    def render(self) -> str:
        if isinstance(self.old, str) and isinstance(self.new, str) and (_is_prose(self.old) or _is_prose(self.new)):
            return f"{self.field}: {word_diff(self.old, self.new)}"
        return f"{self.field}: {_show(self.old)} -> {_show(self.new)}"


def _is_prose(text: str) -> bool:
    return len(text.split()) > 2


def word_diff(old: str, new: str) -> str:
    """`new` with the words taken out of `old` as [-...-] and the words put in as {+...+} (the
    notation of `git diff --word-diff=plain`); runs of white space count as one space."""
    before, after = old.split(), new.split()
    parts: list[str] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for operation, b1, b2, a1, a2 in matcher.get_opcodes():
        if operation == "equal":
            parts.append(" ".join(before[b1:b2]))
            continue
        if operation in ("replace", "delete"):
            parts.append(f"[-{' '.join(before[b1:b2])}-]")
        if operation in ("replace", "insert"):
            parts.append(f"{{+{' '.join(after[a1:a2])}+}}")
    return " ".join(parts)


@dataclass
class ObjectDiff:
    """What changed in one subtask or criterion between two revisions."""

    object_id: str
    kind: str  # "criterion" or "subtask"
    old_file: str | None
    new_file: str | None
    changes: list[FieldChange] = field(default_factory=list)
    text_diff: list[str] = field(default_factory=list)  # a subtask's instruction, as a unified diff
    instruction_file: str | None = None
    rubric_file: str | None = None
    rubric: list[ObjectDiff] = field(default_factory=list)  # a subtask's checkpoint criteria that changed
    unreadable_rubric: list[str] = field(default_factory=list)  # "old"/"new": the rubric does not parse there

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
        if not self.changes and not self.text_diff and not self.rubric and not self.unreadable_rubric:
            lines.append("  no changes")
        lines += [f"  {change.render()}" for change in self.changes]
        if self.text_diff:
            lines.append(f"  instruction ({self.instruction_file}):")
            lines += [f"    {line}" for line in self.text_diff]
        if self.rubric or self.unreadable_rubric:
            lines.append(f"  rubric ({self.rubric_file}):")
            lines += [f"    does not parse in the {side} revision: its criteria are not compared"
                      for side in self.unreadable_rubric]
            for criterion in self.rubric:
                if criterion.added:
                    lines.append(f"    criterion {criterion.object_id}: added")
                elif criterion.removed:
                    lines.append(f"    criterion {criterion.object_id}: removed")
                else:
                    lines.append(f"    criterion {criterion.object_id}:")
                    lines += [f"      {change.render()}" for change in criterion.changes]
        return "\n".join(lines)


def _show(value: Any) -> str:
    return "(absent)" if value is ABSENT else repr(value)


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


ABSENT: Any = _Absent()
"""The old or new value of a field that is not there in that version."""
_ABSENT = ABSENT


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
        result.changes = field_changes(old[2], new[2])
        if kind == "subtask":
            result.instruction_file = new[3]
            result.text_diff = list(difflib.unified_diff(
                old[4].splitlines(), new[4].splitlines(), "instruction (old)", "instruction (new)", lineterm="", n=1
            ))
            result.rubric_file = layout.checkpoint_rubric_file(Path(), object_id).as_posix()
            old_criteria = _criteria(repo, result.rubric_file, old_sha)
            new_criteria = _criteria(repo, result.rubric_file, new_sha)
            result.unreadable_rubric = [side for side, found in (("old", old_criteria), ("new", new_criteria))
                                        if found is None]
            if old_criteria is not None and new_criteria is not None:
                result.rubric = _rubric_changes(result.rubric_file, old_criteria, new_criteria)
    return result


def _criteria(repo: ProjectRepository, rel: str, rev: str | None) -> dict[str, Any] | None:
    """A rubric file's criteria by id, in file order (none when it is absent; None when it does not parse)."""
    data = repo.read_version(rev, rel)
    rubric = _parse(data)
    if data is not None and not isinstance(rubric, dict):
        return None
    items = rubric.get("criteria") if isinstance(rubric, dict) else None
    found: dict[str, Any] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            found.setdefault(item["id"], item)
    return found


def _rubric_changes(rel: str, old: dict[str, Any], new: dict[str, Any]) -> list[ObjectDiff]:
    """The criteria of a checkpoint rubric that were added, removed or changed, in file order."""
    diffs = []
    for key in list(new) + [k for k in old if k not in new]:
        diff = ObjectDiff(key, "criterion", rel if key in old else None, rel if key in new else None)
        if key in old and key in new:
            diff.changes = field_changes(old[key], new[key])
            if not diff.changes:
                continue
        diffs.append(diff)
    return diffs


def _rubric_files(repo: ProjectRepository, rev: str | None) -> list[str]:
    if rev is None:
        return [p.relative_to(repo.root).as_posix() for p in layout.yaml_files(repo.root)]
    return repo.files_at(rev)


def _find_object(repo: ProjectRepository, object_id: str,
                 rev: str | None) -> tuple[str, str, Any, str, str] | None:
    """(kind, file, its YAML, the instruction's file and text for a subtask) at a revision."""
    subtask_rel = layout.subtask_file(Path(), object_id).as_posix()
    data = _parse(repo.read_version(rev, subtask_rel))
    if isinstance(data, dict):
        instruction = (layout.subtask_dir(Path(), object_id) / str(data.get("instruction", "instruction.md"))).as_posix()
        text = repo.read_version(rev, instruction) or b""
        return "subtask", subtask_rel, data, instruction, text.decode("utf-8", "replace")
    for rel in _rubric_files(repo, rev):
        if not (rel.endswith("/" + layout.CHECKPOINT_RUBRIC_FILE) or rel == layout.FINAL_RUBRIC_FILE):
            continue
        rubric = _parse(repo.read_version(rev, rel))
        criteria = rubric.get("criteria") if isinstance(rubric, dict) else None
        for item in criteria if isinstance(criteria, list) else []:
            if isinstance(item, dict) and item.get("id") == object_id and "reuse_of" not in item:
                return "criterion", rel, item, "", ""
    return None


def _parse(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        # libyaml's read gives the round-trip parser's data (fastyaml hands it what it cannot), several
        # times faster: the history of one object parses a rubric at every revision.
        return fastyaml.parse(Path("<rev>"), data.decode("utf-8"))[1]
    except (YamlSyntaxError, UnicodeDecodeError):
        return None


def _field_changes(old: Any, new: Any, prefix: str = "", path: tuple[PathStep, ...] = (),
                   by_id: bool = False) -> list[FieldChange]:
    if isinstance(old, dict) and isinstance(new, dict):
        changes = []
        for key in list(old) + [k for k in new if k not in old]:
            name = f"{prefix}.{key}" if prefix else str(key)
            changes += _field_changes(old.get(key, _ABSENT), new.get(key, _ABSENT), name, (*path, key), by_id)
        return changes
    if by_id and _keyed_by_id(old) and _keyed_by_id(new):
        olds, news = {item["id"]: item for item in old}, {item["id"]: item for item in new}
        changes = []
        for key in list(olds) + [k for k in news if k not in olds]:
            name = f"{prefix}.{key}" if prefix else str(key)
            changes += _field_changes(olds.get(key, _ABSENT), news.get(key, _ABSENT), name,
                                      (*path, ItemId(key)), by_id)
        return changes
    if old != new:
        return [FieldChange(prefix, old, new, path)]
    return []


def _keyed_by_id(value: Any) -> bool:
    """A list of mappings each with its own id (stages, criteria, materials): compared item by item."""
    if not isinstance(value, list) or not all(isinstance(item, dict) and isinstance(item.get("id"), str)
                                              for item in value):
        return False
    ids = [item["id"] for item in value]
    return len(set(ids)) == len(ids)


def field_changes(old: Any, new: Any) -> list[FieldChange]:
    """Field-by-field changes from `old` to `new` (plain YAML data), a list of mappings with ids
    compared item by item (`stages.S2.title`, `criteria.T03-C02.weight`), each change with its path."""
    return _field_changes(old, new, by_id=True)


def every_field(value: Any) -> list[FieldChange]:
    """Each field of `value` down to its leaves, named as `field_changes` names them, as though
    written from nothing (old ABSENT): what a newly added object set."""
    return field_changes(_skeleton(value), value)


def _skeleton(value: Any) -> Any:
    """`value`'s mappings and id-keyed lists with every leaf taken out (ids kept, so items match)."""
    if isinstance(value, dict):
        return {key: _skeleton(item) for key, item in value.items()}
    if _keyed_by_id(value):
        return [{**_skeleton(item), "id": item["id"]} for item in value]
    return _ABSENT


def yaml_data(data: bytes | None) -> Any:
    """A YAML file's plain data (None: no file, or it does not parse)."""
    return _parse(data)


def shown(value: Any) -> str:
    """A field's value as a reader sees it in a table: a text as it is, a list or mapping inline."""
    if value is ABSENT or value is None:
        return "(absent)"
    if isinstance(value, list):
        return ", ".join(shown(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{key}: {shown(item)}" for key, item in value.items())
    return str(value)
