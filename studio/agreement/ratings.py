"""Ratings of decisions (criterion × item) by raters, encoded for fast statistics.

Any producer — a CSV/xlsx table, or later the app's own verdict store — adds ratings through
RatingsBuilder, which refuses the same conflicts for every producer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from studio.errors import StudioError

PASS, FAIL = "pass", "fail"
_PASS_WORDS = {"1", "pass", "true", "yes"}
_FAIL_WORDS = {"0", "fail", "false", "no"}
MISSING = -1
ATTRIBUTES = ("target", "dimension", "project")


def normalise_label(text: str) -> str | None:
    """pass/fail and their synonyms (any case) become 'pass'/'fail'; empty is missing (None);
    any other label is kept as its own category."""
    word = text.strip()
    low = word.lower()
    if not word:
        return None
    if low in _PASS_WORDS:
        return PASS
    if low in _FAIL_WORDS:
        return FAIL
    return word


class RatingConflict(StudioError, ValueError):
    """A rating that contradicts earlier ones; `column` names the offending field."""

    def __init__(self, column: str, message: str):
        super().__init__(message)
        self.column = column


class CodedColumn(Sequence):
    """A per-decision column of group values held as codes into sorted names (-1: none): reads
    like the list of values, and lets the analysis group decisions without looking at a
    million strings."""

    def __init__(self, codes: np.ndarray, names: list[str]):
        self.codes, self.names = codes, names
        self._named: list[str | None] = [*names, None]  # code -1 is None

    def __len__(self) -> int:
        return len(self.codes)

    @overload
    def __getitem__(self, index: int) -> str | None: ...

    @overload
    def __getitem__(self, index: slice) -> list[str | None]: ...

    def __getitem__(self, index: int | slice) -> str | None | list[str | None]:
        if isinstance(index, slice):
            return [self._named[c] for c in self.codes[index].tolist()]
        return self._named[int(self.codes[index])]

    def __iter__(self) -> Iterator[str | None]:
        return iter(list(map(self._named.__getitem__, self.codes.tolist())))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


def coded(values: Sequence[str | None]) -> CodedColumn:
    """The column as codes into its sorted distinct values."""
    if isinstance(values, CodedColumn):
        return values
    names = sorted(value for value in set(values) if value is not None)
    index: dict[str | None, int] = {name: k for k, name in enumerate(names)}
    index[None] = -1
    return CodedColumn(np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values)), names)


@dataclass
class Ratings:
    """One row per decision; codes[d, r] is the category index of rater r, or -1."""

    raters: list[str]
    categories: list[str]
    codes: np.ndarray  # (decisions, raters) int16
    items: np.ndarray  # (decisions,) int32 index into item_names
    item_names: list[str]
    criteria: list[str]  # per decision
    attributes: dict[str, Sequence[str | None]] = field(default_factory=dict)  # per decision

    @property
    def n_decisions(self) -> int:
        return len(self.criteria)

    @property
    def binary(self) -> bool:
        """The scale is pass/fail (possibly only one of them observed)."""
        return set(self.categories) <= {PASS, FAIL}

    def rater_index(self, name: str) -> int:
        return self.raters.index(name)


class RatingsBuilder:
    """Collects ratings one at a time, then encodes them."""

    def __init__(self) -> None:
        self._decisions: dict[tuple[str, str], int] = {}
        self._criteria: list[str] = []
        self._items: list[str] = []
        self._attributes: dict[str, list[str | None]] = {name: [] for name in ATTRIBUTES}
        self._labels: list[dict[str, str | None]] = []
        self._raters: dict[str, None] = {}

    def add(self, criterion: str, item: str, rater: str, label: str | None,
            target: str | None = None, dimension: str | None = None, project: str | None = None) -> None:
        """Record one rating; raises RatingConflict for an empty field or a second rating."""
        for column, value in (("criterion", criterion), ("item", item), ("rater", rater)):
            if not value:
                raise RatingConflict(column, f"'{column}' is empty")
        key = (criterion, item)
        index = self._decisions.get(key)
        values = {"target": target or None, "dimension": dimension or None, "project": project or None}
        if index is None:
            index = self._decisions[key] = len(self._criteria)
            self._criteria.append(criterion)
            self._items.append(item)
            self._labels.append({})
            for name, given in values.items():
                self._attributes[name].append(given)
        else:
            for name, given in values.items():
                known = self._attributes[name][index]
                if given is not None and known is not None and given != known:
                    raise RatingConflict(
                        name, f"decision ({criterion}, {item}) has {name} '{known}' elsewhere, '{given}' here")
                if known is None and given is not None:
                    self._attributes[name][index] = given
        ratings = self._labels[index]
        if rater in ratings:
            raise RatingConflict("rater", f"rater '{rater}' already rated decision ({criterion}, {item}); "
                                          "one rater gives one verdict per decision")
        ratings[rater] = label
        self._raters.setdefault(rater)

    def build(self) -> Ratings:
        raters = list(self._raters)
        labels = sorted({lab for row in self._labels for lab in row.values() if lab is not None},
                        key=lambda lab: (lab not in (PASS, FAIL), lab != PASS, lab))
        if labels and set(labels) <= {PASS, FAIL}:
            labels = [PASS, FAIL]  # a pass/fail scale has both categories even if one is unseen
        code_of = {lab: i for i, lab in enumerate(labels)}
        rater_of = {r: i for i, r in enumerate(raters)}
        # Decisions ordered by item (then as they came): per-item sums need no sorting later.
        item_names = sorted(set(self._items))
        item_of = {name: i for i, name in enumerate(item_names)}
        order = sorted(range(len(self._items)), key=lambda d: item_of[self._items[d]])
        codes = np.full((len(order), len(raters)), MISSING, dtype=np.int16)
        for row, d in enumerate(order):
            for rater, label in self._labels[d].items():
                if label is not None:
                    codes[row, rater_of[rater]] = code_of[label]
        items = np.fromiter((item_of[self._items[d]] for d in order), dtype=np.int32, count=len(order))
        attributes: dict[str, Sequence[str | None]]
        attributes = {name: [values[d] for d in order] for name, values in self._attributes.items()
                      if any(v is not None for v in values)}
        return Ratings(raters, labels, codes, items, item_names, [self._criteria[d] for d in order], attributes)
