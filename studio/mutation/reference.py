"""The reference package: the expert's own deliverables for each checkpoint and the final package.

It lives under evaluator/reference/ (evaluator-only: no run, export or instruction ever carries a file of
evaluator/), one folder per scope holding the files as that scope's submission would hold them:

    evaluator/reference/T01/outputs/net_debt_baseline.xlsx
    evaluator/reference/T06/outputs/financing_model.xlsx
    evaluator/reference/final/final/financing_model.xlsx      (optional: see below)
    evaluator/reference/reference.yaml                       (optional: the corrections to plant)

A checkpoint's submission is the workspace as the agent leaves it, so the reference submission of
subtask Tk is every earlier subtask's folder with Tk's laid over it (a later version of a file replaces
the earlier one). The final package holds each final deliverable: the file of final/ when the expert put
one there, else the file its `produced_by` output names, as the workspace holds it after the last
subtask — the way a run's final package is assembled.

reference.yaml names what a correction changed, which the project files do not say in figures:

    corrections:
      - material: M12
        what: FY2025 EBITDA
        from: 41.8
        to: 38.9
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from pydantic import Field, ValidationError, field_validator

from studio.errors import StudioError
from studio.model.base import Identifier, StrictModel
from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout
from studio.store.yamlfile import YamlDocument, YamlSyntaxError

if TYPE_CHECKING:
    from studio.model import Project

__all__ = ["Correction", "MutationError", "ReferencePackage", "load_reference"]


class MutationError(StudioError):
    """The reference package or a mutation run cannot go on; the message names the file and the fix."""


class Correction(StrictModel):
    """A figure a material corrects: `from` is the superseded value, `to` the corrected one."""

    material: Identifier = Field(description="The material that makes the correction (it lists what it corrects).")
    what: str = Field(min_length=1, description="What the figure is, in the project's words: 'FY2025 EBITDA'.")
    old: str = Field(alias="from", description="The superseded value, as the deliverables write it: 41.8.")
    new: str = Field(alias="to", description="The corrected value, as the deliverables write it: 38.9.")

    model_config = StrictModel.model_config | {"populate_by_name": True}

    @field_validator("old", "new", mode="before")
    @classmethod
    def _figure(cls, value: object) -> object:
        if isinstance(value, bool):
            raise ValueError("give the figure as written in the deliverables, e.g. 41.8")
        if isinstance(value, int | float):
            return repr(value) if isinstance(value, float) else str(value)
        if isinstance(value, str) and not value.strip():
            raise ValueError("give the figure as written in the deliverables, e.g. 41.8")
        return value.strip() if isinstance(value, str) else value


_KEYS = "material, what, from and to"


class ReferenceFile(StrictModel):
    """Contents of evaluator/reference/reference.yaml."""

    corrections: list[Correction] = Field(default_factory=list)


@dataclass
class ReferencePackage:
    """The reference package of one project: its scope folders and the corrections to plant."""

    root: Path  # evaluator/reference
    timeline: list[str]
    folders: dict[str, Path]  # scope -> the expert's folder for it (only the scopes the package has)
    corrections: list[Correction] = field(default_factory=list)
    produced_by: dict[str, str] = field(default_factory=dict)  # final deliverable path -> workspace path

    @property
    def scopes(self) -> list[str]:
        """The scopes the package gives files for, along the timeline, final last."""
        order = [*self.timeline, FINAL_SCOPE]
        return [scope for scope in order if scope in self.folders]

    def own_files(self, scope: str) -> dict[str, Path]:
        """The files the expert put in `scope`'s folder, by their path in the submission."""
        folder = self.folders.get(scope)
        return _files_under(folder) if folder is not None else {}

    def submission_files(self, scope: str) -> dict[str, Path]:
        """The reference submission of `scope`: for a subtask the workspace after it (the earlier subtasks'
        files with its own laid over them); for final the package assembled as a run's would be."""
        if scope == FINAL_SCOPE:
            workspace = self._workspace(len(self.timeline))
            found: dict[str, Path] = {}
            for path, source in self.produced_by.items():
                if source in workspace:
                    found[path] = workspace[source]
            found.update(self.own_files(FINAL_SCOPE))
            return dict(sorted(found.items()))
        if scope not in self.timeline:
            raise MutationError(f"{scope} is not a subtask on the project's timeline")
        return self._workspace(self.timeline.index(scope) + 1)

    def _workspace(self, upto: int) -> dict[str, Path]:
        files: dict[str, Path] = {}
        for subtask in self.timeline[:upto]:
            files.update(self.own_files(subtask))
        return dict(sorted(files.items()))

    def key(self) -> str:
        """A hash of every file of the package, reference.yaml included: a report made on other files is stale."""
        digest = hashlib.sha256()
        for rel, path in _files_under(self.root).items():
            digest.update(rel.encode("utf-8") + b"\0")
            digest.update(_file_digest(path))
        return digest.hexdigest()[:16]

    def materialize(self, scope: str, target: Path) -> Path:
        """Write the reference submission of `scope` to `target` (emptied first)."""
        target = Path(target)
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for rel, source in self.submission_files(scope).items():
            destination = target / rel
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
        return target


