"""Comment threads on subtasks and criteria (comments/<thread-id>.yaml): open, reply, resolve, reopen,
list. Each write replaces one thread's file atomically and commits nothing: `dbstudio save` records it
with the project. The author of every message is the git identity a save would record."""

from __future__ import annotations

import difflib
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import git
from pydantic import ValidationError
from ruamel.yaml.comments import CommentedMap

from studio.errors import StudioError
from studio.model import CommentThread
from studio.store import layout
from studio.store.history import MissingIdentityError, ProjectRepository, identity_message
from studio.store.loader import load_project
from studio.store.repository_state import git_message, identity_problem
from studio.store.yamlfile import YamlDocument, YamlSyntaxError
from studio.validation.comments import comment_targets


class CommentError(StudioError):
    """A comment command that cannot be carried out (unknown target or thread, unreadable thread file)."""


@dataclass(frozen=True)
class Identity:
    name: str
    email: str | None


def git_identity(root: Path) -> Identity:
    """Who is writing: the author git would record for a save in this project (config or GIT_AUTHOR_*)."""
    repo = ProjectRepository(root)
    problem = identity_problem(repo.repo.git)
    if problem:
        raise MissingIdentityError(identity_message(problem, Path(str(repo.repo.working_tree_dir))))
    try:
        ident = str(repo.repo.git.execute(["git", "-c", "user.useConfigOnly=true", "var", "GIT_AUTHOR_IDENT"]))
    except git.GitCommandError as exc:
        raise MissingIdentityError(identity_message(git_message(exc), None)) from None
    name, _, rest = ident.partition(" <")
    email = rest.partition(">")[0]
    return Identity(name.strip(), email or None)


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _message(identity: Identity, text: str) -> CommentedMap:
    if not text.strip():
        raise CommentError("a comment needs a text: give it in quotes, e.g. \"factual support?\"")
    message = CommentedMap()
    message["author"] = identity.name
    if identity.email:
        message["email"] = identity.email
    message["at"] = _now()
    message["text"] = text.strip()
    return message


def _unknown_target(root: Path, target: str, known: set[str]) -> CommentError:
    close = difflib.get_close_matches(target, sorted(known), n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    return CommentError(f"no subtask or criterion '{target}' in {root}{hint}: comment on a subtask id such as "
                        "T03 or a criterion id such as T03-C02, as `dbstudio validate` and the rubric show them")


def add_thread(root: Path, target: str, text: str) -> CommentThread:
    """Open a thread on subtask or criterion `target` with `text` as its first message."""
    root = layout.project_folder(root)
    known = comment_targets(load_project(root).project)
    if target not in known:
        raise _unknown_target(root, target, known)
    identity = git_identity(root)
    data = CommentedMap()
    data["id"] = f"th-{uuid.uuid4().hex[:10]}"  # random: two clones never pick the same file
    data["target"] = target
    data["opened_by"] = identity.name
    data["opened_at"] = _now()
    data["messages"] = [_message(identity, text)]
    path = layout.comment_file(root, data["id"])
    path.parent.mkdir(exist_ok=True)
    document = YamlDocument(path=path, data=data, text="")
    return _save(document)


def _open(root: Path, thread_id: str) -> YamlDocument:
    root = layout.project_folder(root)
    path = layout.comment_file(root, thread_id)
    if "/" in thread_id or "\\" in thread_id or not path.is_file():
        ids = sorted(p.stem for p in layout.comment_files(root))
        listed = f"; its threads: {', '.join(ids)}" if ids else "; it has no threads yet"
        raise CommentError(f"no comment thread '{thread_id}' in {root} (no file {layout.COMMENTS_DIR}/"
                           f"{thread_id}.yaml){listed}. `dbstudio comment {root} list` shows them")
    try:
        document = YamlDocument.load(path)
    except YamlSyntaxError as exc:
        raise CommentError(f"{layout.COMMENTS_DIR}/{path.name}:{exc.line}:{exc.column}: {exc.message}: fix the "
                           "file (or restore it with `dbstudio restore`), then try again") from None
    _validated(document)
    return document


def _validated(document: YamlDocument) -> CommentThread:
    rel = f"{layout.COMMENTS_DIR}/{document.path.name}"
    try:
        return CommentThread.model_validate(document.data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(step for step in error["loc"] if isinstance(step, str | int))
        line, column = document.locate(loc)
        field = ".".join(str(step) for step in loc) or "the thread"
        raise CommentError(f"{rel}:{line}:{column}: {field}: {error['msg']}: fix the file (`dbstudio validate` "
                           "lists every problem), then try again") from None


def _save(document: YamlDocument) -> CommentThread:
    thread = _validated(document)
    document.save()
    return thread


def reply(root: Path, thread_id: str, text: str) -> CommentThread:
    """Add `text` as the thread's newest message (a resolved thread takes replies too and stays resolved)."""
    document = _open(root, thread_id)
    document.data["messages"].append(_message(git_identity(Path(root)), text))
    return _save(document)


def resolve(root: Path, thread_id: str) -> CommentThread:
    document = _open(root, thread_id)
    if document.data.get("resolved_by") is not None:
        raise CommentError(f"thread {thread_id} is already resolved (by {document.data['resolved_by']}): "
                           f"`dbstudio comment {root} reopen {thread_id}` opens it again")
    identity = git_identity(Path(root))
    # Above the messages, which stay last: a resolution in one clone and a reply (appended at the end
    # of the file) in another touch distant lines, and git merges them without a conflict.
    data = document.data
    place = list(data).index("messages") if "messages" in data else len(data)
    data.insert(place, "resolved_by", identity.name)
    data.insert(place + 1, "resolved_at", _now())
    return _save(document)


def reopen(root: Path, thread_id: str) -> CommentThread:
    document = _open(root, thread_id)
    if document.data.get("resolved_by") is None:
        raise CommentError(f"thread {thread_id} is open already: nothing to reopen")
    for key in ("resolved_by", "resolved_at"):
        document.data.pop(key, None)
    return _save(document)


def list_threads(root: Path, target: str | None = None, only_open: bool = False) -> list[CommentThread]:
    """The project's threads, oldest first (about `target` only, open ones only when asked)."""
    root = layout.project_folder(root)
    project = load_project(root).project
    if target is not None and target not in comment_targets(project) and \
            not any(thread.target == target for thread in project.comments.values()):
        raise _unknown_target(root, target, comment_targets(project))
    threads = [thread for thread in project.comments.values()
               if (target is None or thread.target == target) and not (only_open and thread.resolved)]
    return sorted(threads, key=lambda thread: (thread.opened_at, thread.id))


def unreadable_threads(root: Path) -> list[str]:
    """`file:line:column: message` for each thread file that does not load (list leaves them out)."""
    loaded = load_project(layout.project_folder(root))
    found = []
    for problem in loaded.problems:
        if problem.file.startswith(layout.COMMENTS_DIR + "/"):
            line, column = loaded.locate(problem)
            found.append(f"{problem.file}:{line}:{column}: {problem.message}")
    return found
