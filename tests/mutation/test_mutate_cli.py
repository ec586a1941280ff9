"""`dbstudio mutate` from the command line: list, run with the judge, report again, JSON, and the errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.judging.chat_server import ChatServer
from tests.mutation.reference_package import sample_copy


def test_list_names_each_mutant_where_and_why(referenced: Path, capsys) -> None:
    code, out, _ = run_cli(capsys, "mutate", str(referenced), "--list", "--kinds", "correction-not-applied")
    assert code == 0
    assert out.splitlines()[0] == "6 mutants: 6 correction-not-applied"
    assert "corr-T06-01" in out and "at outputs/financing_model.xlsx!Summary!B2" in out
    assert "downstream of M12 (CFO email restating FY2025 EBITDA)" in out
    code, out, _ = run_cli(capsys, "mutate", str(referenced), "--list", "--json", "--kinds", "file-removed")
    listed = json.loads(out)
    assert code == 0 and {m["kind"] for m in listed} == {"file-removed"}
    assert {"id", "scope", "artifact", "broke", "because", "suggestion", "where", "edit"} <= set(listed[0])


def test_a_run_with_the_judge_reports_and_the_report_reads_back(referenced: Path, judge_server: ChatServer,
                                                               capsys) -> None:
    args = ["mutate", str(referenced), "--judge", "--endpoint", judge_server.url, "--model", "figures-judge",
            "--kinds", "status-rolled-back"]
    code, out, err = run_cli(capsys, *args)
    # the sample's rubrics check no register's status: every rolled-back status survives, exit 1 (problems)
    assert code == 1, err
    assert "reference package: process 100.0, final 100.0" in out
    assert "survived" in out and "suggested criterion: Signing readiness checklist shows 'OI-01' as " \
                                 "'Condition subsequent agreed'" in out
    assert "[1/" in err and "reference, T01" in err  # progress
    code, again, _ = run_cli(capsys, "mutate", str(referenced), "--report")
    assert code == 1 and again == out
    code, data, _ = run_cli(capsys, "mutate", str(referenced), "--report", "--json")
    report = json.loads(data)
    assert report["counts"]["survived"] == len(report["mutants"]) > 0
    assert report["judge"].startswith("figures-judge at http://127.0.0.1:")
    code, review, _ = run_cli(capsys, "review", str(referenced))
    assert "mutation.survived" in review and "status-T09-01 survives every criterion of T09" in review


def test_errors_name_the_fix(tmp_path: Path, referenced: Path, capsys) -> None:
    bare = sample_copy(tmp_path / "bare")
    code, _, err = run_cli(capsys, "mutate", str(bare))
    assert code == 2 and "no reference package: put the expert's own deliverables under evaluator/reference/" in err
    code, _, err = run_cli(capsys, "mutate", str(bare), "--report")
    assert code == 2 and "no mutation report yet: run `dbstudio mutate" in err
    code, _, err = run_cli(capsys, "mutate", str(tmp_path / "nowhere"))
    assert code == 2 and "no such folder" in err
    with pytest.raises(SystemExit) as caught:
        run_cli(capsys, "mutate", str(referenced), "--kinds", "typo")
    assert caught.value.code == 2
    assert "unknown kind typo: give any of correction-not-applied" in capsys.readouterr().err
    (referenced / "subtasks/T02/rubric.yaml").write_text("criteria: [\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "mutate", str(referenced))
    assert code == 2 and "subtasks/T02/rubric.yaml:" in err and "the project must load" in err
