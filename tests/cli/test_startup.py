"""Start-up: `dbstudio --help` lists every command without importing any of them, and a command
imports only what it needs (`score` neither GitPython nor pydantic). Checked in real processes
that list `sys.modules` as they exit."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from studio.cli.main import build_parser, main
from studio.cli.registry import BY_NAME, COMMANDS
from tests.helpers import REPO_ROOT

HEAVY = {"numpy", "pydantic", "ruamel", "git", "PySide6", "openpyxl", "yaml", "matplotlib"}


# Runs the real entry point as `python -m studio.cli.main` would, and at exit (after SystemExit
# too) writes the names of every module the process holds. -X importtime would miss modules
# loaded by importlib.import_module, which is how commands are loaded.
PROBE = """
import atexit, json, runpy, sys
out = sys.argv.pop(1)
atexit.register(lambda: json.dump(sorted(sys.modules), open(out, "w")))
runpy.run_module("studio.cli.main", run_name="__main__", alter_sys=True)
"""


def imported_modules(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run `dbstudio ARGS` in a fresh process; its result and every module it imported."""
    listing = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", PROBE, str(listing), *args],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    return proc, set(json.loads(listing.read_text()))


def tops(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_help_lists_every_command_and_imports_none_of_them(tmp_path: Path) -> None:
    proc, modules = imported_modules(tmp_path, "--help")
    assert proc.returncode == 0
    for command in COMMANDS:
        assert command.name in proc.stdout and command.help.split()[0] in proc.stdout
    assert {"argparse", "studio.cli.registry"} <= modules  # the probe really sees what was imported
    assert tops(modules) & HEAVY == set()
    assert {m for m in modules if m.startswith("studio.cli.") and m.endswith("_cmd")} == set()


def test_score_imports_neither_gitpython_nor_pydantic(tmp_path: Path) -> None:
    table = tmp_path / "verdicts.csv"
    table.write_text("system,project,scope,criterion,weight,target,dimension,verdict\n"
                     "A,P1,T01,C1,5,checkpoint,correctness,pass\n"
                     "A,P1,final,F1,4,artifact,correctness,fail\n", encoding="utf-8")
    proc, modules = imported_modules(tmp_path, "score", str(table), "--format", "json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert '"P1"' in proc.stdout
    assert "studio.scoring" in modules  # it did score
    assert tops(modules) & {"git", "pydantic", "PySide6", "ruamel"} == set()
    assert "studio.cli.history_cmd" not in modules and "studio.store.history" not in modules


def test_one_command_imports_only_its_own_module(tmp_path: Path) -> None:
    proc, modules = imported_modules(tmp_path, "validate", "--help")
    assert proc.returncode == 0 and "--format" in proc.stdout
    assert {m for m in modules if m.endswith("_cmd")} == {"studio.cli.validate_cmd"}


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_every_registered_command_configures_and_has_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser(name)
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args([name, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: dbstudio {name}") and BY_NAME[name].help in " ".join(out.split())
    # the module really sets what runs the command
    alone = argparse.ArgumentParser()
    BY_NAME[name].configure(alone)
    assert callable(alone.get_default("run"))


def test_no_command_means_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    import studio.cli.gui_cmd as gui_cmd

    seen: list[str | None] = []
    monkeypatch.setattr(gui_cmd, "run", lambda args: seen.append(args.path) or 0)
    assert main([]) == 0
    assert seen == [None]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from studio import __version__

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out == f"dbstudio {__version__}\n"


@pytest.mark.parametrize("spelling", ["absolute", "relative"])
def test_a_folder_as_the_only_word_opens_it_in_the_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      spelling: str):
    """`dbstudio PATH` (what scripts/launch.sh passes on) is `dbstudio gui PATH`; it used to end in
    "invalid choice" because the folder was read as a command's name."""
    import studio.cli.gui_cmd as gui_cmd

    folder = tmp_path / "acme-it-audit"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)
    opened: list[str | None] = []
    monkeypatch.setattr(gui_cmd, "run", lambda args: opened.append(args.path) or 0)
    word = str(folder) if spelling == "absolute" else "acme-it-audit"
    assert main([word]) == 0
    assert opened == [word]


def test_a_mistyped_command_is_still_refused_as_one(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_:
        main(["valdate"])
    assert exit_.value.code == 2
    assert "invalid choice: 'valdate'" in capsys.readouterr().err
