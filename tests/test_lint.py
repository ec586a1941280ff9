"""The static checks configured in pyproject.toml pass: ruff, mypy, and the import-linter
contracts that keep the layers of docs/architecture.md. Run here so that CI runs them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_finds_nothing():
    result = _run(sys.executable, "-m", "ruff", "check", "--no-cache", "studio", "tests", "bench", "scripts")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing():
    result = _run(sys.executable, "-m", "mypy", "--cache-dir", "/dev/null")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"Success: no issues found in \d+ source files", result.stdout)


def test_import_contracts_are_kept():
    result = _run(str(BIN / "lint-imports"), "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    kept = re.search(r"Contracts: (\d+) kept, 0 broken", result.stdout)
    assert kept is not None and int(kept.group(1)) >= 4, result.stdout


def test_the_layer_contract_catches_a_wrong_way_import(tmp_path: Path):
    """The contract is live: a model module importing the store breaks it."""
    import shutil

    copy = tmp_path / "checkout"
    shutil.copytree(ROOT / "studio", copy / "studio", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    offender = copy / "studio" / "model" / "vocabulary.py"
    offender.write_text(offender.read_text(encoding="utf-8") + "\nimport studio.store.layout  # noqa\n", encoding="utf-8")
    result = subprocess.run([str(BIN / "lint-imports"), "--no-cache"], cwd=copy, capture_output=True, text=True,
                            check=False, env={"PYTHONPATH": str(copy), "PATH": str(BIN)})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "studio.model is not allowed to import studio.store" in result.stdout
