"""Judge calibration on a copy of the blank template: agreement per criterion from the verdict
store, and the `calibration.low-agreement` review finding at the criterion in its rubric file."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.judging.calibration import MIN_AGREEMENT, MIN_DECISIONS, calibrate, read_settings
from studio.judging.decisions import current_versions
from studio.judging.verdict_store import VerdictStore
from studio.judging.verdicts import Verdict
from studio.review import review_project
from studio.store.loader import load_project
from tests.helpers import copy_blank, line_of, read, replace_in

T0 = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
JUDGE = "judge:m1"
RUNS = [f"run-{n:02d}" for n in range(10)]


def put(project: Path, submission: str, rater: str, verdicts: dict[tuple[str, str], str]) -> None:
    versions = current_versions(load_project(project).project)
    VerdictStore(project).put(submission, [
        Verdict(criterion=criterion, scope=scope, verdict=value, rater=rater, time=T0,  # type: ignore[arg-type]
                criterion_version=versions[(scope, criterion)]) for (scope, criterion), value in verdicts.items()])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Ten runs. T01-C01: the judge passes all ten, the expert fails runs 00-03 (6 of 10 agree).
    T02-C01: the expert fails run 00 only (9 of 10). A-01 on five runs: judge pass, expert fail (0 of 5).
    T02-C02: two experts differ on every run and nothing is adjudicated: no reference, no comparison."""
    root = copy_blank(tmp_path / "blank")
    for number, run in enumerate(RUNS):
        judged = {("T01", "T01-C01"): "pass", ("T02", "T02-C01"): "pass", ("T02", "T02-C02"): "pass"}
        settled = {("T01", "T01-C01"): "fail" if number < 4 else "pass",
                   ("T02", "T02-C01"): "fail" if number == 0 else "pass", ("T02", "T02-C02"): "pass"}
        if number < 5:
            judged[("final", "A-01")], settled[("final", "A-01")] = "pass", "fail"
        put(root, run, JUDGE, judged)
        put(root, run, "Anna", settled)
        put(root, run, "Ben", {("T02", "T02-C02"): "fail"})
    return root


def test_agreement_per_criterion_by_hand(project: Path) -> None:
    found = calibrate(VerdictStore(project), current_versions(load_project(project).project))
    table = {(c.scope, c.criterion): (c.decisions, len(c.disagreements), c.agreement) for c in found}
    assert table == {("T01", "T01-C01"): (10, 4, 0.6), ("T02", "T02-C01"): (10, 1, 0.9),
                     ("final", "A-01"): (5, 5, 0.0)}
    assert [c.criterion for c in found] == ["T01-C01", "T02-C01", "A-01"]  # along the timeline, final last
    low = next(c for c in found if c.criterion == "T01-C01")
    assert [c.submission for c in low.disagreements] == RUNS[:4]
    assert (MIN_DECISIONS, MIN_AGREEMENT) == (8, 0.75)
    assert [c.criterion for c in found if c.flagged()] == ["T01-C01"]  # A-01 has too few decisions
    assert [c.criterion for c in found if c.flagged(0.95, 5)] == ["T01-C01", "T02-C01", "A-01"]


def test_review_reports_the_low_agreement_criterion_at_its_text(project: Path) -> None:
    findings = [f for f in review_project(project).findings if f.code == "calibration.low-agreement"]
    assert len(findings) == 1
    finding = findings[0]
    rubric = read(project, "subtasks/T01/rubric.yaml")
    assert (finding.file, finding.line, finding.object_id) == ("subtasks/T01/rubric.yaml",
                                                               line_of(rubric, "text: The report states"), "T01-C01")
    assert finding.severity.value == "info"
    assert "6 of 10 decisions (60%, below 75%)" in finding.message
    assert "run-00 (judge:m1 pass, experts fail), run-01" in finding.message and "run-03" in finding.message
    assert "run-04" not in finding.message


def test_rewriting_the_criterion_clears_the_finding(project: Path) -> None:
    replace_in(project, "subtasks/T01/rubric.yaml", "in the first paragraph", "in its first two sentences")
    assert not [f for f in review_project(project).findings if f.code.startswith("calibration.")]


def test_project_settings_change_both_numbers(project: Path) -> None:
    settings = project / "verdicts" / "calibration.yaml"
    settings.write_text("min_agreement: 0.95\nmin_decisions: 5\n", encoding="utf-8")
    flagged = [f.object_id for f in review_project(project).findings if f.code == "calibration.low-agreement"]
    assert flagged == ["A-01", "T01-C01", "T02-C01"]  # sorted by file: final/ before subtasks/
    settings.write_text("min_agreement: 75\n", encoding="utf-8")
    assert read_settings(project)[1] is not None
    problems = [f for f in review_project(project).findings if f.code == "calibration.unreadable"]
    assert [(p.file, p.line, p.severity.value) for p in problems] == [("verdicts/calibration.yaml", 1, "warning")]
    assert "share from 0 to 1" in problems[0].message


def test_a_damaged_verdict_file_is_a_located_warning(project: Path) -> None:
    path = project / "verdicts" / "run-03" / "anna.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("verdict: fail", "verdict: nope", 1), encoding="utf-8")
    problems = [f for f in review_project(project).findings if f.code.startswith("calibration.")]
    assert [(p.code, p.file, p.severity.value) for p in problems] == [
        ("calibration.unreadable", "verdicts/run-03/anna.yaml", "warning")]
    assert problems[0].line == line_of(path.read_text(encoding="utf-8"), "verdict: nope")


def test_calibration_command_lists_every_criterion(project: Path, capsys) -> None:
    assert main(["verdicts", "calibration", str(project)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[1]: line.split()[2:6] for line in out.splitlines()[1:] if line and not line.startswith(" ")}
    assert rows == {"T01-C01": ["10", "6", "4", "60.0%"], "T02-C01": ["10", "9", "1", "90.0%"],
                    "A-01": ["5", "0", "5", "0.0%"]}
    assert "LOW" in next(line for line in out.splitlines() if "T01-C01" in line)
    assert main(["verdicts", "calibration", str(project), "--min-decisions", "5"]) == 0
    assert "LOW" in next(line for line in capsys.readouterr().out.splitlines() if "A-01" in line)


def test_the_sample_has_no_calibration_finding() -> None:
    from tests.helpers import REPO_ROOT

    report = review_project(REPO_ROOT / "projects" / "kestrel-refinancing")
    assert not [f for f in report.findings if f.code.startswith("calibration.")] and not report.has_errors
