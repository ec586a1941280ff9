"""How the app writes sizes, durations, token counts and enum choices (studio.views.formats)."""

from __future__ import annotations

from studio.model.schedule import MaterialKind
from studio.views.formats import duration_text, enum_choices, file_size, tokens_text


def test_one_file_size_format_for_every_view():
    assert [file_size(n) for n in (34, 2000, 1_500_000, 3_200_000_000)] == ["34 B", "2.0 kB", "1.5 MB", "3.2 GB"]


def test_durations_and_tokens():
    assert [duration_text(s) for s in (None, 12.5, 185, 7440)] == ["", "12.5 s", "3 min 05 s", "2 h 04 min"]
    assert tokens_text({"input": 1200, "output": 300}) == "1,200 in · 300 out" and tokens_text(None) == ""


def test_enum_choices_read_as_words():
    assert ("Source record", "source_record") in enum_choices(MaterialKind)
