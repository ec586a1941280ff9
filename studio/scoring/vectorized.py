"""Scoring a plain CSV verdict table in whole-array passes (numpy), with exactly the scores of
the row-by-row reader and the per-rubric engine.

A machine-written table of 40,000 rows takes most of its reading time in making 400,000
Python strings. This path never makes them: it finds the separators in the file's bytes,
packs every cell into 64-bit words, and factorizes each column once. Only the distinct values
(a few hundred ids, a few dozen cell combinations) become strings, checked by the same
`check_cells` as the row reader. Sums per rubric are bincounts.

It reads only what it can read exactly: a UTF-8 CSV without quotes, NUL bytes or empty lines,
every row as wide as the header, no id cell with surrounding blanks, no criterion twice in a
rubric, weights shared across systems, every `requires` known and acyclic, and W+ > 0. For
anything else it returns None and the caller uses the row-by-row path, which is the
authority: it names each bad row, or scores what this path declined.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from studio.scoring.cells import TARGETS, check_cells
from studio.scoring.engine import (
    DIMENSIONS,
    FINAL_SCOPE,
    FINAL_TARGETS,
    BenchmarkScores,
    RubricColumns,
    RubricResult,
    ScoredCriterion,
    _clip,
    assemble_benchmark,
    system_project_scores,
    unknown_result,
)
from studio.tabular_arrays import Cells, _Declined, factorize, read_padded, split_cells

ID_COLUMNS = ("project", "system", "scope", "criterion")
SPEC_COLUMNS = ("weight", "target", "dimension", "verdict", "gate")

# Effective verdicts h as small ints ordered fail < missing < pass: the three-valued AND of
# `requires` is then the minimum.
FAIL, MISSING, PASS = 0, 1, 2
_H_OF = {False: FAIL, None: MISSING, True: PASS}
_VERDICT_OF = {FAIL: False, MISSING: None, PASS: True}

def score_plain_csv(path: Path) -> BenchmarkScores | None:
    """Scores of the table at `path`, or None where the row-by-row path must decide."""
    try:
        return _score(*read_padded(path))
    except _Declined:
        return None


def _score(buffer: bytearray, size: int) -> BenchmarkScores:
    header, cells = split_cells(buffer, size)
    names = [h.strip().lower() for h in header]
    if any(name not in names for name in ID_COLUMNS + SPEC_COLUMNS[:4]):
        raise _Declined("header lacks a column")
    col = {name: names.index(name) for name in ID_COLUMNS + SPEC_COLUMNS + ("requires",) if name in names}

    if any(names.count(name) > 1 for name in ID_COLUMNS + SPEC_COLUMNS + ("requires",)):
        raise _Declined("a column named twice")
    if cells.edges_doubtful([col[name] for name in ID_COLUMNS]):
        raise _Declined("an empty id cell, or one that stripping might change")

    # Rubrics: one code per (project, system, scope).
    rubric, rubric_first = factorize(np.hstack([cells.words(col[name]) for name in ID_COLUMNS[:3]]))
    rubric = rubric.astype(np.int32)  # intermediates are freed as soon as used: memory stays near 5x the file
    keys = [tuple(cells.text(r, col[name]) for name in ID_COLUMNS[:3]) for r in rubric_first.tolist()]
    final_rubric = np.array([scope == FINAL_SCOPE for _, _, scope in keys])

    # Criteria: one code per id; no id twice in a rubric; one weight per (project, scope, id).
    criterion, criterion_first = factorize(cells.words(col["criterion"]))
    criterion = criterion.astype(np.int32)
    criterion_code = {cells.text(r, col["criterion"]): c for c, r in enumerate(criterion_first.tolist())}
    n_criteria = len(criterion_first)
    row_key = rubric.astype(np.int64) * n_criteria + criterion
    order = np.argsort(row_key, kind="stable")
    sorted_keys = row_key[order]
    del row_key
    if (sorted_keys[1:] == sorted_keys[:-1]).any():
        raise _Declined("a criterion listed twice in one rubric")

    weight, target, dimension, verdict, gate = _specs(cells, col, final_rubric[rubric])

    shared: dict[tuple[str, str], int] = {}
    project_scope = np.array([shared.setdefault((p, scope), len(shared)) for p, _, scope in keys])
    weight_key = project_scope[rubric] * n_criteria + criterion
    del criterion
    by_weight_key = np.argsort(weight_key, kind="stable")
    grouped_keys, grouped_weights = weight_key[by_weight_key], weight[by_weight_key]
    del weight_key, by_weight_key
    same = grouped_keys[1:] == grouped_keys[:-1]
    if (same & (grouped_weights[1:] != grouped_weights[:-1])).any():
        raise _Declined("a criterion weighed differently by two systems")
    del grouped_keys, grouped_weights, same

    h = verdict.copy()
    if "requires" in col:
        _resolve_requires(cells, col["requires"], rubric, n_criteria, criterion_code, order, sorted_keys, h)

    del order, sorted_keys

    def open_rubrics(needed: np.ndarray) -> dict[int, RubricColumns]:
        """The rubrics (by code) whose score missing verdicts leave open, as columns for the
        range computation; rare, so read back from the cells."""
        rows = np.flatnonzero(needed[rubric])
        rows = rows[np.argsort(rubric[rows], kind="stable")]
        found: dict[int, list[ScoredCriterion]] = {}
        for r in rows.tolist():
            requires: tuple[str, ...] = ()
            if "requires" in col:
                requires = tuple(p.strip() for p in cells.text(r, col["requires"]).split(";") if p.strip())
            found.setdefault(int(rubric[r]), []).append(ScoredCriterion(
                cells.text(r, col["criterion"]), int(weight[r]), "", "", _VERDICT_OF[int(verdict[r])], bool(gate[r]),
                requires))
        return {k: RubricColumns.of(criteria) for k, criteria in found.items()}

    return _assemble(keys, final_rubric, rubric, weight, target, dimension, verdict, gate, h, open_rubrics)


def _specs(cells: Cells, col: dict[str, int], final_row: np.ndarray) -> tuple[np.ndarray, ...]:
    """Weight, target index, dimension index, verdict (FAIL/MISSING/PASS) and gate of every
    row: each distinct combination of those cells is checked once by check_cells."""
    present = [name for name in SPEC_COLUMNS if name in col]
    words = np.hstack([cells.words(col[name]) for name in present] + [final_row.astype(np.uint64)[:, None]])
    code, first = factorize(words)
    del words
    table = []
    for row in first.tolist():
        texts = {name: cells.text(row, col[name]) for name in present}
        checked = check_cells(texts["weight"], texts["target"], texts["dimension"], texts["verdict"],
                              texts.get("gate", ""), bool(final_row[row]))
        if isinstance(checked, list):
            raise _Declined("a bad cell")
        w, t, d, v, g = checked
        table.append((w, TARGETS.index(t), DIMENSIONS.index(d), _H_OF[v], g))
    weight, target, dimension, verdict, gate = (np.array(column)[code] for column in zip(*table, strict=False))
    return weight.astype(np.int64), target, dimension, verdict.astype(np.int8), gate.astype(bool)


def _resolve_requires(cells: Cells, column: int, rubric: np.ndarray, n_criteria: int, criterion_code: dict[str, int],
                      order: np.ndarray, sorted_keys: np.ndarray, h: np.ndarray) -> None:
    """Set h of every row with `requires` (h holds the verdicts): its verdict AND the resolved
    h of every criterion it requires."""
    rows = np.flatnonzero(cells.lengths(column))
    if not len(rows):
        return
    code, first = factorize(cells.words(column, rows))
    needed_of: list[np.ndarray] = []
    for r in rows[first].tolist():
        names = [part.strip() for part in cells.text(r, column).split(";") if part.strip()]
        if any(name not in criterion_code for name in names):
            raise _Declined("requires an unknown criterion")
        needed_of.append(np.array([criterion_code[name] for name in names], dtype=np.int64))
    # One (requiring row, required criterion) pair per name in a row's cell.
    counts = np.array([len(needed) for needed in needed_of])[code]
    if not counts.sum():
        return
    offsets = np.cumsum([0] + [len(needed) for needed in needed_of])[code]
    requiring = np.repeat(rows, counts)
    within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    needed_criteria = np.concatenate(needed_of)[np.repeat(offsets, counts) + within]
    # The row of the required criterion in the same rubric, found in the sorted row keys.
    wanted = rubric[requiring] * n_criteria + needed_criteria
    at = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    if not (sorted_keys[at] == wanted).all():
        raise _Declined("requires a criterion its rubric lacks")
    required = order[at]
    # Resolve in rounds: a row is ready once none of the rows it requires still waits. Each
    # round takes the AND (minimum) over resolved rows; a round with nothing ready is a cycle.
    waiting = np.zeros(len(h), dtype=bool)
    waiting[requiring] = True
    while waiting.any():
        blocked = np.zeros(len(h), dtype=bool)
        blocked[requiring[waiting[required]]] = True
        ready = waiting & ~blocked
        if not ready.any():
            raise _Declined("a requires cycle")
        take = ready[requiring]
        np.minimum.at(h, requiring[take], h[required[take]])
        waiting &= ~ready


def _assemble(keys, final_rubric, rubric, weight, target, dimension, verdict, gate, h, open_rubrics) -> BenchmarkScores:
    n_rubrics = len(keys)

    def per_rubric(values, index=rubric, size=n_rubrics) -> np.ndarray:
        return np.bincount(index, weights=values, minlength=size)

    passed, missing_h = h == PASS, h == MISSING
    positive = np.maximum(weight, 0)
    w_plus = per_rubric(positive)
    credit = per_rubric(weight * passed)
    unknown = per_rubric(missing_h) > 0
    missing = per_rubric(verdict == MISSING).astype(np.int64)
    triggered = per_rubric(gate & passed) > 0
    if ((w_plus <= 0) & ~triggered).any():
        raise _Declined("a rubric without positive weight")  # the row path raises the ScoringError
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.clip(100.0 * credit / w_plus, 0.0, 100.0)

    # Profiles of the final rubrics by target and by dimension; gates are left out.
    counted = ~gate
    profiles = []
    for index, size, groups in ((target, len(TARGETS), FINAL_TARGETS), (dimension, len(DIMENSIONS), DIMENSIONS)):
        slot = rubric * size + index
        group_positive = per_rubric(positive * counted, slot, n_rubrics * size).reshape(n_rubrics, size)
        group_credit = per_rubric(weight * (passed & counted), slot, n_rubrics * size).reshape(n_rubrics, size)
        group_unknown = per_rubric(missing_h & counted, slot, n_rubrics * size).reshape(n_rubrics, size) > 0
        offset = TARGETS.index(FINAL_TARGETS[0]) if groups is FINAL_TARGETS else 0
        profiles.append((groups, offset, group_positive.tolist(), group_credit.tolist(), group_unknown.tolist()))

    still_open = unknown & ~triggered
    ranged = open_rubrics(still_open) if still_open.any() else {}
    results: dict[tuple[str, str], dict[str, RubricResult]] = {}
    final_profiles: dict[tuple[str, str], tuple[dict, dict]] = {}
    columns = zip(keys, scores.tolist(), triggered.tolist(), unknown.tolist(), missing.tolist(), w_plus.tolist(),
                  strict=True)
    for k, ((project, system, scope), score, hit, blank, n_missing, w) in enumerate(columns):
        if hit:
            result = RubricResult(0.0, True, n_missing, int(w))
        elif blank:
            result = unknown_result(ranged[k], n_missing, int(w))
        else:
            result = RubricResult(score, False, n_missing, int(w))
        results.setdefault((project, system), {})[scope] = result
        if final_rubric[k]:
            final_profiles[(project, system)] = tuple(  # type: ignore[assignment]  # one per grouping: two
                {g: (None if pos[k][offset + i] <= 0 or unk[k][offset + i]
                     else _clip(100.0 * cred[k][offset + i] / pos[k][offset + i]))
                 for i, g in enumerate(groups)}
                for groups, offset, pos, cred, unk in profiles)
    return assemble_benchmark(
        (project, system, system_project_scores(by_scope, final_profiles.get((project, system))))
        for (project, system), by_scope in results.items())
