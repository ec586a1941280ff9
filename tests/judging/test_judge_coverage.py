"""Evidence per criterion, against a real chat-completions server on loopback: the files a criterion
covers are in every request that judges it, whole, whatever the size of the rest; a covered file too
large for the budget leaves its criteria missing, naming it; criteria are batched by what they cover,
which sends less than the whole submission in every batch; the requests of a submission share their
first part byte for byte; the model answers whether each statement holds and the role decides the score."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.cli.exit_codes import ExitCode
from studio.cli.main import main
from studio.judging.evidence import extract_evidence
from studio.judging.evidence_batches import coverage, scope_outputs
from studio.judging.judge import JudgeSettings, judge_submission
from studio.judging.prompt import SYSTEM_PROMPT, parse_answer
from studio.judging.score_sheet import ScopeScore, read_score_sheet
from studio.judging.submission import Submission, submission_of_folder
from studio.judging.verdict_store import VerdictStore
from studio.model.vocabulary import FINAL_SCOPE
from tests.helpers import copy_blank, replace_in, write
from tests.judging.chat_server import ChatServer, Reply, Request, completion
from tests.judging.projects import SCOPE, load

MODEL = "judge-model"
REPORT = "# Report\n\n" + "".join(f"Finding {n}: the covenant headroom is {n}.{n}x.\n" for n in range(1, 400))
OUTPUTS = ("outputs/report.md", "outputs/model.csv", "outputs/big.csv")


def material_csv(number: int, chars: int) -> str:
    """A released CSV of about `chars` characters, each row naming its material."""
    rows = ["period,revenue,ebitda,source"]
    row = 1
    while sum(len(line) + 1 for line in rows) < chars:
        rows.append(f"2026-{row:05d},{1000 + row},{200 + row % 97},material-{number}")
        row += 1
    return "\n".join(rows) + "\n"


def project_with(root: Path, criteria: list[tuple[str, str, int]], gate: str | None = None) -> Path:
    """The blank template whose T01 has three outputs and a rubric of (id, covered output, weight)."""
    copy_blank(root)
    replace_in(
        root,
        "subtasks/T01/subtask.yaml",
        "  - path: outputs/report.md\n    title: Report\n",
        "".join(f"  - path: {path}\n    title: Output {n}\n" for n, path in enumerate(OUTPUTS, 1)),
    )
    lines = ["criteria:"]
    for cid, covered, weight in criteria:
        text = (
            "The report cites a superseded figure."
            if weight < 0 or cid == gate
            else f"The file states what {cid} asks."
        )
        lines += [
            f"  - id: {cid}",
            f"    text: {text}",
            "    covers:",
            f"      - T01:{covered}",
            "    target: checkpoint",
            "    dimension: correctness",
            f"    weight: {weight}",
        ]
        if cid == gate:
            lines.append("    gate: true")
    write(root, "subtasks/T01/rubric.yaml", "\n".join(lines) + "\n")
    return root


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def settings(server: ChatServer, model: str = MODEL, **options: object) -> JudgeSettings:
    return JudgeSettings(base_url=server.url, model=model, timeout_s=10.0, backoff_s=0.01, **options)  # type: ignore[arg-type]


def judge(project: Path, submission: Submission, options: JudgeSettings, **extra: object):  # noqa: ANN201
    return judge_submission(load(project), submission, options, VerdictStore(project), **extra)


def stored(project: Path, submission: Submission, model: str = MODEL) -> dict:
    return {v.criterion: v for v in VerdictStore(project).read(submission.id, f"judge:{model}")}


def t01_score(project: Path) -> ScopeScore:
    """T01's score of the one submission, by the scoring engine from the stored verdicts."""
    return read_score_sheet(project, load(project).project, judge=f"judge:{MODEL}").by_scope()[0][SCOPE]


def token_of(request: Request) -> str:
    return request.body["messages"][0]["content"].rsplit(" ", 1)[1]


