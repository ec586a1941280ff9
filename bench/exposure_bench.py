"""Exposure of every material and subtask output of one 150-subtask project, against a floor.

The project is review_bench's generator run once with the whole paper corpus's counts: 150
subtasks, 661 materials, 3,828 checkpoint criteria, 313 cross-file and 172 package criteria,
1,150 reused ones, and a chain of handoffs from the first subtask to the last (so the early
items reach almost everything: the worst case for a search per item).

The floor is the least any exposure computation pays: building the dependency graph and reading
every criterion's weight once. Each round times the floor and `exposure_of` (alternating which
goes first) and the bench prints min/median/max of the paired ratios; it also times the plain
way, one graph search and one scan of the criteria per item, for comparison. It exits 1 unless
`exposure_of` gives, for every item and every rubric, the same weights as the plain way.
"""

from __future__ import annotations

import argparse
import gc
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.review_bench import (  # noqa: E402
    CHECKPOINT_CRITERIA,
    CROSS_FILE,
    MATERIALS,
    PACKAGE,
    REUSED,
    SUBTASKS,
    make_project,
    timed,
)
from studio.model import Project  # noqa: E402
from studio.model.vocabulary import FINAL_SCOPE  # noqa: E402
from studio.review.exposure import exposure_of  # noqa: E402
from studio.review.graph import MATERIAL, OUTPUT, DependencyGraph, Node, criteria_covering  # noqa: E402
from studio.store.loader import load_project  # noqa: E402

T = TypeVar("T")
Weights = dict[str, dict[str, tuple[int, int]]]  # item -> rubric -> (positive weight, deductions)


def floor_pass(project: Project) -> int:
    """Build the dependency graph and read every criterion's weight once."""
    graph = DependencyGraph.build(project)
    total = sum(len(targets) for targets in graph.edges.values())
    for _scope, criterion in project.all_criteria():
        original = project.checkpoint_criterion(criterion.reuse_of) if criterion.reuse_of else None
        total += (original[1] if original else criterion).weight or 0
    return total


def fast_way(project: Project) -> Weights:
    report = exposure_of(project)
    return {i.item: {r.scope: (r.weight, r.deductions) for r in (*i.checkpoints, i.final) if r.criteria}
            for i in report.items}


def plain_way(project: Project) -> Weights:
    """One breadth-first search and one scan of the criteria per item (no `requires` in this project)."""
    graph = DependencyGraph.build(project)
    criteria = {(scope, c.key): c for scope, c in project.all_criteria()}
    items: list[Node] = [(MATERIAL, m.id) for m in project.materials.materials] if project.materials else []
    items += [(OUTPUT, ref) for ref in project.outputs()]
    found: Weights = {}
    for item in items:
        nodes = list(graph.reached_from(item))
        if item[0] == OUTPUT:
            nodes.append(item)
        sums: dict[str, tuple[int, int]] = {}
        for scope, cid in criteria_covering(project, nodes):
            written = criteria[(scope, cid)]
            scored = written
            if scope == FINAL_SCOPE and written.reuse_of:
                original = project.checkpoint_criterion(written.reuse_of)
                if original is None:
                    continue
                scored = original[1]
            weight = 0 if scored.gate else scored.weight or 0
            plus, minus = sums.get(scope, (0, 0))
            sums[scope] = (plus + max(weight, 0), minus + max(-weight, 0))
        found[item[1]] = sums
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds (default 7)")
    args = parser.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="exposure-bench-"))
    try:
        root = base / "p150"
        make_project(root, 0, SUBTASKS, MATERIALS, CHECKPOINT_CRITERIA, CROSS_FILE, PACKAGE, REUSED,
                     random.Random(11))
        project = load_project(root).project
    finally:
        shutil.rmtree(base, ignore_errors=True)
    items = len(project.materials.materials if project.materials else []) + len(project.outputs())
    print(f"one project: {len(project.timeline())} subtasks, {items} items (materials and outputs), "
          f"{len(project.all_criteria())} criteria")
    plain_time, expected = timed(plain_way, project)
    floors, fasts, ok = [], [], True
    for number in range(args.rounds):
        gc.collect()
        if number % 2 == 0:  # alternate which side runs first
            floor = timed(floor_pass, project)[0]
            fast, answer = timed(fast_way, project)
        else:
            fast, answer = timed(fast_way, project)
            floor = timed(floor_pass, project)[0]
        floors.append(floor)
        fasts.append(fast)
        if answer != expected:
            ok = False
            wrong = sorted(item for item in expected if answer.get(item) != expected[item])
            print(f"  WRONG ANSWER in round {number + 1}: {len(wrong)} items differ, first {wrong[:3]}")
    ratios = [f / fl for f, fl in zip(fasts, floors, strict=True)]
    print(f"\n{args.rounds} rounds, each side timed in turn; ratios are paired per round")
    print(f"  {'':44} {'median ms':>10} {'ratio min':>10} {'median':>8} {'max':>8}")
    print(f"  {'floor: build the graph, read every weight':44} {statistics.median(floors) * 1000:10.1f}")
    print(f"  {'exposure_of (every item, every rubric)':44} {statistics.median(fasts) * 1000:10.1f} "
          f"{min(ratios):9.2f}x {statistics.median(ratios):7.2f}x {max(ratios):7.2f}x")
    print(f"  {'plain way: one search per item (once)':44} {plain_time * 1000:10.1f} "
          f"{'':>10} {plain_time / statistics.median(floors):7.2f}x")
    if ok:
        print(f"  answers agree with the plain way on all {len(expected)} items")
    print("\ntarget: exposure_of <= 15x the floor (its answer has one entry per item and rubric reached: 41,000 here)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
