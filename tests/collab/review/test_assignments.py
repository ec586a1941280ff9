"""Assignments in review/assignments.yaml: written with comments kept, checked against the project with
each bad id located at its line, and an expert's queue (--mine) made of them and the double-coding plan."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema

from studio.judging.assignments import my_queue
from studio.judging.queue import ReviewQueue
from studio.store.yamlfile import YamlDocument, plain
from tests.collab.review.review_work_project import SECOND_RUN, cli, review_work_project
from tests.helpers import REPO_ROOT, line_of, write
from tests.judging.projects import RUN_ID, criterion_id

ANNA = "Anna Berg"


def test_assign_writes_the_file_and_keeps_its_comments(tmp_path: Path):
    root = review_work_project(tmp_path)
    assert cli("assign", str(root), ANNA, "--subtask", "T02")[0] == 0
    path = root / "review/assignments.yaml"
    path.write_text(path.read_text().replace("  - rater: Anna Berg\n", "  # T02 is Anna's: she wrote it\n"
                                             "  - rater: Anna Berg\n"))
    assert cli("assign", str(root), "Ben Ode", "--criterion", criterion_id(4))[0] == 0
    code, _, err = cli("assign", str(root), "Ben Ode", "--decision", SECOND_RUN[:10], "final", "A-01")
    assert code == 0 and f"decision {SECOND_RUN} final A-01" in err
    text = path.read_text()
    assert "# T02 is Anna's: she wrote it\n" in text
    data = plain(YamlDocument.load(path).data)
    assert data["assignments"] == [
        {"rater": ANNA, "subtask": "T02"},
        {"rater": "Ben Ode", "criterion": criterion_id(4)},
        {"rater": "Ben Ode", "decision": {"run": SECOND_RUN, "scope": "final", "criterion": "A-01"}},
    ]
    jsonschema.validate(data, json.loads((REPO_ROOT / "schemas/assignments.schema.json").read_text()))
    # the same again changes nothing; --remove takes it out, the comment stays
    assert cli("assign", str(root), ANNA, "--subtask", "T02")[2].startswith("already assigned")
    assert path.read_text() == text
    assert cli("assign", str(root), "Ben Ode", "--criterion", criterion_id(4), "--remove")[0] == 0
    assert criterion_id(4) not in path.read_text() and "# T02 is Anna's" in path.read_text()
    code, out, err = cli("assign", str(root), "--list")
    assert code == 0 and out.splitlines() == [f"{ANNA}  subtask T02", f"Ben Ode  decision {SECOND_RUN} final A-01"]
    assert f"{ANNA}: 0 of 8 assigned decision(s) given" in err and "Ben Ode: 0 of 1" in err


def test_bad_assignments_exit_2_naming_the_id_and_leave_the_file_alone(tmp_path: Path):
    root = review_work_project(tmp_path)
    assert cli("assign", str(root), ANNA, "--subtask", "T01")[0] == 0
    before = (root / "review/assignments.yaml").read_bytes()
    for argv, said in [
        ((ANNA, "--subtask", "T09"), "subtask 'T09' is not in the project: give one of T01, T02"),
        ((ANNA, "--criterion", "T01-C999"), "criterion 'T01-C999' is in no rubric"),
        ((ANNA, "--decision", "2025", "T01", criterion_id(1)), "--run 2025 has no verdicts"),
        ((ANNA, "--decision", RUN_ID, "T07", criterion_id(1)), "scope 'T07' has no rubric"),
        ((ANNA, "--decision", RUN_ID, "T02", criterion_id(1)), f"criterion '{criterion_id(1)}' is not in the T02"),
        (("judge:x", "--subtask", "T01"), "'judge:x' is reserved"),
        ((ANNA,), "say what to assign"),
        ((ANNA, "--subtask", "T02", "--remove"), "subtask T02 is not assigned to Anna Berg"),
    ]:
        code, _, err = cli("assign", str(root), *argv)
        assert code == 2, argv
        assert said in err, (argv, err)
    assert (root / "review/assignments.yaml").read_bytes() == before


def test_a_bad_id_in_the_file_is_located_at_its_line_and_column(tmp_path: Path):
    root = review_work_project(tmp_path)
    text = write(root, "review/assignments.yaml", """
        assignments:
          - rater: Anna Berg
            subtask: T01
          - rater: Ben Ode
            criterion: T01-C077
          - rater: Ben Ode
            subtask: T01
            criterion: T01-C001
        """).read_text()
    code, _, err = cli("assign", str(root), "--list")
    assert code == 2
    path = root / "review/assignments.yaml"
    # the model's check first: the entry with two of subtask/criterion/decision, at that entry
    assert f"{path}:{line_of(text, 'rater: Ben Ode', 2)}:" in err and "exactly one of subtask" in err
    write(root, "review/assignments.yaml", text.replace("    criterion: T01-C001\n", ""))
    code, _, err = cli("verdicts", "queue", str(root), "--rater", "Ben Ode", "--mine")
    assert code == 2
    assert f"{path}:{line_of(text, 'T01-C077')}:16: criterion 'T01-C077' is in no rubric" in err


def test_queue_mine_lists_assigned_and_planned_decisions_with_progress(tmp_path: Path):
    root = review_work_project(tmp_path)
    assert cli("assign", str(root), ANNA, "--subtask", "T02")[0] == 0
    assert cli("assign", str(root), ANNA, "--decision", RUN_ID, "T01", criterion_id(2))[0] == 0
    assert cli("assign", str(root), "Ben Ode", "--criterion", "A-01")[0] == 0
    assert cli("plan", str(root), "--raters", ANNA, "Cleo Park", "--width", "0.6", "--seed", "1")[0] == 0
    from studio.judging.double_coding import load_plan

    plan = load_plan(root)
    assert plan is not None
    planned = {(r.run, r.scope, r.criterion) for r in plan.decisions}
    expected = {(run, "T02", c) for run in (RUN_ID, SECOND_RUN) for c in ("T02-C01", "T02-C02", "T02-G01", "T02-N01")}
    expected |= {(RUN_ID, "T01", criterion_id(2))} | planned
    queue = ReviewQueue.of_project(root)
    queue.give(queue.find(RUN_ID, "T02", "T02-C01"), ANNA, "pass")
    queue.give(queue.find(RUN_ID, "final", "A-01"), ANNA, "fail")  # Ben's, not hers: no progress of hers

    code, out, err = cli("verdicts", "queue", str(root), "--rater", ANNA, "--mine", "--json")
    assert code == 0
    listed = {(e["submission"], e["scope"], e["criterion"]) for e in json.loads(out)}
    assert listed == expected
    given = 1 + sum(1 for key in planned if key == (RUN_ID, "final", "A-01"))
    assert f"{ANNA}: {given} of {len(expected)} assigned decision(s) given" in err
    mine = my_queue(queue, ANNA)
    assert (mine.given, mine.assigned) == (given, len(expected))
    assert my_queue(queue, "Cleo Park").assigned == len(planned)
    ben = my_queue(queue, "Ben Ode")
    assert [queue.decisions[p].key for p in ben.positions] == [(RUN_ID, "final", "A-01"), (SECOND_RUN, "final", "A-01")]

    code, _, err = cli("verdicts", "queue", str(root), "--rater", "Dora", "--mine")
    assert code == 2 and "'Dora' has no assignment" in err and "Anna Berg, Ben Ode, Cleo Park" in err
    code, _, err = cli("verdicts", "queue", str(root), "--mine")
    assert code == 2 and "--rater NAME" in err


def test_the_review_files_are_saved_with_the_project_under_git(tmp_path: Path):
    root = review_work_project(tmp_path)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "start"], check=True)
    assert cli("assign", str(root), ANNA, "--subtask", "T02")[0] == 0
    assert cli("plan", str(root), "--raters", ANNA, "Ben Ode", "--width", "0.5", "--seed", "2")[0] == 0
    assert cli("save", str(root), "-m", "review work for Anna and Ben")[0] == 0
    tracked = subprocess.run(["git", "-C", str(root), "ls-files", "review"], capture_output=True, text=True,
                             check=True).stdout.split()
    assert tracked == ["review/assignments.yaml", "review/double-coding.yaml"]


def test_a_queue_filter_by_an_experts_keys_agrees_with_accepts(tmp_path: Path):
    from studio.judging.queue import QueueFilter

    root = review_work_project(tmp_path)
    assert cli("assign", str(root), ANNA, "--criterion", "T02-C01")[0] == 0
    assert cli("assign", str(root), ANNA, "--subtask", "T01")[0] == 0
    queue = ReviewQueue.of_project(root)
    keys = my_queue(queue, ANNA).keys(queue)
    assert len(keys) == 20 + 4  # T02-C01 is judged in T02 and again in final (reused), in both runs
    queue.give(queue.find(SECOND_RUN, "T01", criterion_id(5)), ANNA, "na")
    for which in (QueueFilter(keys=keys), QueueFilter(keys=keys, scope="T02"),
                  QueueFilter(keys=keys, submission=SECOND_RUN[:8], not_reviewed_by=ANNA), QueueFilter(keys=frozenset())):
        by_index = [d.key for d in queue.filtered(which)]
        assert by_index == [d.key for d in queue.decisions if which.accepts(d)]
    assert len(queue.filtered(QueueFilter(keys=keys, submission=SECOND_RUN[:8], not_reviewed_by=ANNA))) == 9 + 2
