"""What the whole-process benches share: bytecode compiled as an installed copy has it, one
child process timed with its own resource usage, and the min/median/max line of a ratio."""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def compile_bytecode() -> None:
    """Compile studio/ to bytecode first. An installed wheel has it (pip compiles on install) and
    a checkout writes it on first use, but where PYTHONDONTWRITEBYTECODE is set (as on these
    machines) every child would otherwise compile our modules again and the floor would not."""
    if not compileall.compile_dir(ROOT / "studio", quiet=1):
        raise SystemExit("could not compile studio/ to bytecode")


@dataclass(frozen=True)
class Child:
    """One finished child process: wall and CPU seconds, peak memory, its output."""

    wall: float
    cpu: float
    peak_mib: float
    stdout: str
    stderr: str


def run_child(argv: list[str]) -> Child:
    """Run `argv` from the checkout (on PYTHONPATH) and measure it with os.wait4, so the CPU time
    and the peak resident memory are this child's own. Exits the bench if the child fails."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=err, env={**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"child failed ({code}): {' '.join(argv[:3])} ...\n{stderr[-2000:]}")
    return Child(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout, stderr)


def python_child(code: str, *args: str) -> Child:
    return run_child([sys.executable, "-c", code, *args])


def spread(ratios: list[float]) -> str:
    return f"min {min(ratios):.2f}x  median {statistics.median(ratios):.2f}x  max {max(ratios):.2f}x"
