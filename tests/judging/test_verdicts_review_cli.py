"""`dbstudio verdicts queue|give|adjudicate` on a project with one judged run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.judging.verdict_store import VerdictStore
from tests.judging.projects import RUN_ID, criterion_id
from tests.judging.review_project import JUDGE, review_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return review_project(tmp_path)


def queue_json(project: Path, *options: str) -> list[dict]:
    return json.loads(_out(project, "queue", *options))


def _out(project: Path, *argv: str) -> str:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["verdicts", argv[0], str(project), *argv[1:]]) == 0
    return buffer.getvalue()


def test_give_records_an_experts_verdict_and_queue_shows_it(project: Path, capsys: pytest.CaptureFixture) -> None:
    judge_file = VerdictStore(project).path(RUN_ID, JUDGE)
    before = judge_file.read_bytes()
    code = main(
        [
            "verdicts",
            "give",
            str(project),
            RUN_ID[:10],
            "T01",
            criterion_id(3),
            "pass",
            "--rater",
            "Anna Berg",
            "--note",
            "stated on line 3",
        ]
    )
    assert code == 0
    assert "stored in" in capsys.readouterr().err
    stored = VerdictStore(project).read(RUN_ID, "Anna Berg")
    assert [(v.criterion, v.verdict, v.note) for v in stored] == [(criterion_id(3), "pass", "stated on line 3")]
    assert judge_file.read_bytes() == before
    entries = queue_json(project, "--json")
    assert len(entries) == 10
    third = entries[2]
    assert third["criterion"] == criterion_id(3) and third["judge"]["verdict"] == "fail"
    assert third["verdicts"]["Anna Berg"] == {"verdict": "pass", "note": "stated on line 3", "role": "rater"}
    assert third["counted"] == "pass"  # the expert's verdict outranks the judge's
    assert [e["criterion"] for e in queue_json(project, "--json", "--disagree")] == [criterion_id(3)]
    assert len(queue_json(project, "--json", "--rater", "Anna Berg")) == 9
    assert queue_json(project, "--json", "--scope", "final") == []
    text = _out(project, "queue", "--disagree")
    assert "Anna Berg" in text.splitlines()[0] and criterion_id(3) in text


def test_adjudicate_settles_a_decision_where_experts_differ(project: Path, capsys: pytest.CaptureFixture) -> None:
    for rater, value in (("Anna", "pass"), ("Ben", "fail")):
        assert main(["verdicts", "give", str(project), RUN_ID, "T01", criterion_id(2), value, "--rater", rater]) == 0
    listed = queue_json(project, "--json", "--adjudication")
    assert [e["criterion"] for e in listed] == [criterion_id(2)]
    assert listed[0]["counted"].startswith("missing: experts differ")
    assert (
        main(
            [
                "verdicts",
                "adjudicate",
                str(project),
                RUN_ID,
                "T01",
                criterion_id(2),
                "fail",
                "--note",
                "item 2 is only implied",
                "--by",
                "Carla Ruiz",
            ]
        )
        == 0
    )
    assert "adjudicated by Carla Ruiz fail" in capsys.readouterr().err
    assert [(v.verdict, v.by) for v in VerdictStore(project).read(RUN_ID, "adjudicated")] == [("fail", "Carla Ruiz")]
    assert queue_json(project, "--json", "--adjudication")[0]["verdicts"]["adjudicated"]["by"] == "Carla Ruiz"
    assert queue_json(project, "--json", "--adjudication")[0]["counted"] == "fail"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["give", RUN_ID, "T01", criterion_id(1), "pass"], "--rater NAME"),
        (["give", RUN_ID, "T01", criterion_id(1), "maybe", "--rater", "Anna"], "give pass, fail or na"),
        (["give", RUN_ID, "T01", criterion_id(1), "pass", "--rater", "judge:me"], "reserved"),
        (["give", RUN_ID, "T01", "pass", "--rater", "Anna"], "needs RUN SCOPE CRITERION VERDICT"),
        (["give", "no-such-run", "T01", criterion_id(1), "pass", "--rater", "Anna"], "has no verdicts"),
        (["give", RUN_ID, "T02", criterion_id(1), "pass", "--rater", "Anna"], "no decision"),
        (["adjudicate", RUN_ID, "T01", criterion_id(1), "pass", "--rater", "Anna"], "leave out --rater"),
        (["adjudicate", RUN_ID, "T01", criterion_id(1), "pass"], "needs the adjudicator's name: --by NAME"),
        (["adjudicate", RUN_ID, "T01", criterion_id(1), "pass", "--by", "judge:me"], "reserved"),
        (["queue", "extra"], "project folder only"),
        (["queue", "--run", "no-such-run"], "--run no-such-run has no verdicts"),
        (["queue", "--scope", "T99"], "the project has no rubric 'T99': give one of T01, T02, final"),
        (
            ["give", RUN_ID, "T99", criterion_id(1), "pass", "--rater", "Anna"],
            "the project has no rubric 'T99': give one of T01, T02, final",
        ),
        (
            ["give", RUN_ID, "T01", criterion_id(1), "pass", "--rater", "../tmp/evil"],
            "a name may hold letters, digits, spaces and - _ . @, not '/'",
        ),
        (["give", RUN_ID, "T01", criterion_id(1), "pass", "--rater", "Anna\\Berg"], "not '\\\\'"),
        (["adjudicate", RUN_ID, "T01", criterion_id(1), "pass", "--by", "Carla/x"], "not '/'"),
        (["adjudicate", RUN_ID, "T01", criterion_id(1), "pass", "--by", "Carla"], "there is no difference to settle"),
    ],
)
def test_bad_input_is_refused_with_the_fix_and_nothing_is_written(
    project: Path, capsys: pytest.CaptureFixture, argv: list[str], message: str
) -> None:
    assert main(["verdicts", argv[0], str(project), *argv[1:]]) == 2
    assert message in capsys.readouterr().err
    assert VerdictStore(project).raters(RUN_ID) == [JUDGE]


def test_export_still_refuses_extra_operands(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "out.csv"
    assert main(["verdicts", "export", str(project), str(out), "stray", "--format", "score"]) == 2
    assert "unexpected stray" in capsys.readouterr().err and not out.exists()


def test_a_folder_that_is_no_project_or_does_not_load_is_named_with_the_line_at_fault(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["verdicts", "queue", str(empty)]) == 2
    assert f"{empty}: not a project folder (it has no project.yaml)" in capsys.readouterr().err
    rubric = project / "subtasks" / "T01" / "rubric.yaml"
    before = rubric.read_text()
    rubric.write_text(before + "  - id: [broken\n")
    verdicts = sorted(p.read_bytes() for p in (project / "verdicts").rglob("*.yaml"))
    assert main(["verdicts", "give", str(project), RUN_ID, "T01", criterion_id(1), "pass", "--rater", "Anna"]) == 2
    err = capsys.readouterr().err
    assert re.search(rf"{re.escape(str(rubric))}:\d+:\d+: ", err), err
    assert "do not load" in err and "dbstudio validate" in err
    assert sorted(p.read_bytes() for p in (project / "verdicts").rglob("*.yaml")) == verdicts  # nothing written


def test_queue_refuses_an_unknown_run_or_scope_as_give_does(project: Path, capsys: pytest.CaptureFixture) -> None:
    def refusal(action: str, *argv: str) -> str:
        assert main(["verdicts", action, str(project), *argv]) == 2
        return capsys.readouterr().err

    assert refusal("queue", "--run", "nope") == refusal("give", "nope", "T01", criterion_id(1), "pass", "--rater", "A")
    assert refusal("queue", "--scope", "T9") == refusal("give", RUN_ID, "T9", criterion_id(1), "pass", "--rater", "A")


def test_names_with_letters_of_any_script_digits_and_the_allowed_marks_are_accepted(
    project: Path, capsys: pytest.CaptureFixture
) -> None:
    for n, name in enumerate(["José Núñez", "m.lindqvist@bank", "Anna_Berg-2"], start=1):
        assert main(["verdicts", "give", str(project), RUN_ID, "T01", criterion_id(n), "pass", "--rater", name]) == 0
        assert [v.rater for v in VerdictStore(project).read(RUN_ID, name)] == [name]
