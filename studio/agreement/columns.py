"""Reading a clean plain-CSV rating table column-wise: the same Ratings as the row reader
(studio.agreement.reader with RatingsBuilder), without a Python object per row.

Criterion, item, rater, verdict and the optional groups are each coded once with
numpy.unique over the cells' bytes (studio.tabular_arrays); only distinct values become
strings. It reads only what it can read exactly: besides the plain-CSV rules, no id cell that
is empty or that stripping would change, each column named once, no rater twice on a decision,
no conflicting group value. Anything else returns None, and the row reader decides and names
the bad rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from studio.agreement.ratings import ATTRIBUTES, FAIL, MISSING, PASS, CodedColumn, Ratings, normalise_label
from studio.tabular_arrays import Cells, _Declined, factorize, read_padded, split_cells

ID_COLUMNS = ("criterion", "item", "rater")
KNOWN = ID_COLUMNS + ("verdict",) + ATTRIBUTES


def read_plain_ratings(path: Path) -> Ratings | None:
    """The ratings of a clean plain CSV, or None where the row reader must decide."""
    try:
        return _read(*read_padded(path))
    except _Declined:
        return None


def _texts(cells: Cells, column: int, first: np.ndarray) -> list[str]:
    return [cells.text(row, column) for row in first.tolist()]


def _read(buffer: bytearray, size: int) -> Ratings:
    header, cells = split_cells(buffer, size)
    names = [name.strip().lower() for name in header]
    if any(name not in names for name in KNOWN[:4]) or any(names.count(name) > 1 for name in KNOWN):
        raise _Declined("a required column missing, or a column named twice")
    col = {name: names.index(name) for name in KNOWN if name in names}
    if cells.edges_doubtful([col[name] for name in ID_COLUMNS]):
        raise _Declined("an empty id cell, or one that stripping might change")

    criterion, criterion_first = factorize(cells.words(col["criterion"]))
    item, item_first = factorize(cells.words(col["item"]))
    rater, rater_first = factorize(cells.words(col["rater"]))
    criterion_names = _texts(cells, col["criterion"], criterion_first)
    # Items are numbered in sorted order, raters in order of first appearance, as the builder does.
    item_texts = _texts(cells, col["item"], item_first)
    item_names = sorted(item_texts)
    item_rank = np.empty(len(item_texts), dtype=np.int32)
    item_rank[sorted(range(len(item_texts)), key=item_texts.__getitem__)] = np.arange(len(item_texts), dtype=np.int32)
    rater_order = np.argsort(rater_first, kind="stable")
    raters = [cells.text(int(rater_first[r]), col["rater"]) for r in rater_order.tolist()]
    rater_index = np.empty(len(raters), dtype=np.int64)
    rater_index[rater_order] = np.arange(len(raters))

    # Decisions: one per (criterion, item), ordered by item and then as they first came.
    n_criteria = len(criterion_names)
    key = item_rank[item].astype(np.int64) * n_criteria + criterion
    del item, criterion
    decision, decision_first = _dense_codes(key, len(item_texts) * n_criteria)
    n = len(decision_first)
    decision_key = key[decision_first]
    del key
    decision_item = (decision_key // n_criteria).astype(np.int32)
    decision_criterion = decision_key % n_criteria
    del decision_key
    # Decisions are now ordered by (item, criterion); the builder wants (item, first row).
    later = decision_first[1:] > decision_first[:-1]
    if not (later | (decision_item[1:] != decision_item[:-1])).all():
        order = np.lexsort((decision_first, decision_item))
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n)
        decision = position[decision]
        decision_item, decision_criterion = decision_item[order], decision_criterion[order]
        del position, order
    del later, decision_first
    # One rater, one verdict per decision.
    slot = decision * len(raters) + rater_index[rater]
    del rater
    if np.bincount(slot, minlength=n * len(raters)).max() > 1:
        raise _Declined("a rater twice on one decision")

    labels, label_code = _labels(cells, col["verdict"])
    codes = np.full((n, len(raters)), MISSING, dtype=np.int16)
    codes.reshape(-1)[slot] = label_code
    del slot, label_code

    attributes: dict[str, Sequence[str | None]] = {}
    for name in ATTRIBUTES:
        if name in col:
            values = _attribute(cells, col[name], decision, n)
            if values is not None:
                attributes[name] = values
    criteria = list(map(criterion_names.__getitem__, decision_criterion.tolist()))
    return Ratings(raters, labels, codes, decision_item, item_names, criteria, attributes)


def _dense_codes(key: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, first row of each code) for integer keys in [0, span), numbered in
    key order: by a table of the span when it is not much larger than the column, else by
    sorting."""
    rows = len(key)
    if span <= 8 * rows + 1024:
        seen = np.zeros(span, dtype=bool)
        seen[key] = True
        number = np.cumsum(seen, dtype=np.int64) - 1
        del seen
        codes = number[key]
        count = int(number[-1]) + 1 if span else 0
        del number
    else:
        distinct, codes = np.unique(key, return_inverse=True)
        codes, count = codes.reshape(-1), len(distinct)
    first = np.full(count, rows, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(rows))
    return codes, first


def _labels(cells: Cells, column: int) -> tuple[list[str], np.ndarray]:
    """The categories, ordered as the builder orders them, and each row's category (MISSING
    for an empty verdict)."""
    code, first = factorize(cells.words(column))
    label_of = [normalise_label(text) for text in _texts(cells, column, first)]
    labels = sorted({label for label in label_of if label is not None},
                    key=lambda label: (label not in (PASS, FAIL), label != PASS, label))
    if labels and set(labels) <= {PASS, FAIL}:
        labels = [PASS, FAIL]  # a pass/fail scale has both categories even if one is unseen
    index = {label: i for i, label in enumerate(labels)}
    table = np.array([MISSING if label is None else index[label] for label in label_of], dtype=np.int16)
    return labels, table[code]


def _attribute(cells: Cells, column: int, row_position: np.ndarray, n: int) -> CodedColumn | None:
    """Each decision's group value, in decision order (stripped; empty is none), or None when no row has one.
    _Declined when two rows of a decision disagree."""
    code, first = factorize(cells.words(column))
    stripped = [text.strip() for text in _texts(cells, column, first)]
    values = sorted({v for v in stripped if v})
    if not values:
        return None
    index = {v: i for i, v in enumerate(values)}
    value = np.array([index[v] if v else -1 for v in stripped], dtype=np.int64)[code]
    given = value >= 0
    where, what = row_position[given], value[given]
    # Write every given value into its decision (any of them lands), then compare each with
    # what landed: a decision's rows disagree exactly when some row differs.
    landed = np.full(n, -1, dtype=np.int64)
    landed[where] = what
    if not np.array_equal(landed[where], what):
        raise _Declined("a decision with two values of a group")
    del where, what, given
    return CodedColumn(landed, values)