def sections(request: Request) -> dict[str, str]:
    """Each file's section of the request's evidence, by path."""
    token = token_of(request)
    evidence = request.user_text.split(f"<<<EVIDENCE {token}>>>\n", 1)[1].split(f"<<<END OF EVIDENCE {token}>>>", 1)[0]
    found = {}
    for part in evidence.split(f"<<<FILE {token}>>> ")[1:]:
        head, _, body = part.partition("\n")
        found[head.rsplit(" (", 1)[0]] = body
    return found


def eight_materials(folder: Path) -> None:
    for number in range(1, 9):
        write(folder, f"materials/m{number}.csv", material_csv(number, 88_000))


def test_the_covered_report_is_in_every_request_beside_eight_large_materials(
    tmp_path: Path, server: ChatServer
) -> None:
    criteria = [(f"T01-C{n:02d}", "outputs/report.md", 3) for n in range(1, 11)]
    project = project_with(tmp_path / "project", criteria)
    folder = tmp_path / "sub"
    eight_materials(folder)
    write(folder, "outputs/report.md", REPORT)
    assert all(len((folder / f"materials/m{n}.csv").read_text()) >= 88_000 for n in range(1, 9))
    summary = judge(project, submission_of_folder(folder, SCOPE), settings(server))
    assert (summary.judged, summary.missing) == (10, 0)
    assert sorted(len(request.ids) for request in server.requests) == [2, 8]
    for request in server.requests:
        shown = sections(request)
        report = shown["outputs/report.md"]
        assert "NOTE:" not in report.splitlines()[0]
        assert all(f"Finding {n}: the covenant headroom is {n}.{n}x." in report for n in range(1, 400))
        assert "material-1" in shown["materials/m1.csv"]  # the materials are there, as much as fits
        assert len(request.user_text) < 460_000
        assert any("not shown" in body.split("\n", 1)[0] for body in shown.values())  # and what was left out is named


def test_a_covered_file_too_large_for_the_budget_gives_missing_verdicts_naming_it(
    tmp_path: Path, server: ChatServer
) -> None:
    criteria = [
        ("T01-C01", "outputs/report.md", 3),
        ("T01-C02", "outputs/big.csv", 4),
        ("T01-C03", "outputs/big.csv", -2),
        ("T01-C04", "outputs/report.md", 2),
    ]
    project = project_with(tmp_path / "project", criteria)
    folder = tmp_path / "sub"
    write(folder, "outputs/report.md", REPORT)
    write(folder, "outputs/big.csv", material_csv(0, 450_000))
    submission = submission_of_folder(folder, SCOPE)
    summary = judge(project, submission, settings(server))
    assert (summary.judged, summary.missing) == (2, 2)
    assert summary.missing_ids == [] and sorted(summary.not_judged) == ["T01/T01-C02", "T01/T01-C03"]
    assert [request.ids for request in server.requests] == [["T01-C01", "T01-C04"]]  # never judged blind
    assert "material-0" not in server.requests[0].user_text  # nor sent to the others' request
    verdicts = stored(project, submission)
    for cid in ("T01-C02", "T01-C03"):
        note = verdicts[cid].note or ""
        assert verdicts[cid].verdict == "missing", cid
        assert note.startswith("not judged: outputs/big.csv, which it covers, cannot be shown whole: cut at 400,000")
        assert "split what the criterion covers" in note
    assert verdicts["T01-C01"].verdict == "pass" and verdicts["T01-C04"].verdict == "pass"
    t01 = t01_score(project)
    assert t01.score is None and t01.missing == 2  # unknown, never a pass or a fail
    judge(project, submission, settings(server))  # judged again: the same missing verdicts, nothing sent for them
    assert [request.ids for request in server.requests] == [["T01-C01", "T01-C04"]]
    assert VerdictStore(project).read(submission.id, f"judge:{MODEL}") == list(verdicts.values())


