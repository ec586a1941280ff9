"""The project as a saved revision holds it: its YAML files read from git (as `dbstudio diff` reads
an old revision, `ProjectRepository.read_at`) and loaded by the one loader, over the folder's own
load so that a file the revision lacks is absent and every other file is read as the revision has it."""

from __future__ import annotations

from pathlib import Path

from studio.store import layout
from studio.store.history import ProjectRepository
from studio.store.history_errors import HistoryError
from studio.store.loader import LoadedProject, load_project, reload_files


def load_project_at(root: Path, rev: str = "HEAD") -> tuple[LoadedProject, str]:
    """(the project's YAML files as revision `rev` has them, loaded; the revision's full commit id).
    HistoryError when the folder is not under git, has no saved revision or `rev` is unknown, or a
    file there is no UTF-8 text. Materials, instructions and other files are the folder's (the model
    reads only the YAML)."""
    repo = ProjectRepository(Path(root))
    if not repo.has_commits():
        raise HistoryError(f"{repo.root} has no saved revision yet: save one first (`dbstudio save "
                           f"{repo.root} -m MESSAGE`), or compare nothing")
    sha = repo.resolve(rev)
    now = load_project(repo.root)
    texts: dict[str, str | None] = {}
    for rel in repo.files_at(sha):
        if not layout.is_project_yaml(rel):
            continue
        data = repo.read_at(sha, rel)
        if data is None:
            continue  # a link or a submodule there: not a file the loader would read
        try:
            texts[rel] = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise HistoryError(f"{rel} at revision {sha[:8]} is not UTF-8 text (byte {exc.start}): "
                               "that revision cannot be read as a project") from None
    for path in layout.yaml_files(repo.root):
        texts.setdefault(path.relative_to(repo.root).as_posix(), None)  # absent at the revision
    return reload_files(now, texts), sha
