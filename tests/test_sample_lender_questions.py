"""The sample's scripted feedback (scripts/lender_questions.py, material M14): the disposal-gain
question follows the leverage the presentation relies on, not a reported figure it cites only
"for reference" beside the restated one. The script runs as the release would run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from studio.store.workspace import sample_project

SCRIPT = sample_project() / "scripts" / "lender_questions.py"
DISPOSAL = "appears to rely on EBITDA including a disposal gain"

# A credit-metrics section as agents write it, on the restated basis (EUR 38.9m, 4.31x, 3.25%).
RESTATED = """\
## Credit metrics at closing

Pro forma net debt is EUR 167.8m (sources and uses below). On restated FY2025 EBITDA of EUR 38.9m,
{leverage} The margin is 3.25%, the top tier of the grid.
"""

CITED_FOR_REFERENCE = [
    "opening net leverage is 4.31x (4.01x on the reported EUR 41.8m, for reference).",
    "opening net leverage is 4.31x; on reported EBITDA, shown for reference only, it would be 4.01x.",
    "opening net leverage is 4.31x, with 4.01x on the reported figure given for reference.",
    "opening net leverage is 4.31x.\n\n| Net leverage basis | Multiple |\n| --- | --- |\n"
    "| Restated EBITDA | 4.31x |\n| Reported EBITDA (for reference) | 4.01x |\n",
]

RELIED_ON = [
    "opening net leverage is 4.01x.",
    "opening net leverage is 4.01x on reported EBITDA, against 4.31x for reference on the restated figure.",
    "opening net leverage is 4.31x; the facility is priced on net leverage of 4.01x.",
]


def lender_questions(tmp_path: Path, presentation: str) -> str:
    source, target = tmp_path / "lender_presentation.md", tmp_path / "out" / "lender_questions.md"
    source.write_text(presentation, encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), str(source), str(target)], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    return target.read_text(encoding="utf-8")


@pytest.mark.parametrize("leverage", CITED_FOR_REFERENCE)
def test_a_reported_multiple_cited_for_reference_draws_no_disposal_question(tmp_path: Path, leverage: str) -> None:
    questions = lender_questions(tmp_path, RESTATED.format(leverage=leverage))
    assert DISPOSAL not in questions
    assert "Please reconcile the opening net leverage of 4.31x to its components" in questions


@pytest.mark.parametrize("leverage", RELIED_ON)
def test_a_reported_multiple_relied_on_draws_the_disposal_question(tmp_path: Path, leverage: str) -> None:
    questions = lender_questions(tmp_path, RESTATED.format(leverage=leverage))
    assert f"The leverage of 4.01x shown {DISPOSAL}" in questions
    assert "reconcile the opening net leverage" not in questions


def test_only_a_reported_multiple_for_reference_asks_for_the_leverage(tmp_path: Path) -> None:
    questions = lender_questions(tmp_path, "Net leverage on reported EBITDA was 4.01x (for reference).\n")
    assert DISPOSAL not in questions
    assert "Please state opening net leverage pro forma for the refinancing" in questions


def test_the_output_is_deterministic(tmp_path: Path) -> None:
    text = RESTATED.format(leverage=CITED_FOR_REFERENCE[0])
    assert lender_questions(tmp_path, text) == lender_questions(tmp_path, text)
