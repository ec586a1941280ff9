"""What the score sheet reads of the verdict store: each verdict's scope, criterion, verdict and
criterion version, taken from exactly the files the block reader (read_lines) takes, with no
Verdict built; any other file goes the full way, to the same scores or the same located error."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from studio.judging import verdict_lines, verdict_store
from studio.judging.decisions import collect, current_versions
from studio.judging.score_sheet import forget_scored, read_score_sheet
from studio.judging.verdict_lines import Given, read_given, read_lines
from studio.judging.verdict_store import VerdictFileError, VerdictStore, forget_parsed, given_in, signed_files
from studio.judging.verdicts import Verdict
from studio.store.loader import load_project
from tests.judging.scored_runs import JUDGE, RUN_A, RUN_B, add_experts, put, scored_project
from tests.judging.test_score_sheet_runs import cli_scores, same_as_cli

T0 = datetime(2026, 11, 30, 20, 15, 3, tzinfo=UTC)


def verdict(criterion: str, scope: str, value: str = "pass", rater: str = "Marta Lindqvist", **extra) -> Verdict:
    return Verdict(criterion=criterion, scope=scope, verdict=value, rater=rater, time=extra.pop("time", T0),
                   criterion_version=extra.pop("criterion_version", "0123456789abcdef"), **extra)


def as_given(read: tuple[str, list[Verdict]] | None) -> Given | None:
    if read is None:
        return None
    rater, verdicts = read
    return (rater, [(v.scope, v.criterion) for v in verdicts], tuple(v.verdict for v in verdicts),
            tuple(v.criterion_version for v in verdicts))


def block_reader(text: str) -> Given | None:
    """What read_lines takes of a text, None for what it leaves to YAML or refuses."""
    try:
        return as_given(read_lines(text))
    except ValueError:  # a date the calendar does not have
        return None


@pytest.fixture
def written(tmp_path: Path) -> str:
    """A file as the store writes it, with every optional field and both kinds of token."""
    store = VerdictStore(tmp_path)
    store.put("harness@run-1", [
        verdict("T01-C01", "T01", note="Stated in the memo: net debt 41.2m (p. 3).",
                evidence=["outputs/memo.md#L3-L4", "outputs/model.xlsx!Sheet1!B4"]),
        verdict("T01-C02", "T01", "fail", note="Kein Beleg für die Zahl — ni la source.", key="k-7"),
        verdict("T01-C10", "T01", "na", time=datetime(2026, 12, 1, 1, 2, 3, tzinfo=timezone(timedelta(hours=5)))),
        verdict("T02-C01", "T02", "missing", criterion_version="1234567890123456", by="Anna Berg"),
        verdict("A-01", "final", "fail", note="", evidence=["outputs/report.md"]),
    ])
    return store.path("harness@run-1", "Marta Lindqvist").read_text(encoding="utf-8")


def test_a_file_the_store_wrote_gives_what_its_verdicts_hold(written: str) -> None:
    given = read_given(written)
    assert given is not None and given == as_given(read_lines(written))
    rater, decisions, values, versions = given
    assert rater == "Marta Lindqvist" and values == ("pass", "fail", "na", "missing", "fail")
    assert decisions[3] == ("T02", "T02-C01") and versions[3] == "1234567890123456"  # quoted all digits: a string
    empty = written.replace("verdicts:\n", "verdicts: []\n").split("  - scope")[0]
    assert read_given(empty) == ("Marta Lindqvist", [], (), ())


@pytest.mark.parametrize("edit", [
    lambda text: text.replace('note: "Stated', 'note: "say \\"Stated'),  # an escape: YAML's to read
    lambda text: text.replace("note: \"\"", "note: yes"),  # a plain value YAML reads as a boolean
    lambda text: text.replace("criterion: T01-C02", "criterion: T01-C01"),  # a decision listed twice
    lambda text: text.replace("criterion: T01-C02", "criterion: 12"),  # an id YAML reads as a number
    lambda text: text.replace("verdict: fail", "verdict: fail\n    adjudicator: Anna", 1),  # an unknown field
    lambda text: text.replace("  - scope: T01\n    criterion: T01-C02", "\n  - scope: T01\n    criterion: T01-C02"),
    lambda text: text + "# a comment at the end\n",
    lambda text: text.rsplit("    criterion_version", 1)[0],  # the last block cut short
    lambda text: text.replace("2026-11-30T20:15:03Z", "2026-02-30T20:15:03Z", 1),  # no such day
    lambda text: text.replace("key: k-7", "key: ~"),  # null, not a key
    lambda text: text.replace("outputs/report.md]", "outputs/report.md, null]"),  # a reference that is no string
    lambda text: text.replace("by: \"Anna Berg\"", "by: \" Anna\""),  # a name with a space at its start
    lambda text: text.replace('rater: "Marta Lindqvist"', "rater: true"),
    lambda text: text.split("  - scope")[0],  # `verdicts:` with nothing under it
    lambda text: text.replace("verdict: na", "verdict: maybe"),
])
def test_a_file_in_any_other_shape_is_left_to_the_full_reader_as_read_lines_leaves_it(written: str, edit) -> None:
    text = edit(written)
    assert text != written
    assert read_given(text) == block_reader(text)
    assert read_given(text) is None


def test_the_sheet_reads_a_cold_store_without_building_a_verdict(tmp_path: Path, monkeypatch, capsys) -> None:
    root = scored_project(tmp_path / "blank")
    add_experts(root)
    expected = cli_scores(capsys, root)
    forget_parsed()
    forget_scored()

    def refused(_text: str) -> None:
        raise AssertionError("the sheet built the verdicts of a file in the store's own layout")

    monkeypatch.setattr(verdict_store, "read_lines", refused)
    monkeypatch.setattr(verdict_lines, "read_lines", refused)
    same_as_cli(read_score_sheet(root, load_project(root).project), expected)


def test_a_hand_edited_file_scores_as_the_command_line_scores_it(tmp_path: Path, capsys) -> None:
    root = scored_project(tmp_path / "blank")
    add_experts(root)
    path = VerdictStore(root).path(RUN_B, JUDGE)
    path.write_text(path.read_text(encoding="utf-8").replace("verdict: fail", "verdict:   'fail'  # checked"),
                    encoding="utf-8")
    forget_parsed()
    forget_scored()
    sheet = read_score_sheet(root, load_project(root).project)
    same_as_cli(sheet, cli_scores(capsys, root))
    assert {run.submission for run in sheet.runs} == {RUN_A, RUN_B}


def test_a_broken_file_stops_the_sheet_with_the_line_to_fix(tmp_path: Path) -> None:
    root = scored_project(tmp_path / "blank")
    path = VerdictStore(root).path(RUN_A, JUDGE)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("criterion: T02-C02", "criterion: T02-C01"), encoding="utf-8")
    forget_parsed()
    forget_scored()
    with pytest.raises(VerdictFileError) as raised:
        read_score_sheet(root, load_project(root).project)
    assert raised.value.path == path and "is listed again" in raised.value.problem
    assert raised.value.line == text.splitlines().index("    criterion: T02-C02")


def test_a_verdict_given_on_an_earlier_criterion_is_left_out_and_named(tmp_path: Path, capsys) -> None:
    root = scored_project(tmp_path / "blank")
    put(root, RUN_B, "Ben", {("T01", "T01-C01"): "pass"})
    rubric = root / "subtasks" / "T01" / "rubric.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8").replace("weight: 5", "weight: 3"), encoding="utf-8")
    forget_scored()
    edited = load_project(root).project
    sheet = read_score_sheet(root, edited, JUDGE)
    assert sheet.left_out is not None and f"(e.g. {RUN_A} T01/T01-C01 by {JUDGE})" in sheet.left_out
    assert sheet.left_out == collect(VerdictStore(root), current_versions(edited)).left_out()  # as the rows say
    same_as_cli(sheet, cli_scores(capsys, root, "--judge", JUDGE))


def test_a_folder_is_scanned_once_for_its_signature_and_files(tmp_path: Path) -> None:
    store = VerdictStore(tmp_path)
    store.put("run-1", [verdict("T01-C01", "T01"), verdict("T01-C01", "T01", rater="judge:m1")])
    folder = store.root / "run-1"
    (folder / ".hidden.yaml").write_text("not read", encoding="utf-8")
    (folder / "notes.txt").write_text("not read", encoding="utf-8")
    (folder / "odd.yaml").mkdir()  # a folder by a file's name: in the signature, not read
    signature, files = signed_files(folder)
    assert [path.name for path, _ in files] == ["judge-m1.yaml", "marta-lindqvist.yaml"]
    assert [name for name, *_ in signature] == ["judge-m1.yaml", "marta-lindqvist.yaml", "odd.yaml"]  # type: ignore[attr-defined]
    assert given_in(*files[1]) == ("Marta Lindqvist", [("T01", "T01-C01")], ("pass",), ("0123456789abcdef",))
    store.put("run-1", [verdict("T01-C01", "T01", "fail")])
    assert signed_files(folder)[0] != signature


def test_a_rater_named_in_two_files_counts_as_the_command_line_counts_them(tmp_path: Path, capsys) -> None:
    root = scored_project(tmp_path / "blank")  # the judge's verdicts only: none overruled
    store = VerdictStore(root)
    loaded = load_project(root).project
    before = read_score_sheet(root, loaded)
    text = store.path(RUN_A, JUDGE).read_text(encoding="utf-8")
    (store.root / RUN_A / "zz-copied.yaml").write_text(text.replace("verdict: pass", "verdict: fail"), encoding="utf-8")
    sheet = read_score_sheet(root, loaded)
    assert sheet.runs[0] != before.runs[0] and sheet.runs[1] == before.runs[1]
    same_as_cli(sheet, cli_scores(capsys, root))  # the later file's verdict, as the score rows take it
