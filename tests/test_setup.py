"""Set-up: README keeps exactly two commands (CI runs the test one); they run from the project venv."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from studio import bundled

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


def test_the_project_venv_is_ignored_by_git():
    ignored = subprocess.run(["git", "check-ignore", "-q", ".venv/bin/python"], cwd=ROOT)
    assert ignored.returncode == 0


def test_launch_and_test_run_from_the_project_venv_not_the_system_python():
    for script in ("scripts/launch.sh", "scripts/test.sh"):
        lines = [line.strip() for line in (ROOT / script).read_text(encoding="utf-8").splitlines()
                 if line.strip() and not line.lstrip().startswith("#")]
        assert any(line.startswith("bash scripts/venv.sh") for line in lines), script
        assert lines[-1].startswith("exec .venv/bin/"), script
        assert not any("python3 -m pip" in line for line in lines), script


def test_in_a_source_checkout_the_data_is_read_from_the_top_level_folders():
    assert bundled.source_checkout() == ROOT
    assert bundled.templates_dir() == ROOT / "resources" / "templates"
    assert bundled.samples_dir() == ROOT / "projects"
    assert bundled.schemas_dir() == ROOT / "schemas"


def _run_venv_script(checkout: Path, *args: str, python: str) -> subprocess.CompletedProcess[str]:
    variables = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    variables["DBSTUDIO_PYTHON"] = python
    return subprocess.run(["bash", str(checkout / "scripts" / "venv.sh"), *args], cwd=checkout, env=variables,
                          capture_output=True, text=True, timeout=600)


def test_venv_script_refuses_a_python_older_than_3_11(tmp_path: Path):
    old = tmp_path / "python3.9"
    old.write_text("#!/bin/sh\n"
                   "case \"$*\" in *platform*) echo 3.9.18;; *) exit 1;; esac\n")
    old.chmod(0o755)
    shutil.copytree(ROOT / "scripts", tmp_path / "checkout" / "scripts")
    result = _run_venv_script(tmp_path / "checkout", python=str(old))
    assert result.returncode == 1
    assert f"{old} is Python 3.9.18: 3.11 or newer is needed" in result.stderr
    assert not (tmp_path / "checkout" / ".venv").exists()


PROBE_PYPROJECT = """\
[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "venv-probe"
version = "0"

[tool.hatch.build.targets.wheel]
packages = ["probe"]
"""


def test_venv_script_makes_the_venv_once_and_reinstalls_only_when_pyproject_changes(tmp_path: Path):
    """A real run of scripts/venv.sh on a tiny package: create, reuse without pip, reinstall."""
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "scripts", checkout / "scripts")
    (checkout / "probe").mkdir()
    (checkout / "probe" / "__init__.py").write_text("ANSWER = 42\n")
    (checkout / "pyproject.toml").write_text(PROBE_PYPROJECT)
    base = getattr(sys, "_base_executable", sys.executable)
    version = ".".join(map(str, sys.version_info[:3]))
    using = f"venv: using Python {version} from {checkout.resolve()}/.venv/bin/python"

    first = _run_venv_script(checkout, python=base)
    assert first.returncode == 0, first.stderr
    assert "venv: creating .venv" in first.stderr and "venv: installing" in first.stderr
    assert using in first.stderr
    probe = subprocess.run([str(checkout / ".venv" / "bin" / "python"), "-c", "import probe; print(probe.ANSWER)"],
                           capture_output=True, text=True)
    assert probe.stdout == "42\n", probe.stderr

    again = _run_venv_script(checkout, python=base)
    assert again.returncode == 0, again.stderr
    assert "venv: .venv is up to date (pip skipped)" in again.stderr
    assert "creating" not in again.stderr and "installing" not in again.stderr
    assert using in again.stderr

    (checkout / "pyproject.toml").write_text(PROBE_PYPROJECT + "# a changed pyproject.toml\n")
    changed = _run_venv_script(checkout, python=base)
    assert changed.returncode == 0, changed.stderr
    assert "venv: installing" in changed.stderr and "creating" not in changed.stderr
