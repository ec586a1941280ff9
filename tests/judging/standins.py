"""Minimal stand-ins of the evidence and verdict-store modules (written by other parts of issue 14),
used by these tests only while those modules are not on this branch; conftest.py installs them
only when the real ones cannot be imported. They follow docs' interfaces (judging-design)."""

from __future__ import annotations

import hashlib
import re
import sys
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel


@dataclass(frozen=True)
class _FileEvidence:
    path: str
    text: str
    sha256: str


@dataclass(frozen=True)
class _Evidence:
    files: tuple[_FileEvidence, ...]

    def render(self) -> str:
        return "\n\n".join(f"## {f.path}\n[{f.path}#L1]\n{f.text}" for f in self.files)

    def content_key(self) -> str:
        digest = hashlib.sha256()
        for f in self.files:
            digest.update(f"{f.path}\0{f.sha256}\n".encode())
        return digest.hexdigest()

    def images(self) -> list[Path]:
        return []


def _extract_evidence(folder: Path, paths: Sequence[str] | None = None, limits: Any = None) -> _Evidence:
    folder = Path(folder)
    chosen = list(paths) if paths is not None else sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    found = []
    for rel in chosen:
        data = (folder / rel).read_bytes()
        found.append(_FileEvidence(rel, data.decode("utf-8", "replace"), hashlib.sha256(data).hexdigest()))
    return _Evidence(tuple(found))


class _Verdict(BaseModel):
    criterion: str
    scope: str
    verdict: Literal["pass", "fail", "na", "missing"]
    rater: str
    time: datetime
    criterion_version: str
    note: str | None = None
    evidence: list[str] = []
    key: str | None = None


def _criterion_version(criterion: Any) -> str:
    return hashlib.sha256(f"{criterion.text}\0{criterion.weight}\0{criterion.gate}".encode()).hexdigest()[:16]


class _VerdictStore:
    def __init__(self, project_dir: Path) -> None:
        self.root = Path(project_dir) / "verdicts"

    def path(self, submission_id: str, rater: str) -> Path:
        return self.root / submission_id / (re.sub(r"[^A-Za-z0-9._-]+", "-", rater) + ".yaml")

    def read(self, submission_id: str, rater: str) -> list[_Verdict]:
        path = self.path(submission_id, rater)
        if not path.is_file():
            return []
        return [_Verdict.model_validate(item) for item in yaml.safe_load(path.read_text()) or []]

    def raters(self, submission_id: str) -> list[str]:
        folder = self.root / submission_id
        return sorted({v.rater for p in folder.glob("*.yaml") for v in self._file(p)}) if folder.is_dir() else []

    def _file(self, path: Path) -> list[_Verdict]:
        return [_Verdict.model_validate(item) for item in yaml.safe_load(path.read_text()) or []]

    def submissions(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir()) if self.root.is_dir() else []

    def put(self, submission_id: str, verdicts: Sequence[_Verdict]) -> None:
        by_rater: dict[str, list[_Verdict]] = {}
        for verdict in verdicts:
            by_rater.setdefault(verdict.rater, []).append(verdict)
        for rater, new in by_rater.items():
            kept = {(v.scope, v.criterion): v for v in self.read(submission_id, rater)}
            kept.update({(v.scope, v.criterion): v for v in new})
            path = self.path(submission_id, rater)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(yaml.safe_dump([kept[k].model_dump(mode="json") for k in sorted(kept)], sort_keys=False))

    def all(self) -> Iterator[tuple[str, _Verdict]]:
        for sid in self.submissions():
            for path in sorted((self.root / sid).glob("*.yaml")):
                for verdict in self._file(path):
                    yield sid, verdict


def install() -> list[str]:
    """Put a stand-in in sys.modules for each module that cannot be imported; the names installed."""
    installed = []
    modules = {
        "studio.judging.evidence": {"extract_evidence": _extract_evidence, "Evidence": _Evidence},
        "studio.judging.verdicts": {"Verdict": _Verdict, "criterion_version": _criterion_version},
        "studio.judging.verdict_store": {"VerdictStore": _VerdictStore},
    }
    for name, members in modules.items():
        try:
            __import__(name)
        except ImportError:
            module = types.ModuleType(name)
            module.__dict__.update(members)
            sys.modules[name] = module
            installed.append(name)
    return installed
