"""The git merge driver a project installs, so `git merge` (and `dbstudio sync`) merges its YAML
files object by object and its Markdown as text, never leaving conflict markers.

Installed in two parts: `.gitattributes` in the project (versioned: every clone has it) names the
driver for `*.yaml`, `*.yml` and `*.md`; the command git runs for it is in the clone's own git
config (not versioned), which `ensure_driver` writes on `dbstudio new`, `remote add` and `sync`.
Git runs `dbstudio merge-driver %O %A %B %P` from the top of the work tree; the driver writes the
merged text over %A, records what it could not settle in `.dbstudio/conflicts.json` and exits 1
then (git marks the file conflicted and the merge stops), 0 when the file merged cleanly.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath

import git

from studio.collab import conflicts as recorded
from studio.collab.conflicts import Conflict
from studio.collab.merge import MergeError, merge_yaml
from studio.store.atomic import write_atomic
from studio.store.layout import GITATTRIBUTES, MERGE_DRIVER, is_project_folder

DRIVER = MERGE_DRIVER
YAML_SUFFIXES = (".yaml", ".yml")


def driver_command() -> str:
    """What git runs: this Python and this package, so the clone's venv need not be on PATH."""
    return f'"{sys.executable}" -m studio.cli.main merge-driver %O %A %B %P'


def ensure_driver(repo: git.Repo, project: Path) -> bool:
    """The driver in the clone's config and `.gitattributes` in the project (both idempotent);
    True if `.gitattributes` was written (it is then an unsaved change of the project)."""
    with repo.config_writer() as config:
        config.set_value(f'merge "{DRIVER}"', "name", "DeliverBench Studio object-by-object merge")
        config.set_value(f'merge "{DRIVER}"', "driver", driver_command())
    attributes = Path(project) / ".gitattributes"
    text = attributes.read_text(encoding="utf-8") if attributes.exists() else ""
    if f"merge={DRIVER}" in text:
        return False
    write_atomic(attributes, (text + ("\n" if text and not text.endswith("\n") else "") + GITATTRIBUTES).encode())
    return True


def project_of(work_tree: Path, repo_path: str) -> tuple[Path, str]:
    """The project folder holding `repo_path` (relative to the work tree) and the path inside it;
    the work tree itself if no enclosing folder has a project.yaml."""
    target = work_tree / repo_path
    for folder in target.parents:
        if is_project_folder(folder):
            return folder, target.relative_to(folder).as_posix()
        if folder == work_tree:
            break
    return work_tree, PurePosixPath(repo_path).as_posix()


def head_commit(work_tree: Path) -> str:
    try:
        return git.Repo(work_tree).head.commit.hexsha
    except (ValueError, git.GitError):
        return ""


def run_driver(base: Path, ours: Path, theirs: Path, repo_path: str, work_tree: Path | None = None) -> int:
    """Merge one file as git asks: 0 merged, 1 conflicts recorded (ours' text kept where they are)."""
    work_tree = Path(work_tree or Path.cwd())
    project, file = project_of(work_tree, repo_path)
    head = head_commit(work_tree)
    base_text, ours_text, theirs_text = (_read(path) for path in (base, ours, theirs))
    found: list[Conflict] = []
    if file.endswith(YAML_SUFFIXES):
        try:
            merged = merge_yaml(base_text or None, ours_text, theirs_text, file)
        except MergeError:
            text, clean = merge_text(base_text, ours_text, theirs_text)
        else:
            text, clean = merged.text, not merged.conflicts
            found = [recorded.from_field(file, conflict, head) for conflict in merged.conflicts]
    else:
        text, clean = merge_text(base_text, ours_text, theirs_text)
    if not clean and not found:
        found = [Conflict(file, "(whole file)", "text", base_text, ours_text, theirs_text, head)]
        text = ours_text  # never conflict markers: the project still loads
    write_atomic(ours, text.encode("utf-8"))
    recorded.record(project, file, found)
    return 1 if found else 0


def merge_text(base: str, ours: str, theirs: str) -> tuple[str, bool]:
    """A line merge of three texts as `git merge-file` does it: (merged text, no conflict)."""
    if ours == theirs or base == theirs:
        return ours, True
    if base == ours:
        return theirs, True
    with tempfile.TemporaryDirectory(prefix="dbstudio-merge-") as folder:
        paths = [Path(folder) / name for name in ("ours", "base", "theirs")]
        for path, text in zip(paths, (ours, base, theirs), strict=True):
            path.write_text(text, encoding="utf-8")
        done = subprocess.run(["git", "merge-file", "-p", *map(str, paths)], capture_output=True, check=False)
    if done.returncode < 0 or done.returncode > 127:
        return ours, False
    return done.stdout.decode("utf-8", errors="replace"), done.returncode == 0


def _read(path: Path) -> str:
    try:
        return Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return Path(path).read_bytes().decode("latin-1")