def test_batching_by_coverage_sends_less_than_the_whole_submission_in_every_batch(
    tmp_path: Path, server: ChatServer
) -> None:
    # rubric order alternates the two outputs, as an author writes criteria about both
    criteria = [(f"T01-C{n:02d}", ("outputs/report.md", "outputs/model.csv")[n % 2], 3) for n in range(1, 17)]
    project = project_with(tmp_path / "project", criteria)
    folder = tmp_path / "sub"
    write(folder, "outputs/report.md", REPORT + "x" * 40_000 + "\n")
    write(folder, "outputs/model.csv", material_csv(99, 50_000))
    write(folder, "materials/m1.csv", material_csv(1, 5_000))
    submission = submission_of_folder(folder, SCOPE)

    whole = ChatServer().start()
    try:  # the whole submission in every batch, as the judge sent it before (evidence handed in is used as is)
        judge(project, submission, settings(whole, "whole-model"), evidence=extract_evidence(folder))
    finally:
        whole.stop()
    judge(project, submission, settings(server))

    assert len(whole.requests) == len(server.requests) == 2
    before = sum(len(request.user_text) for request in whole.requests)
    after = sum(len(request.user_text) for request in server.requests)
    assert after < 0.65 * before, (after, before)
    for request in server.requests:
        covered = {criteria[int(cid[-2:]) - 1][1] for cid in request.ids}
        assert len(covered) == 1 and len(request.ids) == 8  # one coverage per batch
        (path,) = covered
        other = ({"outputs/report.md", "outputs/model.csv"} - covered).pop()
        shown = sections(request)
        assert "NOTE:" not in shown[path].split("\n", 1)[0]
        assert shown[other].startswith("NOTE: not shown in this request: no criterion asked here covers it")
        assert "material-1" in shown["materials/m1.csv"]
    assert {v.verdict for v in stored(project, submission).values()} == {"pass"}


def test_the_requests_of_a_submission_share_their_first_part_byte_for_byte(tmp_path: Path, server: ChatServer) -> None:
    criteria = [(f"T01-C{n:02d}", ("outputs/report.md", "outputs/model.csv")[n % 2], 3) for n in range(1, 7)]
    project = project_with(tmp_path / "project", criteria)
    folder = tmp_path / "sub"
    for number in range(1, 9):
        write(folder, f"materials/m{number}.csv", material_csv(number, 15_000))
    write(folder, "outputs/report.md", REPORT)
    write(folder, "outputs/model.csv", material_csv(99, 30_000))
    judge(project, submission_of_folder(folder, SCOPE), settings(server, batch=2))
    # report and model: a batch of two each, the third of each packed together
    assert sorted(len(request.ids) for request in server.requests) == [2, 2, 2]
    systems = {request.body["messages"][0]["content"] for request in server.requests}
    assert len(systems) == 1  # one fence token for the submission
    token = token_of(server.requests[0])
    first_output = f"<<<FILE {token}>>> outputs/"
    shared = {request.user_text.split(first_output, 1)[0] for request in server.requests}
    assert len(shared) == 1  # instruction, references and the eight materials: the same bytes, first
    (prefix,) = shared
    assert all(f"material-{n}" in prefix for n in range(1, 9)) and "# Criteria to judge" not in prefix
    assert len(prefix) > 120_000


