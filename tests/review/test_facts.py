"""Facts before release: figures and names an instruction, the brief or a criterion states too early."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from studio.review.facts import FactIndex, Source, _quick_values, scan
from studio.validation import Severity
from tests.review.sample_copy import append, copy_sample, findings, line_count

EBITDA = "Use FY2025 EBITDA of EUR 38.9m, since the land gain will be restated.\n"
EXTRA_MATERIAL = """  - id: M19
    file: {file}
    title: Additional figures workbook
    kind: new_evidence
    provenance: scenario_assumption
    release:
      {release}
"""


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path)


# -- numbers are matched as numbers --------------------------------------------------------


def keys(text: str, source: bool = False) -> list[tuple[str, ...]]:
    return [figure.keys for figure in scan(text, source)]


def holds(source_text: str, asked: str, file: str = "materials/m.md") -> bool:
    [figure] = scan(asked, source=False)
    index = FactIndex([(Source("M", file, 1, True), source_text)], quick=_quick_values([figure]))
    return bool(index.holders(figure))


def test_decimal_comma_and_million_are_the_same_figure():
    assert holds("EBITDA 38,9", "EUR 38.9m")
    assert holds("EUR 38.9 million", "38.9")
    assert holds("| EBITDA | 38.9 |", "EUR 38.9 million")


def test_a_number_inside_a_longer_number_is_not_the_figure():
    assert not holds("a total of 1638.9 and 38.95", "EUR 38.9m")
    assert not holds("ref38.9", "EUR 38.9m")  # glued to a word: an identifier, not a figure


def test_units_must_agree_when_both_sides_state_one():
    assert holds("cover of 4.22x", "4.22x")
    assert not holds("a rate of 4.22%", "4.22x")
    assert holds("a share of 0.35 of the facility", "35%")  # a share in a cell reads as a percentage


def test_dates_agree_on_day_and_month_unless_the_years_differ():
    assert holds("expected on 29 May", "29 May 2026")
    assert holds("2026-05-29 00:00:00", "29 May 2026")
    assert not holds("signed 29 May 2025", "29 May 2026")


def test_csv_cells_are_apart():
    assert holds("EBITDA margin 12,5", "12.5%")  # prose: a decimal comma
    assert not holds("month,depots\n12,5\n", "12.5%", file="materials/volumes.csv")  # two cells: 12 and 5
    assert holds("month,rate\n2026-06,2.05\n", "2.05%", file="materials/curve.csv")


def test_what_counts_as_a_figure():
    assert keys("EUR 38.9m") == [("38.9|money", "38.9|")]
    assert keys("38,9") == keys("38.9") == [("38.9|*",)]
    assert keys("1,800 units") == [("1800|units", "1800|")]
    assert keys("In 2026 the 3 banks and M12, T04 and FY2025") == []  # years, counts and ids are not figures
    assert keys("a 3M Euribor rate, 3m") == [("3|money", "3|")]  # 3M is a tenor, 3m money
    assert keys("you may be right about 4 may") == []


# -- the rule on the sample -----------------------------------------------------------------


def test_the_sample_states_no_figure_before_its_release(sample: Path):
    assert findings(sample, "facts.before-release") == []


def test_issue_case_ebitda_restated_in_t04_is_an_error(sample: Path):
    append(sample, "subtasks/T04/instruction.md", "\n" + EBITDA)
    [finding] = findings(sample, "facts.before-release")
    assert finding.severity is Severity.ERROR
    assert finding.file == "subtasks/T04/instruction.md"
    assert finding.line == line_count(sample, "subtasks/T04/instruction.md")
    assert "EUR 38.9m" in finding.message and "T04" in finding.message
    assert "M12, released before T06" in finding.message
    assert "materials/cfo-email-ebitda-restatement.md:17" in finding.message  # the other place, with its line


def test_the_same_figure_after_its_release_is_fine(sample: Path):
    append(sample, "subtasks/T07/instruction.md", "\n" + EBITDA)  # M12 arrives before T06
    assert findings(sample, "facts.before-release") == []


def test_a_figure_released_earlier_is_fine(sample: Path):
    append(sample, "subtasks/T04/instruction.md", "\nThe reported FY2025 EBITDA was EUR 41.8m.\n")  # M02, at start
    assert findings(sample, "facts.before-release") == []


def test_a_figure_found_nowhere_else_is_the_instructions_own(sample: Path):
    append(sample, "subtasks/T04/instruction.md", "\nKeep a liquidity buffer of EUR 12.34m.\n")
    assert findings(sample, "facts.before-release") == []


def test_a_figure_only_a_reference_holds_is_an_error(sample: Path):
    append(sample, "subtasks/T02/instruction.md", "\nOpening leverage will be about 4.31x.\n")
    [finding] = findings(sample, "facts.before-release")
    assert "evaluator-only reference R01" in finding.message or "evaluator-only reference R02" in finding.message


def test_a_later_date_in_the_brief_is_an_error(sample: Path):
    append(sample, "brief.md", "\nThe audit opinion is expected on 29 May 2026.\n")
    [finding] = findings(sample, "facts.before-release")
    assert finding.file == "brief.md"
    assert "29 May 2026" in finding.message and "M12, released before T06" in finding.message


def test_a_name_that_arrives_later_is_an_error(sample: Path):
    append(sample, "subtasks/T02/instruction.md", "\nThe contractor will be Tankbouw Limburg.\n")
    [finding] = findings(sample, "facts.before-release")
    assert "Tankbouw Limburg" in finding.message and "M08, released before T03" in finding.message


def rename_client(root: Path, new: str, *files: str) -> None:
    for rel in files:
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8").replace("Kestrel Freight Group", new), encoding="utf-8")


def test_the_clients_own_name_in_the_brief_is_no_error_when_a_later_file_names_it_too(sample: Path):
    # The issue's case: the brief introduces its client; the first material that names the client
    # again arrives later (here M12, before T06). The brief is where the name comes from, not M12.
    rename_client(sample, "Osprey Freight Group", "project.yaml", "brief.md", "materials/cfo-email-ebitda-restatement.md")
    assert "Osprey Freight Group" in (sample / "brief.md").read_text(encoding="utf-8")
    assert findings(sample, "facts.before-release") == []


def test_a_name_the_brief_introduces_is_released_for_every_instruction(sample: Path):
    rename_client(sample, "Osprey Freight Group", "brief.md", "materials/cfo-email-ebitda-restatement.md")
    append(sample, "subtasks/T02/instruction.md", "\nWrite for the board of Osprey Freight Group.\n")
    assert findings(sample, "facts.before-release") == []


def test_a_figure_the_brief_states_early_is_still_an_error_beside_a_name(sample: Path):
    rename_client(sample, "Osprey Freight Group", "brief.md", "materials/cfo-email-ebitda-restatement.md")
    append(sample, "brief.md", "\nOsprey Freight Group expects the audit opinion on 29 May 2026.\n")
    [finding] = findings(sample, "facts.before-release")
    assert finding.file == "brief.md" and "29 May 2026" in finding.message


def test_a_criterion_expecting_a_later_figure_is_a_warning(sample: Path):
    rubric = sample / "subtasks/T03/rubric.yaml"
    text = rubric.read_text(encoding="utf-8")
    first_text = text.index("    text: ") + len("    text: ")
    rubric.write_text(text[:first_text] + "The summary gives the restated EBITDA of EUR 38.9m. "
                      + text[first_text:], encoding="utf-8")
    found = [f for f in findings(sample, "facts.criterion-before-release") if f.file == "subtasks/T03/rubric.yaml"]
    assert len(found) == 1
    assert found[0].severity is Severity.WARNING
    assert found[0].object_id == "T03-C01" and "EUR 38.9m" in found[0].message


def _workbook(path: Path, value: float) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet["A1"], sheet["B1"] = "Adjusted EBITDA", value
    book.save(path)


def test_a_number_in_a_later_workbook_cell_counts(sample: Path):
    _workbook(sample / "materials/additional-figures.xlsx", 57.3)
    append(sample, "materials.yaml", EXTRA_MATERIAL.format(file="additional-figures.xlsx",
                                                           release="at: before\n      subtask: T06"))
    append(sample, "subtasks/T04/instruction.md", "\nAssume adjusted EBITDA of EUR 57.3m.\n")
    [finding] = findings(sample, "facts.before-release")
    assert "M19, released before T06 (materials/additional-figures.xlsx, sheet Sheet, cell B1)" in finding.message


def test_a_number_in_a_workbook_at_start_is_released(sample: Path):
    _workbook(sample / "materials/additional-figures.xlsx", 57.3)
    append(sample, "materials.yaml", EXTRA_MATERIAL.format(file="additional-figures.xlsx", release="at: start"))
    append(sample, "subtasks/T04/instruction.md", "\nAssume adjusted EBITDA of EUR 57.3m.\n")
    assert findings(sample, "facts.before-release") == []
