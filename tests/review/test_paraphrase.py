"""Paraphrased leaks: instruction sentences that reword an evaluator-only note."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from studio.review.paraphrase import THRESHOLD, ReferenceSentences, sentences
from studio.store.workspace import sample_project
from studio.validation import Severity
from tests.review.sample_copy import append, copy_sample, findings, line_count

DATA = Path(__file__).parent / "data" / "paraphrases.csv"
# Nine words, no run of 12 shared with R02 ("The internal paragraph at the end of M10 (Zuidkust
# fallback, acceptable margin) and the adviser's fee in M01 must never reach lender documents.")
ZUIDKUST = "Never let the Zuidkust fallback reach any lender document.\n"

# What docs/review-rules.md states for the tuning set; the test fails if the rule does worse.
DOCUMENTED_PRECISION, DOCUMENTED_RECALL = 0.96, 0.71


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample(tmp_path)


def test_the_sample_paraphrases_no_reference(sample: Path):
    assert findings(sample, "leak.reference-paraphrased") == []


def test_issue_case_nine_word_paraphrase_in_an_instruction_is_an_error(sample: Path):
    assert len(ZUIDKUST.split()) == 9
    append(sample, "subtasks/T07/instruction.md", "\n" + ZUIDKUST)
    assert findings(sample, "leak.reference-quoted") == []  # too short a run for the verbatim rule
    [finding] = findings(sample, "leak.reference-paraphrased")
    assert finding.severity is Severity.ERROR
    assert finding.file == "subtasks/T07/instruction.md"
    assert finding.line == line_count(sample, "subtasks/T07/instruction.md")
    assert finding.object_id == "R02" and "Zuidkust fallback" in finding.message


def test_a_paraphrase_in_the_brief_is_an_error(sample: Path):
    append(sample, "brief.md", "\nThe fleet valuation was requested by management for insurance and includes leased "
           "units.\n")  # R02; the valuation itself (M06) arrives only before T02
    [finding] = findings(sample, "leak.reference-paraphrased")
    assert finding.file == "brief.md" and finding.object_id == "R02"


def test_restating_a_released_material_is_not_a_leak(sample: Path):
    # R03 summarises Rheinwald's condition (b) from M15, released before T08: by T09 the agent has it.
    sentence = "The CFO must confirm in writing that the Venlo works are funded within the FY2026 plan.\n"
    append(sample, "subtasks/T09/instruction.md", "\n" + sentence)
    assert findings(sample, "leak.reference-paraphrased") == []


def test_an_unrelated_sentence_on_the_same_topic_is_not_flagged(sample: Path):
    append(sample, "subtasks/T07/instruction.md",
           "\nKeep the lender presentation to twenty pages and number every table.\n")
    assert findings(sample, "leak.reference-paraphrased") == []


def test_sentences_split_at_headings_list_items_and_cells():
    text = "**Fleet (T02).** Only the 692 owned units can be charged as security now.\n- a b c d e f g h\n| x |"
    assert [s.text for s in sentences(text, min_words=2)] == [
        "**Fleet (T02).", "Only the 692 owned units can be charged as security now.", "- a b c d e f g h"]


def _scores() -> tuple[int, int, int]:
    references = ReferenceSentences((p.stem, p.read_text(encoding="utf-8"))
                                     for p in sorted((sample_project() / "evaluator").glob("*.md")))
    true_positives = false_positives = false_negatives = 0
    with DATA.open(encoding="utf-8", newline="") as file:
        for row in csv.DictReader(file):
            flagged = bool(references.paraphrases(row["sentence"], THRESHOLD))
            paraphrase = row["label"] == "paraphrase"
            true_positives += flagged and paraphrase
            false_positives += flagged and not paraphrase
            false_negatives += paraphrase and not flagged
    return true_positives, false_positives, false_negatives


def test_precision_and_recall_on_the_tuning_set_are_as_documented():
    true_positives, false_positives, false_negatives = _scores()
    assert true_positives + false_negatives == 42  # the paraphrases in the set
    precision = true_positives / (true_positives + false_positives)
    recall = true_positives / (true_positives + false_negatives)
    assert precision >= DOCUMENTED_PRECISION
    assert recall >= DOCUMENTED_RECALL
