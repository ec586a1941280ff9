"""The release schedule in the domain's words: add, remove and move materials, set a release
point, import a file as a material (its bytes copied under materials/), replace a material's file, and add a
generated release."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

from studio.editing.catalog import require_subtask, taken_ids, timeline
from studio.editing.commands import Command, Compound, InsertItem, MoveItem, RemoveItem, RemoveKey, SetValue
from studio.editing.documents import ProjectDocuments
from studio.editing.fields import MATERIALS, listed, object_location
from studio.editing.files import PutFile
from studio.editing.ids import check_new_id
from studio.editing.usages import describe, usages
from studio.errors import StudioError
from studio.model.schedule import MaterialKind, Provenance
from studio.store import layout

GENERATED_KIND = MaterialKind.SCRIPTED_FEEDBACK.value
# A workspace path as the model takes it: relative, no '..', none of \ : * ? " < > |
_FORBIDDEN = re.compile(r'[\\:*?"<>|]')


class MaterialError(StudioError):
    """A material edit that cannot be made (an unreadable file, a taken file name, a bad kind, a
    material other files still use)."""


def _release(before_subtask: str | None) -> dict[str, str]:
    return {"at": "start"} if before_subtask is None else {"at": "before", "subtask": before_subtask}


def _choice(value: str, allowed: type[MaterialKind] | type[Provenance], what: str) -> str:
    names = [member.value for member in allowed]
    if value not in names:
        raise MaterialError(f"'{value}' is not a material {what}: use one of {', '.join(names)}")
    return value


def _release_position(documents: ProjectDocuments, before_subtask: str | None) -> int:
    order = timeline(documents)
    return 0 if before_subtask is None else order.index(before_subtask) + 1


def _schedule_place(documents: ProjectDocuments, before_subtask: str | None) -> int:
    """Where a material released at that point goes: after the last one released no later."""
    order = {sid: place + 1 for place, sid in enumerate(timeline(documents))}
    here = _release_position(documents, before_subtask)
    place = 0
    for index, item in enumerate(listed(documents, layout.MATERIALS_FILE, MATERIALS)):
        release = item.get("release") if isinstance(item, dict) else None
        at = 0 if not isinstance(release, dict) or release.get("at") != "before" else \
            order.get(str(release.get("subtask")), len(order) + 1)
        if at <= here:
            place = index + 1
    return place


def add_material(documents: ProjectDocuments, material: dict[str, Any], index: int | None = None) -> InsertItem:
    """A new entry of materials.yaml at `index` (None: after the materials released no later)."""
    material_id = str(material.get("id", ""))
    check_new_id(material_id, taken_ids(documents, "material"), "material")
    size = len(listed(documents, layout.MATERIALS_FILE, MATERIALS))
    if index is None:
        release = material.get("release")
        subtask = release.get("subtask") if isinstance(release, dict) and release.get("at") == "before" else None
        if subtask is None:
            index = _schedule_place(documents, None)
        elif subtask in timeline(documents):
            index = _schedule_place(documents, str(subtask))
        else:  # released before no scheduled subtask: last, where validation will point at it
            index = size
    if not 0 <= index <= size:
        raise MaterialError(f"{layout.MATERIALS_FILE} has no place {index} (it has {size} materials)")
    return InsertItem(layout.MATERIALS_FILE, MATERIALS, index, material, ids=(material_id,),
                      label=f"Add material {material_id}")


def remove_material(documents: ProjectDocuments, material_id: str, *, force: bool = False,
                    delete_file: bool = True) -> Compound:
    """Remove a material from the schedule, and its file under materials/ unless another material
    lists it or `delete_file` is False: materials/ holds the agent-facing files the schedule releases.
    Refused while a subtask's inputs, a correction or a criterion names it, unless `force`."""
    rel, path = object_location(documents, "material", material_id)
    named = usages(documents, "material", material_id)
    if named and not force:
        raise MaterialError(f"material {material_id} is still named in {describe(named)}: change those first")
    edits: list[Command] = [RemoveItem(rel, MATERIALS, int(path[-1]), (material_id,))]
    entry = documents.node(rel, path)
    name = entry.get("file")
    others = [item.get("file") for item in listed(documents, rel, MATERIALS)
              if isinstance(item, dict) and item.get("id") != material_id]
    if delete_file and isinstance(name, str) and name not in others:
        stored = f"{layout.MATERIALS_DIR}/{name}"
        if documents.exists(stored):
            edits.append(PutFile(stored, None, (material_id,)))
    return Compound(f"Remove material {material_id}", edits)


