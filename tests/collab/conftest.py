"""Two experts sharing one project: a real bare repository and two real clones, each with its own
git identity, synced through the real `dbstudio` commands."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from studio.store.workspace import sample_project
from tests.helpers import git, run_cli


@dataclass
class Team:
    origin: Path
    ana: Path
    ben: Path
    capsys: pytest.CaptureFixture[str]

    def cli(self, *argv: str) -> tuple[int, str, str]:
        return run_cli(self.capsys, *argv)

    def save(self, clone: Path, message: str) -> None:
        code, out, err = self.cli("save", str(clone), "-m", message)
        assert code == 0, err

    def sync(self, clone: Path) -> tuple[int, str, str]:
        return self.cli("sync", str(clone))


def edit(clone: Path, rel: str, old: str, new: str) -> None:
    path = clone / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def identity(clone: Path, name: str) -> None:
    git(clone, "config", "user.name", name)
    git(clone, "config", "user.email", f"{name.lower()}@experts.invalid")


@pytest.fixture
def team(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Team:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(origin))
    ana = Path(shutil.copytree(sample_project(), tmp_path / "ana"))
    git(ana, "init", "--quiet", "-b", "main")
    identity(ana, "Ana")
    git(ana, "add", "-A")
    git(ana, "commit", "--quiet", "-m", "The sample project")
    code, _, err = run_cli(capsys, "remote", str(ana), "add", "origin", str(origin))
    assert code == 0, err
    code, _, err = run_cli(capsys, "sync", str(ana))
    assert code == 0, err
    ben = tmp_path / "ben"
    git(tmp_path, "clone", "--quiet", str(origin), str(ben))
    identity(ben, "Ben")
    return Team(origin, ana, ben, capsys)
