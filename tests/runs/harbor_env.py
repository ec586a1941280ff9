"""The separate Python >= 3.12 virtual environment with the current Harbor from PyPI, in which the
Harbor tests load exported tasks and write job folders with Harbor's own models.

Harbor needs Python 3.12 and the app supports 3.11, so Harbor cannot be a test dependency of the
app's own environment. The environment is made once per machine under the user's cache folder
($XDG_CACHE_HOME, else ~/.cache) and reused; pyenv's python3.12 is found through `pyenv root`
(or ~/.pyenv), which these machines have but do not put on PATH. Nothing here skips: a machine
without python3.12, or without PyPI, fails the tests with the reason.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

PROBE = Path(__file__).with_name("harbor_probe.py")
READY = "harbor-ready.json"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dbstudio-tests"


def _pyenv_roots() -> list[Path]:
    roots = []
    if os.environ.get("PYENV_ROOT"):
        roots.append(Path(os.environ["PYENV_ROOT"]))
    pyenv = shutil.which("pyenv") or str(Path.home() / ".pyenv" / "bin" / "pyenv")
    if Path(pyenv).is_file():
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip():
            roots.append(Path(done.stdout.strip()))
    roots.append(Path.home() / ".pyenv")
    return roots


def _version_key(path: Path) -> tuple[int, ...]:
    match = re.search(r"3\.12\.(\d+)", str(path))
    return (int(match.group(1)),) if match else (-1,)


def find_python312() -> Path:
    """pyenv's newest python3.12, else one on PATH; the test fails when there is none."""
    found: list[Path] = []
    for root in _pyenv_roots():
        found += [p for p in (root / "versions").glob("3.12.*/bin/python3.12") if p.is_file()]
    if found:
        return max(found, key=_version_key)
    on_path = shutil.which("python3.12")
    if on_path:
        return Path(on_path)
    pytest.fail("no python3.12 for the Harbor tests: Harbor needs Python >= 3.12; install it with pyenv "
                f"(looked under {', '.join(str(r / 'versions') for r in _pyenv_roots())} and on PATH)")


@functools.cache
def harbor_python() -> Path:
    """The Python of the Harbor environment, made on first use (under a lock, so parallel test
    processes make it once)."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    venv = root / "harbor-venv"
    python = venv / "bin" / "python"
    with open(root / "harbor-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (venv / READY).is_file() and python.is_file():
            return python
        shutil.rmtree(venv, ignore_errors=True)
        base = find_python312()
        _run([str(base), "-m", "venv", str(venv)], "make the Harbor virtual environment")
        _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "harbor"],
             "install harbor from PyPI into it")
        version = _run([str(python), "-c", "import importlib.metadata as m; print(m.version('harbor'))"],
                       "read Harbor's version").strip()
        (venv / READY).write_text(json.dumps({"harbor": version, "python": str(base)}), encoding="utf-8")
    return python


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"could not {what} ({' '.join(command)} exited {done.returncode}): "
                    f"{(done.stderr or done.stdout).strip()[-2000:]}")
    return done.stdout


def probe(*args: str | Path) -> Any:
    """Run tests/runs/harbor_probe.py in the Harbor environment; return the JSON it prints."""
    python = harbor_python()
    done = subprocess.run([str(python), str(PROBE), *map(str, args)], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": ""})
    if done.returncode != 0:
        pytest.fail(f"Harbor's models refused it ({' '.join(map(str, args))}): {done.stderr.strip()[-3000:]}")
    return json.loads(done.stdout)


def harbor_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`harbor ARGS...` from the Harbor environment, run in `cwd`."""
    harbor = harbor_python().parent / "harbor"
    return subprocess.run([str(harbor), *args], cwd=cwd, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": ""}, timeout=300)


