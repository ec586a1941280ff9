"""`dbstudio validate`: exit codes and located `file:line:column: message` output.

Most cases call `studio.cli.main.main` in-process; a few run the real entry point as a
subprocess (`python -m studio.cli.main`) to prove it behaves the same from the shell.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from studio.cli.main import main
from tests.helpers import REPO_ROOT, column_of, line_of, make_rich_project, replace_in, write

LOCATED = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<column>\d+): (?P<message>.+)$")


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def located(self) -> list[tuple[str, int, int, str]]:
        rows = []
        for raw in self.stdout.splitlines():
            match = LOCATED.match(raw)
            assert match, f"stdout line is not file:line:column: message: {raw!r}"
            rows.append((match["file"], int(match["line"]), int(match["column"]), match["message"]))
        return rows

    def assert_no_traceback(self) -> None:
        assert "Traceback" not in self.stdout
        assert "Traceback" not in self.stderr


def run_inprocess(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    code = main(["validate", *args])
    out, err = capsys.readouterr()
    return Run(code, out, err)


def run_subprocess(*args: str) -> Run:
    proc = subprocess.run(
        [sys.executable, "-m", "studio.cli.main", "validate", *args],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def assert_problem(run: Run, file: str, line: int, *fragments: str) -> tuple[str, int, int, str]:
    """Exit 1, no traceback, and a located finding in `file` at `line` whose message holds every fragment."""
    run.assert_no_traceback()
    assert run.code == 1, run
    rows = run.located()
    matches = [r for r in rows if r[0] == file and r[1] == line and all(f in r[3] for f in fragments)]
    assert matches, f"no finding {file}:{line} with {fragments!r}; got:\n{run.stdout}"
    assert matches[0][2] >= 1
    assert re.search(r"\d+ problems? found", run.stderr)
    return matches[0]


# One edit to one file of the clean template, and the finding it must give: (file, old, new,
# the text on the line the finding points at, fragments of its message).
ONE_EDIT_CASES = [
    # malformed YAML; an unclosed bracket points at the sequence it opens
    pytest.param("stages.yaml", "    subtasks:\n      - T02\n", "    subtasks: [T02\n", "subtasks: [T02",
                 ("YAML syntax",), id="unclosed-bracket"),
    pytest.param("project.yaml", "domain: Finance\n", "domain: Finance\ndomain: Law\n", "domain: Law",
                 ("duplicate key", "domain"), id="duplicate-yaml-key"),
    # schema violations; a rule spanning two keys (gate and weight) lands on the criterion itself
    pytest.param("materials.yaml", "    kind: source_record\n", "    kind: source_record\n    colour: blue\n",
                 "colour: blue", ("unknown key 'colour'",), id="unknown-key"),
    pytest.param("final/rubric.yaml", "dimension: completeness", "dimension: beauty", "dimension: beauty",
                 ("dimension", "correctness"), id="unknown-dimension"),
    pytest.param("subtasks/T01/rubric.yaml", "    weight: 5\n", "    weight: 5\n    gate: true\n", "- id: T01-C01",
                 ("gate", "weight 0"), id="gate-with-non-zero-weight"),
    pytest.param("subtasks/T01/rubric.yaml", "weight: 5", "weight: 0", "- id: T01-C01", ("weight 0 is only for a fatal gate",),
                 id="weight-zero-without-gate"),
    # dangling references
    pytest.param("subtasks/T01/subtask.yaml", "  - M01\n", "  - M01\n  - M09\n", "- M09", ("unknown material 'M09'",),
                 id="input-naming-unknown-material"),
    pytest.param("final/rubric.yaml", "reuse_of: T01-C01", "reuse_of: T01-C99", "reuse_of: T01-C99",
                 ("reuses T01-C99, which is no checkpoint criterion",), id="final-reuse-of-unknown-criterion"),
    pytest.param("stages.yaml", "      - T01\n", "      - T01\n      - T07\n", "- T07",
                 ("unknown subtask 'T07'", "subtasks/T07/subtask.yaml"), id="stage-lists-subtask-without-folder"),
    pytest.param("materials.yaml", "      at: start\n", "      at: before\n      subtask: T09\n", "subtask: T09",
                 ("released before 'T09'", "not a scheduled subtask"), id="release-before-unknown-subtask"),
]


@pytest.mark.parametrize("file, old, new, marker, fragments", ONE_EDIT_CASES)
def test_one_edit_gives_a_located_finding(blank_project: Path, capsys, file, old, new, marker, fragments) -> None:
    text = replace_in(blank_project, file, old, new)
    run = run_inprocess(capsys, str(blank_project))
    assert_problem(run, file, line_of(text, marker), *fragments)


# -- clean project and unusable input -------------------------------------------------------


def clean_summary(root: Path) -> str:
    """The line a clean validation prints, counted from the files (subtask folders, rubric lines)."""
    subtasks = sorted(p.parent for p in root.glob("subtasks/*/subtask.yaml"))
    rubrics = [root / "final" / "rubric.yaml", *(folder / "rubric.yaml" for folder in subtasks)]
    criteria = sum(len(yaml.safe_load(path.read_text(encoding="utf-8"))["criteria"]) for path in rubrics)
    return (f"OK: {len(subtasks)} subtask{'s' if len(subtasks) != 1 else ''}, "
            f"{criteria} criteri{'a' if criteria != 1 else 'on'}\n")


def test_clean_template_prints_one_summary_line(blank_project: Path, capsys) -> None:
    run = run_inprocess(capsys, str(blank_project))
    assert run.code == 0
    assert run.stdout == clean_summary(blank_project)
    assert run.stdout.startswith("OK: ") and run.stdout.count("\n") == 1
    assert run.stderr == ""


def test_rich_variant_is_clean(tmp_path: Path, capsys) -> None:
    # The richer project the other tests build on must itself be valid.
    rich = make_rich_project(tmp_path / "rich")
    run = run_inprocess(capsys, str(rich))
    assert (run.code, run.stdout) == (0, clean_summary(rich))


def test_summary_counts_change_with_the_project(blank_project: Path, capsys) -> None:
    before = run_inprocess(capsys, str(blank_project)).stdout
    rubric = blank_project / "subtasks" / "T01" / "rubric.yaml"
    text = rubric.read_text(encoding="utf-8")
    first = text.split("criteria:\n", 1)[1].split("\n  - ", 1)[0] + "\n"  # the first criterion, copied
    rubric.write_text(text + first.replace("T01-C01", "T01-C99"), encoding="utf-8")
    after = run_inprocess(capsys, str(blank_project))
    assert after.code == 0, after.stdout
    assert after.stdout == clean_summary(blank_project) != before


def test_missing_folder_exits_2_with_clear_message(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nowhere"
    run = run_inprocess(capsys, str(missing))
    assert run.code == 2
    assert run.stdout == ""
    assert "no such folder" in run.stderr
    assert str(missing) in run.stderr
    run.assert_no_traceback()


def test_folder_without_project_yaml_exits_2(blank_project: Path, capsys) -> None:
    (blank_project / "project.yaml").unlink()
    run = run_inprocess(capsys, str(blank_project))
    assert run.code == 2
    assert "not a project folder" in run.stderr
    assert "project.yaml" in run.stderr
    run.assert_no_traceback()


def test_file_instead_of_folder_exits_2(blank_project: Path, capsys) -> None:
    run = run_inprocess(capsys, str(blank_project / "project.yaml"))
    assert run.code == 2
    assert "not a folder" in run.stderr


# -- malformed YAML --------------------------------------------------------------------------


def test_malformed_yaml_mapping_value_on_one_line(blank_project: Path, capsys) -> None:
    text = replace_in(blank_project, "materials.yaml", "title: Source notes", "title: Source: notes: here")
    run = run_inprocess(capsys, str(blank_project))
    _, _, column, message = assert_problem(run, "materials.yaml", line_of(text, "title: Source: notes"), "YAML syntax")
    assert "mapping values are not allowed" in message
    assert column > 1


# -- schema violations -----------------------------------------------------------------------


def test_weight_out_of_range(blank_project: Path, capsys) -> None:
    text = replace_in(blank_project, "subtasks/T01/rubric.yaml", "weight: 5", "weight: 42")
    run = run_inprocess(capsys, str(blank_project))
    _, _, column, message = assert_problem(run, "subtasks/T01/rubric.yaml", line_of(text, "weight: 42"), "weight")
    assert "10" in message
    assert column == text.splitlines()[line_of(text, "weight: 42") - 1].index("42") + 1



@pytest.mark.parametrize("written", ["1_0", "\u0665", "+5", "05", "0x5", "5.0", "true", "'5'"])
def test_weight_not_written_as_a_plain_whole_number(blank_project: Path, capsys, written: str) -> None:
    # YAML (or pydantic's lax mode) would read each as 10, 5 or 1: say how to write it instead.
    text = replace_in(blank_project, "subtasks/T01/rubric.yaml", "weight: 5", f"weight: {written}")
    run = run_inprocess(capsys, str(blank_project))
    _, _, column, message = assert_problem(run, "subtasks/T01/rubric.yaml", line_of(text, f"weight: {written}"),
                                           "not a plain whole number", "`weight: 5`")
    assert column == column_of(text, f"weight: {written}") + len("weight: ")


# -- hostile YAML: located refusals, not hangs, tracebacks or 1:1 ---------------------------


def test_nul_byte_is_reported_on_its_line(blank_project: Path, capsys) -> None:
    text = replace_in(blank_project, "materials.yaml", "title: Source notes", "title: Source\x00 notes")
    run = run_inprocess(capsys, str(blank_project))
    _, _, column, message = assert_problem(run, "materials.yaml", line_of(text, "title: Source"), "U+0000")
    assert column == column_of(text, "title: Source") + len("title: Source")


def test_alias_bomb_is_refused_where_the_aliases_are_used(blank_project: Path) -> None:
    names = "abcdefghi"
    pairs = zip(names, names[1:], strict=False)
    bomb = ["a: &a [" + ",".join("x" * 9) + "]"] + [
        f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]" for previous, name in pairs]
    path = blank_project / "project.yaml"
    path.write_text("\n".join(bomb) + "\n", encoding="utf-8")
    assert path.stat().st_size <= 340
    run = run_subprocess(str(blank_project))  # a whole process: it must end (timeout=60), not expand 9**9 values
    (finding,) = [row for row in run.located() if row[0] == "project.yaml"]
    assert "aliases" in finding[3] and "fewer aliases" in finding[3]
    assert 2 <= finding[1] <= 9
    assert run.code == 1
    run.assert_no_traceback()


def test_deeply_nested_lists_are_refused_not_a_recursion_error(blank_project: Path) -> None:
    path = blank_project / "stages.yaml"
    path.write_text("stages: " + "[" * 300 + "]" * 300 + "\n", encoding="utf-8")
    assert path.stat().st_size <= 620
    run = run_subprocess(str(blank_project))
    run.assert_no_traceback()
    assert "RecursionError" not in run.stdout + run.stderr
    (finding,) = [row for row in run.located() if row[0] == "stages.yaml"]
    assert finding[1:3] == (1, len("stages: ") + 64)  # the first list past the 64th level
    assert "levels deep" in finding[3]
    assert run.code == 1


# -- duplicate ids ---------------------------------------------------------------------------

SECOND_CRITERION = """\
  - id: T01-C01
    text: The report names the lender.
    covers:
      - T01:outputs/report.md
    target: checkpoint
    dimension: correctness
    weight: 3
