"""Mutation testing end to end on the sample with the tests' judge (a loopback chat-completions server):
the reference scores near 100, the criteria written for a correction kill the mutant that leaves it
unapplied, and without them it survives and becomes a review finding; verdicts on unchanged evidence are
reused, a cancelled run goes on where it stopped, and without a judge only the checks decide."""

from __future__ import annotations

from pathlib import Path

from studio.judging.judge import JudgeSettings
from studio.mutation.report import KILLED, NOT_RUN, SURVIVED, UNDECIDED, read_report
from studio.mutation.runner import mutate_project
from studio.review.runner import review_project
from studio.store.loader import load_project
from studio.store.yamlfile import YamlDocument
from tests.judging.chat_server import ChatServer
from tests.mutation.reference_package import build_reference, sample_copy

CORRECTIONS = ["correction-not-applied"]


def _remove_criteria(project: Path, rel: str, ids: set[str]) -> None:
    document = YamlDocument.load(project / rel)
    items = document.data["criteria"]
    for index in reversed(range(len(items))):
        if (items[index].get("id") or items[index].get("reuse_of")) in ids:
            del items[index]
    document.save()


def _add_criterion(project: Path, rel: str, text: str) -> None:
    path = project / rel
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n" + text, encoding="utf-8")


def _findings(project: Path, rule: str) -> list:
    return [f for f in review_project(project).findings if f.code == rule]


def test_reference_near_100_and_a_correction_killed_by_the_criteria_written_for_it(
        referenced: Path, judge: JudgeSettings) -> None:
    report = mutate_project(referenced, judge, CORRECTIONS)
    assert report.process is not None and report.process >= 95
    assert report.final is not None and report.final >= 95
    assert not [scope for scope, result in report.reference.items() if result.failing]
    by_id = {result.id: result for result in report.mutants}
    project = load_project(referenced).project
    checked = 0
    for result in report.mutants:
        rubric = project.rubric(result.scope)
        artifact = result.mutant["artifact"]
        written_for = {c.key for c in rubric.criteria if "M12" in (project.scored_as(result.scope, c) or c).propagates
                       and artifact in c.covers}
        if not written_for:
            continue  # no criterion of this rubric was written for the correction in this file
        checked += 1
        assert result.status == KILLED, (result.id, result.status)
        assert written_for <= set(result.killed_by), (result.id, result.killed_by)
        assert result.drop is not None and result.drop > 0
    assert checked >= 3
    assert by_id["corr-T07-01"].killed_by == ["T07-C01"]
    assert read_report(referenced).to_json() == report.to_json()  # what review reads is what was found
    assert not _findings(referenced, "mutation.survived")


def test_without_those_criteria_it_survives_and_the_review_suggests_one(referenced: Path, judge: JudgeSettings) -> None:
    _remove_criteria(referenced, "subtasks/T07/rubric.yaml", {"T07-C01"})
    _remove_criteria(referenced, "final/rubric.yaml", {"T07-C01"})  # its reuse in the final rubric
    report = mutate_project(referenced, judge, CORRECTIONS)
    mutant = next(result for result in report.mutants if result.id == "corr-T07-01")
    assert (mutant.status, mutant.killed_by, mutant.drop) == (SURVIVED, [], 0.0)
    found = [f for f in _findings(referenced, "mutation.survived") if "corr-T07-01" in f.message]
    assert len(found) == 1
    finding = found[0]
    assert finding.file == "subtasks/T07/rubric.yaml" and finding.line == 2  # at the rubric's criteria
    assert "FY2025 EBITDA left at the superseded 41.8 instead of 38.9" in finding.message
    assert "uses FY2025 EBITDA of 38.9, as corrected by M12" in finding.message
    # the other mutants are still killed: only the gap this rubric edit opened is reported
    assert {r.id for r in report.mutants if r.status == SURVIVED} <= {"corr-T07-01", "corr-final-03"}


def test_verdicts_on_unchanged_evidence_are_reused(referenced: Path, judge: JudgeSettings,
                                                   judge_server: ChatServer) -> None:
    first = mutate_project(referenced, judge, ["file-removed"])
    asked = len(judge_server.requests)
    assert asked > 0 and first.requests == asked
    second = mutate_project(referenced, judge, ["file-removed"])
    assert len(judge_server.requests) == asked  # nothing asked again
    assert second.requests == 0 and second.reused > 0
    assert [(r.id, r.status, r.killed_by) for r in second.mutants] == [(r.id, r.status, r.killed_by)
                                                                      for r in first.mutants]


