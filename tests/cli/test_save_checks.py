"""`dbstudio save` validates first, `history` shows whole author names, `diff` of a subtask shows
its instruction and rubric, with changed words marked: on real repositories, through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import git, isolate_git, line_of, replace_in, run_cli

RUBRIC = "subtasks/T01/rubric.yaml"
LONG_NAME = "Marta Lindqvist-Oyelaran de la Fuente"


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_git(tmp_path / "home", monkeypatch, "Cli Author", "cli@example.com")


@pytest.fixture
def project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = tmp_path / "acme"
    assert run_cli(capsys, "new", str(root), "--id", "acme", "--title", "Acme", "--template", "finance-transaction")[0] == 0
    return root


def state(root: Path) -> tuple[str, str, str]:
    return (git(root, "rev-parse", "HEAD"), git(root, "status", "--porcelain=v1", "--untracked-files=all"),
            git(root, "ls-files", "--stage"))


@pytest.mark.parametrize("old, new, fragment", [
    ("weight: 5", "weight: [5", ": YAML syntax"),
    ("weight: 5", "weight: 50", ":13: criterion T01-C01: weight must be at most 10"),
], ids=["yaml-syntax", "schema"])
def test_save_refuses_a_changed_file_that_does_not_load(project: Path, capsys: pytest.CaptureFixture[str],
                                                        old: str, new: str, fragment: str) -> None:
    text = replace_in(project, RUBRIC, old, new)
    before = state(project)
    code, out, err = run_cli(capsys, "save", str(project), "-m", "Broken weight")
    assert (code, out) == (1, "")
    assert err.startswith("dbstudio save: nothing was saved: subtasks/T01/rubric.yaml has YAML or schema errors")
    located = [line for line in err.splitlines() if line.startswith(f"  {RUBRIC}:")]
    assert len(located) == 1 and fragment in located[0]
    if "criterion" in fragment:
        assert located[0].startswith(f"  {RUBRIC}:{line_of(text, new)}:")
    assert "nothing was saved" in err and "--force" in err and "Traceback" not in err
    assert state(project) == before

    code, out, err = run_cli(capsys, "save", str(project), "-m", "Broken weight", "--force")
    assert code == 0 and out.startswith("saved ")
    assert "saved although it does not parse" in err and RUBRIC in err
    assert git(project, "show", "--name-only", "--format=", "HEAD").split() == [RUBRIC]
    assert git(project, "show", f"HEAD:{RUBRIC}") == text


def test_a_broken_file_outside_the_save_does_not_stop_it(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace_in(project, RUBRIC, "weight: 5", "weight: 50")
    (project / "notes.md").write_text("# Notes\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "save", str(project), "notes.md", "-m", "Add notes")
    assert code == 0 and out.startswith("saved ")
    assert "the project has 1 validation problem" in err
    assert git(project, "show", "--name-only", "--format=", "HEAD").split() == ["notes.md"]
    assert git(project, "status", "--porcelain").split() == ["M", RUBRIC]


def test_a_clean_save_says_nothing_on_stderr(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replace_in(project, RUBRIC, "weight: 5", "weight: 6")
    assert run_cli(capsys, "save", str(project), "-m", "Raise")[::2] == (0, "")


def test_history_shows_whole_author_names(project: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_AUTHOR_NAME", LONG_NAME)
    replace_in(project, RUBRIC, "weight: 5", "weight: 6")
    assert run_cli(capsys, "save", str(project), "-m", "Raise the weight")[0] == 0
    code, out, _ = run_cli(capsys, "history", str(project))
    newest, oldest = out.splitlines()
    assert code == 0 and f"  {LONG_NAME}  Raise the weight" in newest
    # The column is as wide as the longest name: the shorter one is padded, the messages line up.
    assert oldest.index("Create project") == newest.index("Raise the weight")
    assert f"  Cli Author{' ' * (len(LONG_NAME) - len('Cli Author'))}  Create project" in oldest


def test_subtask_diff_shows_instruction_rubric_and_changed_words(project: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    first = git(project, "rev-parse", "HEAD").strip()
    text = (project / RUBRIC).read_text(encoding="utf-8")
    sentence = text.split("text: ", 1)[1].split("\n", 1)[0]
    words = sentence.split()
    changed = " ".join([*words[:2], "clearly", *words[2:-1], "paragraph, in plain words."])
    replace_in(project, RUBRIC, sentence, changed)
    replace_in(project, RUBRIC, "weight: 5", "weight: 7")
    with (project / "subtasks/T01/instruction.md").open("a", encoding="utf-8") as instruction:
        instruction.write("\nCite every figure's source.\n")
    code, out, err = run_cli(capsys, "diff", str(project), "T01", first)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "subtask T01 (subtasks/T01/subtask.yaml)"
    assert "  instruction (subtasks/T01/instruction.md):" in lines
    assert "    +Cite every figure's source." in lines
    assert f"  rubric ({RUBRIC}):" in lines
    at = lines.index("    criterion T01-C01:")
    assert lines[at + 1] == ("      text: " + " ".join(words[:2]) + " {+clearly+} " + " ".join(words[2:-1])
                             + f" [-{words[-1]}-] {{+paragraph, in plain words.+}}")
    assert lines[at + 2] == "      weight: 5 -> 7"
    assert sentence not in out and changed not in out  # the changed words, not the two whole sentences


def test_subtask_diff_lists_added_and_removed_criteria(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = git(project, "rev-parse", "HEAD").strip()
    text = (project / RUBRIC).read_text(encoding="utf-8")
    criterion = text.split("criteria:\n", 1)[1]
    (project / RUBRIC).write_text(text.replace("T01-C01", "T01-C09") + criterion.replace("T01-C01", "T01-C10"),
                                  encoding="utf-8")
    code, out, _ = run_cli(capsys, "diff", str(project), "T01", first)
    assert code == 0
    assert "    criterion T01-C09: added" in out.splitlines()
    assert "    criterion T01-C10: added" in out.splitlines()
    assert "    criterion T01-C01: removed" in out.splitlines()


def test_subtask_diff_says_when_its_rubric_does_not_parse(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = git(project, "rev-parse", "HEAD").strip()
    replace_in(project, RUBRIC, "weight: 5", "weight: [5")
    code, out, _ = run_cli(capsys, "diff", str(project), "T01", first)
    assert code == 0
    assert out.splitlines()[-2:] == [f"  rubric ({RUBRIC}):",
                                     "    does not parse in the new revision: its criteria are not compared"]
    assert "removed" not in out