def move_material(documents: ProjectDocuments, material_id: str, target: int) -> MoveItem:
    rel, path = object_location(documents, "material", material_id)
    size = len(listed(documents, rel, MATERIALS))
    if not 0 <= target < size:
        raise MaterialError(f"{rel} has no place {target} for material {material_id} (it has {size} materials)")
    return MoveItem(rel, MATERIALS, int(path[-1]), target, (material_id,), f"Move material {material_id}")


def set_release(documents: ProjectDocuments, material_id: str, before_subtask: str | None) -> Command:
    """Release a material at start (None) or just before a subtask; other keys of `release` stay."""
    rel, path = object_location(documents, "material", material_id)
    entry = documents.node(rel, path)
    label = f"Release {material_id} " + ("at start" if before_subtask is None else f"before {before_subtask}")
    if before_subtask is not None:
        require_subtask(documents, before_subtask)
    elif entry.get("generated") is not None:
        raise MaterialError(f"material {material_id} is generated from the agent's files: it is released before a "
                            "subtask, not at start")
    release = entry.get("release")
    if not isinstance(release, dict):
        return SetValue(rel, (*path, "release"), _release(before_subtask), (material_id,), label)
    edits: list[Command] = []
    wanted = _release(before_subtask)
    if release.get("at") != wanted["at"]:
        edits.append(SetValue(rel, (*path, "release", "at"), wanted["at"], (material_id,)))
    if before_subtask is None and "subtask" in release:
        edits.append(RemoveKey(rel, (*path, "release", "subtask"), (material_id,)))
    elif before_subtask is not None and release.get("subtask") != before_subtask:
        edits.append(SetValue(rel, (*path, "release", "subtask"), before_subtask, (material_id,)))
    return Compound(label, edits)


def _safe_name(name: str) -> str:
    cleaned = _FORBIDDEN.sub("-", name).strip().lstrip(".") or "material"
    return cleaned


def free_name(documents: ProjectDocuments, folder: str, name: str) -> str:
    """`name`, or `stem-2.ext`, `stem-3.ext`... the first not taken under `folder`."""
    pure = PurePosixPath(name)
    candidate, number = name, 1
    while documents.exists(f"{folder}/{candidate}"):
        number += 1
        candidate = str(pure.with_name(f"{pure.stem}-{number}{pure.suffix}"))
    return candidate


def check_dest_name(name: str) -> None:
    pure = PurePosixPath(name)
    if not name or pure.is_absolute() or ".." in pure.parts or _FORBIDDEN.search(name) or name.endswith("/"):
        raise MaterialError(f"'{name}' cannot be a file name here: use a relative path without '..' and without "
                            '\\ : * ? " < > |')


def read_source(source: Path) -> bytes:
    try:
        return Path(source).read_bytes()
    except IsADirectoryError:
        raise MaterialError(f"{source} is a folder: import one file at a time") from None
    except OSError as exc:
        raise MaterialError(f"cannot read {source}: {exc.strerror or exc}") from None