# path -> (mtime_ns, size, sha256): the review asks for the package's key after every edit in the app
_DIGESTS: dict[Path, tuple[int, int, bytes]] = {}


def _file_digest(path: Path) -> bytes:
    stat = path.stat()
    known = _DIGESTS.get(path)
    if known is not None and known[:2] == (stat.st_mtime_ns, stat.st_size):
        return known[2]
    with open(path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").digest()
    _DIGESTS[path] = (stat.st_mtime_ns, stat.st_size, digest)
    return digest


def _files_under(folder: Path) -> dict[str, Path]:
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink() and not any(part.startswith(".") for part in
                                                                  path.relative_to(folder).parts):
            found[path.relative_to(folder).as_posix()] = path
    return found


def load_reference(project_dir: Path, project: Project) -> ReferencePackage:
    """The project's reference package; MutationError naming the file and the fix when it has none or
    when its folders or reference.yaml do not fit the project."""
    project_dir = Path(project_dir)
    root = project_dir / layout.REFERENCE_PACKAGE_DIR
    if not root.is_dir():
        raise MutationError(
            f"{project_dir}: the project has no reference package: put the expert's own deliverables under "
            f"{layout.REFERENCE_PACKAGE_DIR}/<SUBTASK>/ (each checkpoint's outputs at their paths) and optionally "
            f"{layout.REFERENCE_PACKAGE_DIR}/final/ (docs/rubric-testing.md)"
        )
    timeline = project.timeline()
    folders: dict[str, Path] = {}
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or entry.is_file():
            continue
        if entry.name != FINAL_SCOPE and entry.name not in timeline:
            known = ", ".join(timeline[:6]) + (", ..." if len(timeline) > 6 else "")
            raise MutationError(
                f"{entry}: '{entry.name}' is neither a subtask of the project's timeline ({known}) nor 'final': "
                "rename the folder to the subtask whose checkpoint it holds"
            )
        folders[entry.name] = entry
    if not folders:
        raise MutationError(f"{root}: the reference package is empty: add a folder per checkpoint (T01/, ...) "
                            "holding the expert's outputs at their paths (docs/rubric-testing.md)")
    corrections = _corrections(root / PurePosixPath(layout.REFERENCE_PACKAGE_FILE).name, project)
    produced_by: dict[str, str] = {}
    if project.info is not None:
        for deliverable in project.info.delivery.final_deliverables:
            produced_by[deliverable.path] = str(deliverable.produced_by).split(":", 1)[-1]
    return ReferencePackage(root, timeline, folders, corrections, produced_by)


def _corrections(path: Path, project: Project) -> list[Correction]:
    if not path.is_file():
        return []
    try:
        document = YamlDocument.load(path)
    except YamlSyntaxError as exc:
        raise MutationError(f"{path}:{exc.line}:{exc.column}: {exc.message}") from None
    except OSError as exc:
        raise MutationError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        parsed = ReferenceFile.model_validate(document.data or {})
    except ValidationError as exc:
        from studio.store.schema_messages import clean_loc

        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")  # a typo explains a missing key
        error = errors[0]
        loc = clean_loc(error["loc"])
        line, column = document.locate(loc)
        last = str(loc[-1]) if loc else ""
        where = f"correction {loc[1] + 1}: " if len(loc) > 1 and isinstance(loc[1], int) else ""
        if error["type"] == "extra_forbidden":
            problem = f"unknown key '{last}': remove it or check its spelling (a correction has {_KEYS})"
        elif error["type"] == "missing":
            problem = f"missing required key '{last}' (a correction has {_KEYS})"
        else:
            problem = f"'{last}': {error['msg'].removeprefix('Value error, ')}"
        raise MutationError(f"{path}:{line}:{column}: {where}{problem}") from None
    for index, correction in enumerate(parsed.corrections):
        material = project.material(correction.material)
        if material is None:
            line, column = document.locate(("corrections", index, "material"))
            raise MutationError(f"{path}:{line}:{column}: correction of '{correction.what}': no material "
                                f"{correction.material} in materials.yaml: name the material that makes the correction")
        if correction.old == correction.new:
            line, column = document.locate(("corrections", index, "to"))
            raise MutationError(f"{path}:{line}:{column}: correction of '{correction.what}': 'from' and 'to' are "
                                f"both {correction.new}: give the superseded value and the corrected one")
    return parsed.corrections
