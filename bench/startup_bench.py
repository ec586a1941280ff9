"""Start-up of `dbstudio` as whole processes, against the floor of starting Python at all.

Each command (`dbstudio --help` through `python -m studio.cli.main` and through the installed
`dbstudio` script, and `dbstudio validate SAMPLE` on projects/kestrel-refinancing) is run
alternately with `python -c pass`, the order flipping each round so drift hits both sides
alike; the ratio of each pair is recorded and min/median/max of the ratios printed. Every run's
exit code and output are checked (help lists every command; the sample validates clean), and
the script exits 1 if any was wrong. Usage: python bench/startup_bench.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.processes import compile_bytecode, spread  # noqa: E402
from studio.cli.registry import COMMANDS  # noqa: E402  (light: names and help only)

SAMPLE = REPO_ROOT / "projects" / "kestrel-refinancing"
TARGET_HELP_RATIO = 3.0
FLOOR = [sys.executable, "-c", "pass"]

Check = Callable[[subprocess.CompletedProcess[str]], str | None]


def lists_every_command(proc: subprocess.CompletedProcess[str]) -> str | None:
    if proc.returncode != 0:
        return f"exit {proc.returncode}, expected 0: {proc.stderr[-300:]}"
    lines = [line.split() for line in proc.stdout.splitlines()]
    missing = [c.name for c in COMMANDS if c.help.split()[:3] not in (words[1:4] for words in lines if words[:1] == [c.name])]
    return f"help does not list {missing}" if missing else None


def validates_clean(proc: subprocess.CompletedProcess[str]) -> str | None:
    if (proc.returncode, proc.stdout, proc.stderr) != (0, "", ""):
        return f"exit {proc.returncode}, expected a clean 0; stdout {proc.stdout[:200]!r} stderr {proc.stderr[-300:]!r}"
    return None


def runs_empty(proc: subprocess.CompletedProcess[str]) -> str | None:
    return None if (proc.returncode, proc.stdout, proc.stderr) == (0, "", "") else "python -c pass failed"


def timed(argv: list[str], check: Check) -> tuple[float, str | None]:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - start
    return elapsed, check(proc)


def measure(argv: list[str], check: Check, rounds: int) -> tuple[list[float], list[float], list[float], list[str]]:
    """Paired runs of `argv` and the floor, alternating which goes first; (ratios, own, floor times, errors)."""
    timed(FLOOR, runs_empty)  # warm the OS caches for both sides
    timed(argv, check)
    ratios, own, floors, errors = [], [], [], []
    for i in range(rounds):
        if i % 2 == 0:
            floor, floor_error = timed(FLOOR, runs_empty)
            mine, error = timed(argv, check)
        else:
            mine, error = timed(argv, check)
            floor, floor_error = timed(FLOOR, runs_empty)
        ratios.append(mine / floor)
        own.append(mine)
        floors.append(floor)
        errors += [e for e in (error, floor_error) if e is not None]
    return ratios, own, floors, errors


def installed_script() -> str | None:
    beside = Path(sys.executable).parent / ("dbstudio.exe" if os.name == "nt" else "dbstudio")
    return str(beside) if beside.is_file() else shutil.which("dbstudio")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="paired runs per command (default 21)")
    rounds = parser.parse_args().rounds

    module = [sys.executable, "-m", "studio.cli.main"]
    cases: list[tuple[str, list[str], Check, float | None]] = [
        ("dbstudio --help (python -m studio.cli.main)", [*module, "--help"], lists_every_command, TARGET_HELP_RATIO),
    ]
    script = installed_script()
    if script is not None:
        cases.append(("dbstudio --help (installed script)", [script, "--help"], lists_every_command,
                      TARGET_HELP_RATIO))
    cases.append(("dbstudio validate SAMPLE", [*module, "validate", str(SAMPLE)], validates_clean, None))

    compile_bytecode()
    print(f"floor: {sys.executable} -c pass; {rounds} paired rounds per command; studio/ compiled to bytecode first")
    wrong: list[str] = []
    for label, argv, check, target in cases:
        ratios, own, floors, errors = measure(argv, check, rounds)
        verdict = "" if target is None else (
            f"  target <= {target:g}x: {'met' if statistics.median(ratios) <= target else 'NOT met'}")
        print(f"{label}: median {statistics.median(own) * 1000:.1f} ms, "
              f"floor {statistics.median(floors) * 1000:.1f} ms; paired ratio {spread(ratios)}{verdict}")
        wrong += [f"{label}: {e}" for e in dict.fromkeys(errors)]
    if script is None:
        print("installed dbstudio script not found (pip install -e . puts it beside the Python); not measured")
    for problem in wrong:
        print(f"WRONG: {problem}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