def test_the_model_says_whether_the_statement_holds_and_the_role_decides_the_score(
    tmp_path: Path, server: ChatServer
) -> None:
    criteria = [
        ("T01-C01", "outputs/report.md", 3),
        ("T01-C02", "outputs/report.md", 3),
        ("T01-C03", "outputs/report.md", -2),
        ("T01-C04", "outputs/report.md", -4),
    ]
    project = project_with(tmp_path / "project", criteria)
    folder = tmp_path / "sub"
    write(folder, "outputs/report.md", REPORT)
    holds = {"T01-C01": True, "T01-C02": False, "T01-C03": True, "T01-C04": False}
    server.reply = lambda request: Reply(
        body=completion(
            json.dumps(
                {
                    "verdicts": [
                        {"criterion": cid, "holds": holds[cid], "rationale": "read", "evidence": []}
                        for cid in request.ids
                    ]
                }
            )
        )
    )
    submission = submission_of_folder(folder, SCOPE)
    judge(project, submission, settings(server))
    (request,) = server.requests
    assert "- T01-C03 (failure condition, weight -2): The report cites a superseded figure." in request.user_text
    assert "- T01-C01 (requirement, weight +3): The file states what T01-C01 asks.\n  Covers: outputs/report.md\n" in (
        request.user_text
    )
    verdicts = {cid: verdict.verdict for cid, verdict in stored(project, submission).items()}
    # a failure condition that holds is the deduction applied (the stored verdict 1 the scorer and experts use)
    assert verdicts == {"T01-C01": "pass", "T01-C02": "fail", "T01-C03": "pass", "T01-C04": "fail"}
    assert t01_score(project).score == pytest.approx(100 * (3 - 2) / 6)  # C01 credited, C03 deducted


def test_a_gate_the_model_says_holds_scores_the_rubric_0(tmp_path: Path, server: ChatServer) -> None:
    project = project_with(
        tmp_path / "project", [("T01-C01", "outputs/report.md", 3), ("T01-G1", "outputs/report.md", 0)], gate="T01-G1"
    )
    folder = tmp_path / "sub"
    write(folder, "outputs/report.md", REPORT)
    server.reply = lambda request: Reply(
        body=completion(
            json.dumps(
                {
                    "verdicts": [  # every statement holds
                        {"criterion": cid, "holds": "yes", "rationale": "read", "evidence": []} for cid in request.ids
                    ]
                }
            )
        )
    )
    judge(project, submission_of_folder(folder, SCOPE), settings(server))
    assert "- T01-G1 (fatal gate): The report cites a superseded figure." in server.requests[0].user_text
    t01 = t01_score(project)
    assert t01.gate_triggered and t01.score == 0


def test_only_a_yes_or_no_answers_whether_a_statement_holds() -> None:
    answer = {
        "verdicts": [
            {"criterion": "A", "holds": "pass"},
            {"criterion": "B", "holds": 1},
            {"criterion": "C", "verdict": "pass"},
            {"criterion": "D", "holds": " No"},
            {"criterion": "E", "holds": True},
        ]
    }
    found = parse_answer(json.dumps(answer), ["A", "B", "C", "D", "E"])
    assert {cid: verdict.holds for cid, verdict in found.items()} == {"D": False, "E": True}
    assert '"pass"' not in SYSTEM_PROMPT and "Never turn the answer round" in SYSTEM_PROMPT


def test_final_criteria_cover_their_deliverables_and_the_package_every_deliverable(tmp_path: Path) -> None:
    root = copy_blank(tmp_path / "project")
    replace_in(
        root,
        "project.yaml",
        "    - id: F1\n",
        "    - id: F2\n      path: final/model.csv\n      title: Model\n      produced_by: T01:outputs/report.md\n"
        "    - id: F1\n",
    )
    project = load(root).project
    rubric = project.rubric(FINAL_SCOPE)
    assert rubric is not None
    by_id = {criterion.key: criterion for criterion in rubric.criteria}
    assert coverage(project, FINAL_SCOPE, by_id["A-01"]) == ("final/report.md",)
    assert coverage(project, FINAL_SCOPE, by_id["T01-C01"]) == ("final/report.md",)  # a reuse covers its own entry
    assert coverage(project, FINAL_SCOPE, by_id["PKG-01"]) == ("final/model.csv", "final/report.md")
    t01 = project.rubric(SCOPE)
    assert t01 is not None
    assert coverage(project, SCOPE, t01.criteria[0]) == ("outputs/report.md",)
    bare = t01.criteria[0].model_copy(update={"covers": []})
    assert coverage(project, SCOPE, bare) == tuple(scope_outputs(project, SCOPE)) == ("outputs/report.md",)


