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
        assert any("bash scripts/venv.sh" in line for line in lines), script
        assert re.match(r'exec ("\$checkout/)?\.venv/bin/', lines[-1]), script
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


def _checkout_with_stub_setup(tmp_path: Path) -> Path:
    """A copy of scripts/ whose set-up steps do nothing and whose `dbstudio` says where it ran
    and with what: what launch.sh hands to the app, without installing or opening it."""
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "scripts", checkout / "scripts")
    for step in ("system-deps.sh", "venv.sh"):
        (checkout / "scripts" / step).write_text("#!/usr/bin/env bash\nexit 0\n")
    (checkout / ".venv" / "bin").mkdir(parents=True)
    dbstudio = checkout / ".venv" / "bin" / "dbstudio"
    dbstudio.write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$PWD" "$@"\n')
    dbstudio.chmod(0o755)
    return checkout


def test_launch_opens_a_project_folder_given_relative_to_where_it_is_run(tmp_path: Path):
    """`scripts/launch.sh PATH`, as its header says: PATH is the caller's, not the checkout's."""
    checkout = _checkout_with_stub_setup(tmp_path)
    work = tmp_path / "engagements"
    (work / "acme-it-audit").mkdir(parents=True)
    result = subprocess.run(["bash", str(checkout / "scripts" / "launch.sh"), "acme-it-audit"], cwd=work,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    cwd, path = result.stdout.splitlines()
    assert (Path(cwd) / path).resolve() == (work / "acme-it-audit").resolve()


LOCK_HELD = ("E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)\n"
             "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?")


def _run_system_deps(tmp_path: Path, apt_get: str) -> subprocess.CompletedProcess[str]:
    """scripts/system-deps.sh as root on a machine where no package is installed yet, with a fake
    apt-get (the shell body `apt_get`) and dpkg on PATH; the fake apt-get logs its calls."""
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "scripts", checkout / "scripts")
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, body in {"apt-get": apt_get, "dpkg": "exit 1", "id": "echo 0"}.items():
        (fake / name).write_text(f"#!/usr/bin/env bash\necho \"$*\" >> {tmp_path / (name + '.log')}\n{body}\n")
        (fake / name).chmod(0o755)
    variables = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["bash", str(checkout / "scripts" / "system-deps.sh")], cwd=checkout, env=variables,
                          capture_output=True, text=True, timeout=60)


def test_system_deps_says_so_when_another_package_manager_holds_the_dpkg_lock(tmp_path: Path):
    """The install finds the lock held (the update got through): one clear line, no per-package retries."""
    result = _run_system_deps(tmp_path, f"case \"$*\" in install*) echo '{LOCK_HELD}' >&2; exit 100;; esac")
    assert result.returncode == 1
    assert "another package manager is running" in result.stderr
    assert "wait for it and retry" in result.stderr
    assert "not in this release" not in result.stderr
    calls = (tmp_path / "apt-get.log").read_text().splitlines()
    assert calls[0] == "update -qq" and len(calls) == 2  # stopped at the first install


def test_system_deps_skips_only_a_package_this_release_lacks(tmp_path: Path):
    lacks = ('case "$*" in *libxcb-cursor0*) echo "E: Unable to locate package libxcb-cursor0" >&2; exit 100;; '
             'esac\nexit 0')
    result = _run_system_deps(tmp_path, lacks)
    assert result.returncode == 0, result.stderr
    assert "could not install libxcb-cursor0 (not in this release?); continuing" in result.stderr
    assert result.stderr.count("not in this release") == 1
    assert "another package manager" not in result.stderr
