"""Generate the reviewer's questions on the agent's draft report (material M03).

Usage:
    python feedback_on_report.py REPORT.md OUTPUT.md

Runs at release time, just before T02, with the agent's own T01 report. Replace the questions
with the feedback your project needs; keep it deterministic (the same report gives the same
questions) and to the standard library.
"""

from __future__ import annotations

import sys
from pathlib import Path


def questions_for(report: str) -> list[str]:
    """The questions a reviewer asks about a report's text."""
    text = report.lower()
    asked = []
    if "objective" not in text:
        asked.append("The report does not state the client's objective: please add it to the first paragraph.")
    if "source" not in text:
        asked.append("Which source does each figure come from?")
    asked.append("What would change in your conclusion if the main figure were revised?")
    return asked


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: feedback_on_report.py REPORT.md OUTPUT.md", file=sys.stderr)
        return 2
    try:
        report = Path(argv[1]).read_text(encoding="utf-8", errors="replace")
    except OSError:
        report = ""
    lines = ["# Reviewer questions on the draft report", ""]
    lines += [f"{number}. {question}" for number, question in enumerate(questions_for(report), start=1)]
    Path(argv[2]).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
