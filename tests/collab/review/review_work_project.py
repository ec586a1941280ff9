"""A project for the review-work tests: the review tests' project (T01 with ten criteria, one judged run)
whose T02 and final rubrics are judged too, and a second run judged on every scope: 36 decisions over
three scopes, every one with a judge's verdict in the real verdict store."""

from __future__ import annotations

import contextlib
import io
from datetime import UTC, datetime
from pathlib import Path

from studio.cli.main import main
from studio.judging.decisions import current_versions
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict
from tests.judging.projects import RUN_ID, load
from tests.judging.review_project import JUDGE, review_project

SECOND_RUN = "20261201-090000-d4e5f6"
SCOPES = ("T01", "T02", "final")
T1 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def review_work_project(tmp_path: Path) -> Path:
    root = review_project(tmp_path)
    versions = current_versions(load(root).project)
    store = VerdictStore(root)
    for run in (RUN_ID, SECOND_RUN):
        store.put(run, [
            Verdict(criterion=criterion, scope=scope, verdict="pass", rater=JUDGE, time=T1,
                    criterion_version=version, note="judged")
            for (scope, criterion), version in sorted(versions.items())
            if run == SECOND_RUN or scope != "T01"])
    return root


def cli(*argv: str) -> tuple[int, str, str]:
    """Run `dbstudio ARGV` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse refusing an option
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()
