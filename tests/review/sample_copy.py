"""A copy of the bundled sample to break, and its review findings by rule."""

from __future__ import annotations

import shutil
from pathlib import Path

from studio.review import review_project
from studio.store.workspace import sample_project
from studio.validation import Finding


def copy_sample(tmp_path: Path) -> Path:
    root = tmp_path / "kestrel"
    shutil.copytree(sample_project(), root, ignore=shutil.ignore_patterns(".git"))
    return root


def findings(root: Path, rule_prefix: str) -> list[Finding]:
    return [f for f in review_project(root).findings if f.code.startswith(rule_prefix)]


def append(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def line_count(root: Path, rel: str) -> int:
    return len((root / rel).read_text(encoding="utf-8").splitlines())
