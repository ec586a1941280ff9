"""README keeps exactly two set-up commands, and CI runs the test one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in section.splitlines() if re.match(r"^ {4}\S", line)]


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one():
    commands = setup_commands()
    assert len(commands) == 2, commands
    launch, test = commands
    assert "launch" in launch and "test" in test
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test in [line.strip() for line in ci.splitlines()]
    for command in commands:
        script = command.split()[-1]
        assert (ROOT / script).is_file(), script


def test_console_script_is_declared():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dbstudio = "studio.cli.main:main"' in pyproject
