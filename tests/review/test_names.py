"""Finding material names in texts: the automaton agrees with one regular expression of every name."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from hypothesis import given, settings
from hypothesis import strategies as st

from studio.review.names import MaterialNames


@dataclass(frozen=True)
class M:
    id: str
    file: str | None
    title: str


def reference_find(materials: list[M], text: str) -> list[tuple[str, int, str]]:
    """The rule as first written: one case-insensitive regex of every name, longest first.
    Slow (every name at every character), so it serves as the reference here."""
    owner: dict[str, str] = {}
    for m in materials:
        names = [m.id] + ([PurePosixPath(m.file).name] if m.file else []) + ([m.title] if len(m.title) >= 12 else [])
        for name in names:
            owner.setdefault(name.lower(), m.id)
    ranked = sorted(owner, key=len, reverse=True)
    regex = re.compile(rf"(?<![\w.-])(?:{'|'.join(re.escape(n) for n in ranked)})(?![\w-])", re.IGNORECASE)
    hits = []
    for match in regex.finditer(text):
        # The alternative the regex took: the first in order that spells the matched text.
        name = next(n for n in ranked if re.fullmatch(re.escape(n), match.group(0), re.IGNORECASE))
        hits.append((owner[name], match.start(), match.group(0)))
    return hits


def find(materials: list[M], text: str) -> list[tuple[str, int, str]]:
    return [(h.material_id, h.start, h.matched) for h in MaterialNames(materials).find(text)]


MATERIALS = [M("M1", "m1-notes.md", "Notes"), M("M12", "term-sheet.md", "Term sheet of the lenders"),
             M("M2", None, "M1 restated figures")]


def test_a_name_inside_a_longer_word_is_not_a_mention():
    text = "M123 xM1 M1x M1-b M1_ a.M1 term-sheet.mdx M12.5"
    assert find(MATERIALS, text) == reference_find(MATERIALS, text) == [("M12", 42, "M12")]  # "." may follow a name


def test_overlapping_names_the_longest_wins_and_the_scan_resumes_after_it():
    text = "See M1 restated figures, then M1 and M12; term-sheet.md too."
    expected = [("M2", 4, "M1 restated figures"), ("M1", 30, "M1"), ("M12", 37, "M12"), ("M12", 42, "term-sheet.md")]
    assert find(MATERIALS, text) == reference_find(MATERIALS, text) == expected


def test_case_and_unicode_titles():
    materials = [M("M7", None, "Ärger-Bericht zum Kredit"), M("K9", None, "Kestrel skills index")]
    # Python matches k with the Kelvin sign (U+212A) and s with the long s (U+017F), ignoring case.
    text = "Read the ärger-bericht zum kredit and the \u212aestrel \u017fkills INDEX, not k9x."
    assert find(materials, text) == reference_find(materials, text)
    assert [hit[0] for hit in find(materials, text)] == ["M7", "K9"]


def test_no_materials_and_empty_text():
    assert find([], "M1") == []
    assert find(MATERIALS, "") == []


ALPHABET = list("aAkKsSiI01 .-_/\n") + ["\u0131", "\u0130", "\u212a", "\u017f", "\u00c4", "\u00e4", "\u00e9"]
ids = st.text(alphabet="abkMSi01", min_size=1, max_size=3).map(lambda s: "M" + s)
materials_strategy = st.lists(st.builds(M, ids, st.one_of(st.none(), ids.map(lambda s: s + ".md")),
                                        st.text(alphabet=ALPHABET, min_size=1, max_size=16)), min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(materials_strategy, st.data())
def test_agrees_with_the_single_regex(materials: list[M], data: st.DataObject):
    pieces = ALPHABET + [m.id for m in materials] + [m.title for m in materials] + [m.id.upper() for m in materials]
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=40)))
    assert find(materials, text) == reference_find(materials, text)
