"""Word-level text changes in `dbstudio diff`: the changed words, marked as git's --word-diff does."""

from __future__ import annotations

from studio.store.object_diff import FieldChange, word_diff


def test_a_changed_figure_is_marked_in_place() -> None:
    old = "The model's opening net debt equals the restated figure of EUR 212.4m."
    new = "The model's opening net debt equals the restated figure of EUR 167.8m."
    assert word_diff(old, new) == ("The model's opening net debt equals the restated figure of EUR "
                                   "[-212.4m.-] {+167.8m.+}")


def test_insertions_deletions_and_unchanged_text() -> None:
    assert word_diff("a b c", "a b c d") == "a b c {+d+}"
    assert word_diff("x a b c", "a b c") == "[-x-] a b c"
    assert word_diff("one  two\nthree", "one two three") == "one two three"  # white space is not a word


def test_prose_fields_render_as_word_diffs_and_values_as_before_and_after() -> None:
    assert FieldChange("text", "States the client objective.", "States the business objective.").render() == \
        "text: States the [-client-] {+business+} objective."
    assert FieldChange("weight", 5, 8).render() == "weight: 5 -> 8"
    assert FieldChange("review.status", "draft", "approved").render() == "review.status: 'draft' -> 'approved'"
