"""What the bench scripts share: the wrong-answer list, a spread line, paired rounds and the section runner."""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

# every wrong answer a bench found, printed at the end (the script then exits 1)
wrong: list[str] = []


def check(ok: bool, problem: str) -> None:
    """Note `problem` once if `ok` is false: a bench that times a wrong answer must not pass."""
    if not ok and problem not in wrong:
        wrong.append(problem)


def spread(label: str, values: list[float], unit: str = "") -> str:
    return (f"{label}: min {min(values):.3f}{unit}  median {statistics.median(values):.3f}{unit}  "
            f"max {max(values):.3f}{unit}")


def paired(rounds: int, side: Callable[[], float], floor: Callable[[], float]) -> tuple[list[float], list[float]]:
    """Run both sides each round, alternating which goes first (a noisy machine then hurts both alike)."""
    sides, floors = [], []
    for number in range(rounds):
        if number % 2:
            floors.append(floor())
            sides.append(side())
        else:
            sides.append(side())
            floors.append(floor())
    return sides, floors


def report_wrong() -> int:
    """Print the wrong answers, if any; the script's exit status."""
    if wrong:
        print("WRONG ANSWERS:\n  " + "\n  ".join(wrong))
        return 1
    return 0


Section = Callable[[argparse.Namespace, Path], None]


def run_sections(parser: argparse.ArgumentParser, sections: dict[str, Section], prefix: str) -> int:
    """Parse the arguments (adding --only), run the chosen sections in one temporary folder, report."""
    parser.add_argument("--only", choices=sorted(sections))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        for name, section in sections.items():
            if args.only in (None, name):
                section(args, Path(folder))
    return report_wrong()
