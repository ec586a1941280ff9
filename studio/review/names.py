"""Finding mentions of materials in a text, in time linear in the text.

A material is named by its id, its file name, or its title when that is 12 characters or more.
A name counts when it is not glued to a word before it (no letter, digit, `_`, `.` or `-`
immediately before) nor after it (no letter, digit, `_` or `-` immediately after), compared
without regard to case. Scanning left to right, at each place the longest name that counts
wins, and the scan resumes after it.

That is what one regular expression of every name would answer, but such an expression tries
every name at every character: a project's review would grow with the square of its size.
Instead an Aho–Corasick automaton (pyahocorasick) finds every place where a name could start in
one pass; each candidate is then confirmed with that name's own expression (boundaries and
case rules exactly as above), so the automaton only ever proposes and never decides.

Case: the automaton runs over a case-folded copy of the text in which every character keeps its
place. ASCII letters fold to lower case. Python's case-insensitive matching also equates a few
ASCII letters with non-ASCII ones (i with ı and İ, k with the Kelvin sign, s with ſ), so those
three letters and every non-ASCII character fold to one placeholder: a folded match is then
necessary for a real one, never sufficient, and confirmation settles it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

import ahocorasick

# Titles shorter than this ("Notes") would match ordinary prose.
MIN_TITLE_LENGTH = 12

_PLACEHOLDER = "\x00"
_AMBIGUOUS_ASCII = "iksIKS"


class _Fold(dict[int, str]):
    """str.translate table: ASCII to lower case, ambiguous letters and non-ASCII to a placeholder."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        folded = _PLACEHOLDER if code > 127 or char in _AMBIGUOUS_ASCII else char.lower()
        self[code] = folded
        return folded


_FOLD = _Fold()


def fold(text: str) -> str:
    """A copy of `text`, character for character, that equal names (ignoring case) share."""
    return text.translate(_FOLD)


class NamedMaterial(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def file(self) -> str | None: ...
    @property
    def title(self) -> str: ...


@dataclass(frozen=True)
class NameHit:
    material_id: str
    start: int
    matched: str


@dataclass
class _Name:
    rank: int  # order of preference: longer names first, then first listed
    material_id: str
    name: str
    _pattern: re.Pattern[str] | None = None

    def match(self, text: str, start: int) -> int | None:
        """End of this name at `start` in `text` if it counts there, else None."""
        if self._pattern is None:  # compiled on first use: most names are never candidates
            self._pattern = re.compile(rf"(?<![\w.-]){re.escape(self.name)}(?![\w-])", re.IGNORECASE)
        found = self._pattern.match(text, start)
        return None if found is None else found.end()


def material_names(material: NamedMaterial) -> list[str]:
    names = [material.id]
    if material.file:
        names.append(PurePosixPath(material.file).name)
    if len(material.title) >= MIN_TITLE_LENGTH:
        names.append(material.title)
    return names


class MaterialNames:
    """Finds mentions of materials in a text: by id (whole word), file name or exact title."""

    def __init__(self, materials: Iterable[NamedMaterial]):
        owner: dict[str, str] = {}  # lower-cased name -> material id; the first material keeps a shared name
        for material in materials:
            for name in material_names(material):
                owner.setdefault(name.lower(), material.id)
        ranked = sorted((name for name in owner if name), key=len, reverse=True)
        self._automaton: ahocorasick.Automaton | None = None
        if not ranked:
            return
        by_folded: dict[str, list[_Name]] = {}
        for rank, name in enumerate(ranked):
            by_folded.setdefault(fold(name), []).append(_Name(rank, owner[name], name))
        self._automaton = ahocorasick.Automaton()
        for folded, candidates in by_folded.items():
            self._automaton.add_word(folded, (len(folded), tuple(candidates)))
        self._automaton.make_automaton()

    def find(self, text: str) -> list[NameHit]:
        if self._automaton is None or not text:
            return []
        # The best confirmed name at each start, then the leftmost ones that do not overlap.
        best: dict[int, tuple[int, str, int]] = {}  # start -> (rank, material id, end)
        for last, (length, candidates) in self._automaton.iter(fold(text)):
            start = last - length + 1
            for name in candidates:
                if start in best and best[start][0] < name.rank:
                    continue
                end_of_name = name.match(text, start)
                if end_of_name is not None:
                    best[start] = (name.rank, name.material_id, end_of_name)
        hits: list[NameHit] = []
        resume = 0
        for start in sorted(best):
            if start < resume:
                continue
            _, material_id, end = best[start]
            hits.append(NameHit(material_id, start, text[start:end]))
            resume = end
        return hits