def test_a_cancelled_run_goes_on_where_it_stopped(referenced: Path, judge: JudgeSettings,
                                                  judge_server: ChatServer, tmp_path: Path) -> None:
    seen: list[str] = []

    def progress(step) -> None:
        seen.append(step.label)

    stop_after = 14  # the 11 rubrics of the reference, then three mutants
    report = mutate_project(referenced, judge, ["file-removed"], progress, lambda: len(seen) > stop_after)
    assert report.cancelled
    statuses = [r.status for r in report.mutants]
    assert statuses.count(NOT_RUN) > 0 and statuses.count(KILLED) >= 3
    first_requests = len(judge_server.requests)
    resumed = mutate_project(referenced, judge, ["file-removed"])
    assert not resumed.cancelled and NOT_RUN not in [r.status for r in resumed.mutants]
    assert 0 < resumed.requests and len(judge_server.requests) == first_requests + resumed.requests
    # together the two asked exactly what one uninterrupted run asks: nothing twice, nothing left out
    whole = sample_copy(tmp_path / "whole")
    build_reference(whole)
    uninterrupted = mutate_project(whole, judge, ["file-removed"])
    assert first_requests + resumed.requests == uninterrupted.requests
    assert [(r.id, r.status) for r in resumed.mutants] == [(r.id, r.status) for r in uninterrupted.mutants]


CHECK_CRITERION = """\
  - id: T06-C99
    text: The revised model holds restated FY2025 EBITDA of 38.9.
    covers:
      - T06:outputs/financing_model.xlsx
    target: checkpoint
    dimension: correctness
    weight: 2
    check:
      kind: contains
      path: outputs/financing_model.xlsx
      value: 38.9
"""


def test_without_a_judge_only_the_checks_decide(referenced: Path) -> None:
    _add_criterion(referenced, "subtasks/T06/rubric.yaml", CHECK_CRITERION)
    report = mutate_project(referenced, None, CORRECTIONS)
    by_id = {result.id: result for result in report.mutants}
    assert (by_id["corr-T06-01"].status, by_id["corr-T06-01"].killed_by) == (KILLED, ["T06-C99"])
    assert {r.status for r in report.mutants if r.id != "corr-T06-01"} == {UNDECIDED}
    assert report.judge is None and report.requests == 0
    t06 = report.reference["T06"]
    assert t06.score is None and t06.low < t06.high  # the other criteria are not decided: a range
    assert not _findings(referenced, "mutation.survived")  # undecided is no gap


FAILED_BY_THE_REFERENCE = """\
  - id: T02-C99
    text: The findings value the depot at EUR 777.7m.
    covers:
      - T02:outputs/fleet_and_permit_findings.md
    target: checkpoint
    dimension: correctness
    weight: 3
"""


def test_a_criterion_the_reference_fails_is_a_finding_and_an_edit_makes_the_report_stale(
        referenced: Path, judge: JudgeSettings) -> None:
    _add_criterion(referenced, "subtasks/T02/rubric.yaml", FAILED_BY_THE_REFERENCE)
    report = mutate_project(referenced, judge, ["file-removed"])
    assert report.reference["T02"].failing == ["T02-C99"]
    assert report.reference["T02"].score is not None and report.reference["T02"].score < 100
    (finding,) = _findings(referenced, "mutation.reference-fails")
    assert finding.file == "subtasks/T02/rubric.yaml" and finding.object_id == "T02-C99"
    text = (referenced / "subtasks/T02/rubric.yaml").read_text(encoding="utf-8")
    (referenced / "subtasks/T02/rubric.yaml").write_text(text.replace("777.7m", "71.6m"), encoding="utf-8")
    assert not _findings(referenced, "mutation.reference-fails")
    (stale,) = _findings(referenced, "mutation.stale")
    assert "T02" in stale.message and "run `dbstudio mutate` again" in stale.message


def test_one_run_of_a_project_at_a_time(referenced: Path) -> None:
    import pytest
    from filelock import FileLock

    from studio.mutation.reference import MutationError

    held = FileLock(referenced / ".dbstudio/mutation/.lock")
    (referenced / ".dbstudio/mutation").mkdir(parents=True, exist_ok=True)
    with held, pytest.raises(MutationError, match="another mutation run of this project is under way"):
        mutate_project(referenced, None, ["file-removed"])
    assert mutate_project(referenced, None, ["file-removed"]).mutants  # free again
