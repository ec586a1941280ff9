"""The cells of a verdict-table row that take few distinct values, and how each is checked."""

from __future__ import annotations

from studio.model.vocabulary import Target
from studio.model.weights import weight_problem
from studio.scoring.engine import DIMENSIONS

# Every target a verdict row may name: the checkpoint target, then the final targets in report order.
TARGETS: tuple[str, ...] = tuple(target.value for target in Target)
TRUE_WORDS = {"1", "pass", "true", "yes"}
FALSE_WORDS = {"0", "fail", "false", "no"}


def parse_verdict(text: str) -> bool | None:
    """1/0, pass/fail, true/false, yes/no in any case; empty = missing. ValueError otherwise."""
    word = text.strip().lower()
    if word == "":
        return None
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(text)


def check_cells(weight_cell: str, target_cell: str, dimension_cell: str, verdict_cell: str,
                 gate_cell: str, final: bool) -> tuple | list[tuple[str, str]]:
    """(weight, target, dimension, verdict, gate), or the (column, message) problems of these
    cells; "{scope}" in a message stands for the row's scope."""
    problems: list[tuple[str, str]] = []
    gate = False
    if gate_cell.strip():
        try:
            gate = bool(parse_verdict(gate_cell))
        except ValueError:
            problems.append(("gate", f"gate '{gate_cell}' is not true/false"))
    try:
        weight = int(weight_cell.strip())
    except ValueError:
        problems.append(("weight", f"weight '{weight_cell}' is not an integer"))
        weight = None
    if weight is not None:
        if (problem := weight_problem(weight, gate)) is not None:
            problems.append(("weight", problem))
    target = target_cell.strip().lower()
    if target not in TARGETS:
        problems.append(("target", f"unknown target '{target_cell}'; use one of {', '.join(TARGETS)}"))
    elif final == (target == "checkpoint"):
        expected = "artifact, cross-file or package" if final else "checkpoint"
        problems.append(("target", f"target '{target}' does not fit scope '{{scope}}': use {expected}"))
    dimension = dimension_cell.strip().lower()
    if dimension not in DIMENSIONS:
        problems.append(("dimension", f"unknown dimension '{dimension_cell}'; use one of {', '.join(DIMENSIONS)}"))
    try:
        verdict = parse_verdict(verdict_cell)
    except ValueError:
        problems.append(("verdict", f"verdict '{verdict_cell}' is not one of 1/0, pass/fail, true/false, yes/no "
                                    "(empty = missing)"))
        verdict = None
    return problems or (weight, target, dimension, verdict, gate)
