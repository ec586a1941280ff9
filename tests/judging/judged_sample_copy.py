"""A copy of the sample project (five dimensions, four targets, ten checkpoints and the final
rubric) with three submissions judged on every scope through the real verdict store, and two
experts on some decisions: enough variety for the queue's filters."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from studio.judging.decisions import current_versions
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict
from studio.store.loader import load_project

SAMPLE = Path(__file__).resolve().parents[2] / "projects" / "kestrel-refinancing"
JUDGE = "judge:demo-judge"
EXPERTS = ("Marta Lindqvist", "Joris de Wit")
SUBMISSIONS = ("harness@run-a", "harness@run-b", "folder-c")
T0 = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


def judged_sample_copy(folder: Path) -> Path:
    root = folder / "kestrel"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".git", "runs", "verdicts"))
    versions = current_versions(load_project(root).project)
    store = VerdictStore(root)
    for number, submission in enumerate(SUBMISSIONS):
        given = []
        for position, ((scope, criterion), version) in enumerate(sorted(versions.items())):
            seed = (number * 37 + position * 11) % 23
            judge = "pass" if seed < 14 else "fail" if seed < 22 else "missing"
            given.append(Verdict(criterion=criterion, scope=scope, verdict=judge, rater=JUDGE, time=T0,
                                 criterion_version=version, note=f"Seen in the memo ({criterion})."))
            if seed % 3 == 0:
                value = judge if seed % 2 == 0 or judge == "missing" else ("fail" if judge == "pass" else "pass")
                given.append(Verdict(criterion=criterion, scope=scope, verdict="pass" if value == "missing" else value,
                                     rater=EXPERTS[number % 2], time=T0, criterion_version=version))
        store.put(submission, given)
    return root