"""


def test_duplicate_criterion_id_in_one_rubric(blank_project: Path, capsys) -> None:
    path = blank_project / "subtasks/T01/rubric.yaml"
    path.write_text(path.read_text(encoding="utf-8") + SECOND_CRITERION, encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    run = run_inprocess(capsys, str(blank_project))
    # Reported once, on the second occurrence.
    finding = assert_problem(run, "subtasks/T01/rubric.yaml", line_of(text, "- id: T01-C01", occurrence=2),
                             "duplicate", "T01-C01")
    # A scalar's location is its value.
    assert finding[2] == text.splitlines()[finding[1] - 1].index("T01-C01") + 1
    assert not [r for r in run.located() if r[1] == line_of(text, "- id: T01-C01") and "duplicate" in r[3]]


def test_duplicate_material_id(blank_project: Path, capsys) -> None:
    path = blank_project / "materials.yaml"
    path.write_text(
        path.read_text(encoding="utf-8")
        + "  - id: M01\n    file: other.md\n    title: Other notes\n    kind: template\n"
        + "    provenance: scenario_assumption\n",
        encoding="utf-8",
    )
    write(blank_project, "materials/other.md", "# Other\n")
    text = path.read_text(encoding="utf-8")
    run = run_inprocess(capsys, str(blank_project))
    assert_problem(run, "materials.yaml", line_of(text, "- id: M01", occurrence=2), "duplicate material id 'M01'")


# -- dangling references ---------------------------------------------------------------------


def test_handoff_backwards_in_time(tmp_path: Path, capsys) -> None:
    project = make_rich_project(tmp_path / "rich")
    text = write(project, "dependencies.yaml", """\
        # T02 runs after T01, so T01 cannot receive T02's model.
        handoffs:
          - from: T01:outputs/report.md
            to: T02
          - from: T02:outputs/model.xlsx
            to: T01
        """).read_text(encoding="utf-8")
    run = run_inprocess(capsys, str(project))
    assert_problem(run, "dependencies.yaml", line_of(text, "to: T01"), "backwards in time")
    # The forward handoff is fine.
    assert not [r for r in run.located() if r[1] == line_of(text, "to: T02")]


def test_handoff_to_itself_is_backwards(blank_project: Path, capsys) -> None:
    text = write(blank_project, "dependencies.yaml",
                 "handoffs:\n  - from: T01:outputs/report.md\n    to: T01\n").read_text()
    run = run_inprocess(capsys, str(blank_project))
    assert_problem(run, "dependencies.yaml", line_of(text, "to: T01"), "backwards in time")


def test_several_problems_in_several_files_all_reported(blank_project: Path, capsys) -> None:
    rubric = replace_in(blank_project, "subtasks/T01/rubric.yaml", "weight: 5", "weight: 42")
    stages = replace_in(blank_project, "stages.yaml", "      - T01\n", "      - T01\n      - T07\n")
    run = run_inprocess(capsys, str(blank_project))
    assert_problem(run, "subtasks/T01/rubric.yaml", line_of(rubric, "weight: 42"), "weight")
    assert_problem(run, "stages.yaml", line_of(stages, "- T07"), "T07")
    assert re.search(r"^2 problems found$", run.stderr, re.MULTILINE)


# -- JSON output -----------------------------------------------------------------------------


def test_json_format_in_process(blank_project: Path, capsys) -> None:
    text = replace_in(blank_project, "subtasks/T01/subtask.yaml", "  - M01\n", "  - M01\n  - M09\n")
    run = run_inprocess(capsys, str(blank_project), "--format", "json")
    assert run.code == 1
    data = json.loads(run.stdout)
    assert data["project"] == str(blank_project)
    [finding] = data["findings"]
    assert finding["file"] == "subtasks/T01/subtask.yaml"
    assert finding["line"] == line_of(text, "- M09")
    assert isinstance(finding["column"], int) and finding["column"] >= 1
    assert "M09" in finding["message"]
    assert finding["severity"] == "error"


def test_json_format_clean_project(blank_project: Path, capsys) -> None:
    run = run_inprocess(capsys, str(blank_project), "--format", "json")
    assert run.code == 0
    assert json.loads(run.stdout)["findings"] == []


# -- the real entry point, as a subprocess ---------------------------------------------------


def test_subprocess_clean_template_exits_0_with_its_summary(blank_project: Path) -> None:
    run = run_subprocess(str(blank_project))
    assert (run.code, run.stdout, run.stderr) == (0, clean_summary(blank_project), "")


def test_subprocess_malformed_yaml_exits_1_located(blank_project: Path) -> None:
    text = replace_in(blank_project, "materials.yaml", "title: Source notes", "title: Source: notes: here")
    run = run_subprocess(str(blank_project))
    assert_problem(run, "materials.yaml", line_of(text, "title: Source: notes"), "YAML syntax")


def test_subprocess_unusable_input_exits_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run = run_subprocess(str(empty))
    assert run.code == 2
    assert run.stdout == ""
    assert "not a project folder" in run.stderr and "project.yaml" in run.stderr
    run.assert_no_traceback()


def test_subprocess_json_format(blank_project: Path) -> None:
    text = replace_in(blank_project, "subtasks/T01/rubric.yaml", "dimension: completeness", "dimension: beauty")
    run = run_subprocess(str(blank_project), "--format", "json")
    run.assert_no_traceback()
    assert run.code == 1
    findings = json.loads(run.stdout)["findings"]
    assert findings, run.stdout
    for finding in findings:
        assert {"file", "line", "column", "message"} <= finding.keys()
        assert finding["line"] >= 1 and finding["column"] >= 1 and finding["message"]
    assert any(
        f["file"] == "subtasks/T01/rubric.yaml" and f["line"] == line_of(text, "dimension: beauty")
        and "dimension" in f["message"]
        for f in findings
    )