def test_the_command_names_the_file_that_does_not_fit_and_does_not_say_judge_again(
    tmp_path: Path, server: ChatServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = project_with(
        tmp_path / "project", [("T01-C01", "outputs/report.md", 3), ("T01-C02", "outputs/big.csv", 4)]
    )
    folder = tmp_path / "sub"
    write(folder, "outputs/report.md", REPORT)
    write(folder, "outputs/big.csv", material_csv(0, 450_000))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code = main(
        [
            "judge",
            str(project),
            "--submission",
            str(folder),
            "--scope",
            SCOPE,
            "--endpoint",
            server.url,
            "--model",
            MODEL,
        ]
    )
    out = capsys.readouterr().out
    assert code == ExitCode.PROBLEMS
    assert "not judged, stored missing: T01/T01-C02: outputs/big.csv, which it covers, cannot be shown whole" in out
    assert "judge again to retry them" not in out


def test_a_covered_file_the_agent_never_wrote_is_judged_with_its_absence_stated(
    tmp_path: Path, server: ChatServer
) -> None:
    project = project_with(
        tmp_path / "project", [("T01-C01", "outputs/report.md", 3), ("T01-C02", "outputs/model.csv", 2)]
    )
    folder = tmp_path / "sub"
    write(folder, "outputs/model.csv", material_csv(99, 2_000))
    submission = submission_of_folder(folder, SCOPE)
    summary = judge(project, submission, settings(server, batch=1))  # one request each
    assert (summary.judged, summary.missing) == (2, 0)
    (asked,) = [request for request in server.requests if request.ids == ["T01-C01"]]
    assert sections(asked)["outputs/report.md"].startswith("EVIDENCE ERROR: outputs/report.md does not exist")
    (other,) = [request for request in server.requests if request.ids == ["T01-C02"]]
    assert "outputs/report.md" not in sections(other)  # not in the submission: nothing to name


def test_small_groups_share_a_batch_when_their_files_fit_together(tmp_path: Path, server: ChatServer) -> None:
    cover = ["outputs/report.md"] * 3 + ["outputs/model.csv"] * 3 + ["outputs/big.csv"] * 2
    project = project_with(tmp_path / "project", [(f"T01-C{n:02d}", path, 3) for n, path in enumerate(cover, 1)])
    folder = tmp_path / "sub"
    write(folder, "outputs/report.md", REPORT)
    write(folder, "outputs/model.csv", material_csv(98, 20_000))
    write(folder, "outputs/big.csv", material_csv(99, 20_000))
    judge(project, submission_of_folder(folder, SCOPE), settings(server))
    (request,) = server.requests  # three groups, one request: as many as without grouping
    shown = sections(request)
    assert all("NOTE:" not in shown[path].split("\n", 1)[0] for path in OUTPUTS)


def test_groups_whose_files_do_not_fit_together_are_asked_apart(tmp_path: Path, server: ChatServer) -> None:
    cover = ["outputs/report.md", "outputs/model.csv", "outputs/report.md", "outputs/model.csv"]
    project = project_with(tmp_path / "project", [(f"T01-C{n:02d}", path, 3) for n, path in enumerate(cover, 1)])
    folder = tmp_path / "sub"
    write(folder, "outputs/report.md", REPORT + "y" * 230_000 + "\n")
    write(folder, "outputs/model.csv", material_csv(98, 230_000))
    summary = judge(project, submission_of_folder(folder, SCOPE), settings(server))
    assert (summary.judged, summary.missing) == (4, 0)
    assert sorted(request.ids for request in server.requests) == [["T01-C01", "T01-C03"], ["T01-C02", "T01-C04"]]
    for request in server.requests:
        (covered,) = {cover[int(cid[-2:]) - 1] for cid in request.ids}
        assert "NOTE:" not in sections(request)[covered].split("\n", 1)[0]