def import_file(documents: ProjectDocuments, folder: str, source: Path, dest_name: str | None,
                object_id: str) -> tuple[str, PutFile]:
    """The name under `folder` and the edit that copies `source` there. A `dest_name` already taken
    is refused; without one, the source's own name or the first free variant of it is used."""
    data = read_source(source)
    if dest_name is not None:
        check_dest_name(dest_name)
        if documents.exists(f"{folder}/{dest_name}"):
            raise MaterialError(f"{folder}/{dest_name} already exists: pick another name or leave it out")
        name = dest_name
    else:
        name = free_name(documents, folder, _safe_name(Path(source).name))
    return name, PutFile(f"{folder}/{name}", data, (object_id,), f"Import {Path(source).name}")


def import_material(documents: ProjectDocuments, source: Path, material_id: str, title: str, kind: str,
                    provenance: str, before_subtask: str | None = None, dest_name: str | None = None) -> Compound:
    """Copy a file under materials/ and add it to the schedule, released at start or before a subtask."""
    check_new_id(material_id, taken_ids(documents, "material"), "material")
    if not title or not title.strip():
        raise MaterialError("a material needs a title: say what the file is")
    if before_subtask is not None:
        require_subtask(documents, before_subtask)
    entry_kind = _choice(kind, MaterialKind, "kind")
    entry_provenance = _choice(provenance, Provenance, "provenance")
    name, copy = import_file(documents, layout.MATERIALS_DIR, source, dest_name, material_id)
    entry = {"id": material_id, "file": name, "title": title.strip(), "kind": entry_kind,
             "provenance": entry_provenance, "release": _release(before_subtask)}
    return Compound(f"Import material {material_id}", [copy, add_material(documents, entry)])


def replace_material_file(documents: ProjectDocuments, material_id: str, source: Path,
                          dest_name: str | None = None) -> Compound:
    """Put `source` in place of a material's file: its id, title, kind, provenance, release and everything
    that names it stay. The file keeps its name when the new one has the same extension; otherwise it takes
    the new file's name (or `dest_name`), and the old file goes."""
    rel, path = object_location(documents, "material", material_id)
    entry = documents.node(rel, path)
    current = entry.get("file") if isinstance(entry, dict) else None
    if not current:
        raise MaterialError(f"material {material_id} is generated at release time by a script: it has no file to "
                            "replace (change its script instead)")
    data = read_source(source)
    old_rel = f"{layout.MATERIALS_DIR}/{current}"
    if dest_name is None and PurePosixPath(str(current)).suffix.lower() == Path(source).suffix.lower():
        return Compound(f"Replace the file of {material_id}",
                        [PutFile(old_rel, data, (material_id,), f"Replace the file of {material_id}")])
    if dest_name is not None:
        check_dest_name(dest_name)
        name = dest_name
        if name != current and documents.exists(f"{layout.MATERIALS_DIR}/{name}"):
            raise MaterialError(f"{layout.MATERIALS_DIR}/{name} already exists: pick another name or leave it out")
    else:
        name = free_name(documents, layout.MATERIALS_DIR, _safe_name(Path(source).name))
    label = f"Replace the file of {material_id} by {name}"
    edits: list[Command] = [PutFile(f"{layout.MATERIALS_DIR}/{name}", data, (material_id,), label)]
    if name != current:
        edits += [SetValue(rel, (*path, "file"), name, (material_id,), label),
                  PutFile(old_rel, None, (material_id,), label)]
    return Compound(label, edits)


def add_generated_release(documents: ProjectDocuments, material_id: str, title: str, script: str,
                          reads: list[str], before_subtask: str) -> InsertItem:
    """A material a script writes at release time from the agent's earlier outputs (`reads`,
    SUBTASK:PATH), released just before `before_subtask`: scripted feedback."""
    require_subtask(documents, before_subtask)
    if not reads:
        raise MaterialError(f"a generated material reads at least one agent output (SUBTASK:PATH) before "
                            f"{before_subtask}")
    entry = {"id": material_id, "title": title, "kind": GENERATED_KIND, "provenance": "scenario_assumption",
             "release": _release(before_subtask), "generated": {"script": script, "from": list(reads)}}
    return add_material(documents, entry)
