"""What a git repository must be like before a save: no merge half done, an author known.

Each check only reads; a save runs them all before it stages anything, so a refused save
leaves the index and the files exactly as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import git

# Files git leaves in its folder while an operation waits for the user, and how to end each.
_OPERATIONS = [
    ("MERGE_HEAD", "a merge", "finish it with `git commit` or undo it with `git merge --abort`"),
    ("rebase-merge", "a rebase", "finish it with `git rebase --continue` or undo it with `git rebase --abort`"),
    ("rebase-apply", "a rebase", "finish it with `git rebase --continue` or undo it with `git rebase --abort`"),
    ("CHERRY_PICK_HEAD", "a cherry-pick",
     "finish it with `git cherry-pick --continue` or undo it with `git cherry-pick --abort`"),
    ("REVERT_HEAD", "a revert", "finish it with `git revert --continue` or undo it with `git revert --abort`"),
]

IDENTITY_COMMANDS = 'git config --global user.name "Your Name"\n  git config --global user.email "you@example.com"'


@dataclass(frozen=True)
class Interruption:
    """A git operation that stopped half-way and waits for the user."""

    operation: str  # "a merge", "a rebase", ...
    how_to_end: str
    conflicts: tuple[str, ...]  # repository paths with unresolved conflicts


def interruption(repo: git.Repo) -> Interruption | None:
    """The half-done merge, rebase, cherry-pick or revert, or unresolved conflicts, if any."""
    git_dir = Path(repo.git_dir)
    conflicts = unmerged_paths(repo)
    for marker, operation, how_to_end in _OPERATIONS:
        if (git_dir / marker).exists():
            return Interruption(operation, how_to_end, conflicts)
    if conflicts:
        # Conflicts without an operation: left by `git stash pop` or `git checkout -m`.
        return Interruption("conflict resolution", "mark each fixed file with `git add FILE`", conflicts)
    return None


def merge_head(repo: git.Repo) -> str | None:
    """The commit a merge in progress is merging (git's MERGE_HEAD), or None when none is."""
    try:
        return Path(repo.git_dir, "MERGE_HEAD").read_text(encoding="ascii").strip() or None
    except OSError:
        return None


def unmerged_paths(repo: git.Repo) -> tuple[str, ...]:
    out = repo.git.ls_files("--unmerged", "-z")
    paths = {entry.split("\t", 1)[1] for entry in out.split("\0") if "\t" in entry}
    return tuple(sorted(paths))


def interruption_message(found: Interruption) -> str:
    if found.conflicts:
        more = len(found.conflicts) - 5
        shown = ", ".join(found.conflicts[:5]) + (f" and {more} more" if more > 0 else "")
        return (f"the repository is in the middle of {found.operation} with unresolved conflicts in {shown}: "
                "edit those files to remove the conflict markers (<<<<<<<, =======, >>>>>>>), "
                f"mark each with `git add FILE`, then {found.how_to_end}; save again afterwards")
    return f"the repository is in the middle of {found.operation}: {found.how_to_end}, then save again"


def identity_problem(runner: git.Git) -> str | None:
    """Why git cannot name the author of a commit made where `runner` works; None if it can.

    Only an identity set on purpose counts (git config at any level, or the GIT_AUTHOR_* and
    GIT_COMMITTER_* variables): git's guess from the host name would record a wrong author.
    """
    for role in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
        try:
            runner.execute(["git", "-c", "user.useConfigOnly=true", "var", role])
        except git.GitCommandError as exc:
            # "auto-detection is disabled" is our doing (useConfigOnly): say what is missing instead.
            reason = git_message(exc).replace(" was given and auto-detection is disabled", " is set")
            return reason or "no user.name and user.email are set"
    return None


def detached_head(repo: git.Repo) -> str | None:
    """The commit HEAD is detached at (not on any branch), or None when on a branch."""
    try:
        if repo.head.is_detached:
            return repo.head.commit.hexsha
    except (ValueError, TypeError):
        return None
    return None


def git_message(exc: git.GitCommandError) -> str:
    """The last line git printed when it failed, without GitPython's wrapping."""
    text = exc.stderr
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    lines = [line.strip().removeprefix("stderr: ").strip("'").strip() for line in (text or "").splitlines()]
    lines = [line for line in lines if line and not line.startswith("hint:")]
    errors = [line for line in lines if line.startswith(("fatal:", "error:"))]
    if errors:
        return errors[-1].removeprefix("fatal:").removeprefix("error:").strip()
    return " ".join(lines)
