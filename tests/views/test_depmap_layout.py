"""The dependency map's graph and dot layout on the sample project, without a screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.review.graph import DELIVERABLE, MATERIAL, OUTPUT, SUBTASK
from studio.store.loader import LoadedProject, load_project
from studio.store.workspace import sample_project
from studio.views import depmap
from studio.views.depmap import (
    HANDOFF,
    PRODUCED_BY,
    RELEASE,
    DependencyMap,
    LayoutToolMissingError,
    layout_map,
)


@pytest.fixture(scope="module")
def sample() -> LoadedProject:
    return load_project(sample_project())


@pytest.fixture(scope="module")
def laid_out(sample: LoadedProject) -> tuple[DependencyMap, depmap.MapLayout]:
    dmap = DependencyMap.build(sample.project)
    return dmap, layout_map(dmap)


def test_map_holds_every_subtask_output_material_and_deliverable(sample: LoadedProject) -> None:
    project = sample.project
    dmap = DependencyMap.build(project)
    assert {n.key for n in dmap.of_kind(SUBTASK)} == set(project.timeline())
    assert {n.key for n in dmap.of_kind(OUTPUT)} == set(project.outputs())
    assert {n.key for n in dmap.of_kind(MATERIAL)} == {m.id for m in project.materials.materials}
    assert {n.key for n in dmap.of_kind(DELIVERABLE)} == {d.id for d in project.info.delivery.final_deliverables}
    edges = {(e.source, e.target, e.kind) for e in dmap.edges}
    handoff = project.dependencies.handoffs[0]
    assert ((OUTPUT, handoff.artifact), (SUBTASK, handoff.to), HANDOFF) in edges
    deliverable = project.info.delivery.final_deliverables[0]
    assert ((OUTPUT, deliverable.produced_by), (DELIVERABLE, deliverable.id), PRODUCED_BY) in edges
    first_input = project.subtasks["T01"].inputs[0]
    assert ((MATERIAL, first_input), (SUBTASK, "T01"), RELEASE) in edges


def test_layout_places_every_node_without_overlaps(laid_out) -> None:
    dmap, layout = laid_out
    assert set(layout.boxes) == set(dmap.nodes)
    boxes = list(layout.boxes.values())
    overlapping = [(a.node, b.node) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b)]
    assert overlapping == []
    for box in boxes:
        assert 0 <= box.x and box.x + box.width <= layout.width + 0.5
        assert 0 <= box.y and box.y + box.height <= layout.height + 0.5
    assert len(layout.edges) == len(dmap.edges)


def test_edges_go_forward_along_the_timeline(laid_out) -> None:
    dmap, layout = laid_out
    for edge in layout.edges:
        source, target = layout.boxes[edge.source], layout.boxes[edge.target]
        assert dmap.nodes[edge.source].column < dmap.nodes[edge.target].column
        assert source.x + source.width <= target.x, (edge.source, edge.target)
        # dot routes the spline from the tail's box to the head's, left to right.
        assert edge.points[0][0] <= edge.points[-1][0]


def test_columns_follow_the_timeline(laid_out, sample: LoadedProject) -> None:
    _, layout = laid_out
    lefts = [layout.boxes[(SUBTASK, sid)].x for sid in sample.project.timeline()]
    assert lefts == sorted(lefts) and len(set(lefts)) == len(lefts)
    m12 = layout.boxes[(MATERIAL, "M12")]  # released before T06
    assert layout.boxes[(SUBTASK, "T05")].x < m12.x < layout.boxes[(SUBTASK, "T06")].x


def test_missing_dot_names_the_package(monkeypatch: pytest.MonkeyPatch, sample: LoadedProject) -> None:
    monkeypatch.setattr(depmap.shutil, "which", lambda _name: None)
    with pytest.raises(LayoutToolMissingError, match="'graphviz' package"):
        layout_map(DependencyMap.build(sample.project))


def test_a_label_with_quotes_survives_the_round_trip(sample: LoadedProject) -> None:
    dmap = DependencyMap.build(sample.project)
    node = (SUBTASK, "T01")
    dmap.nodes[node] = depmap.MapNode(SUBTASK, "T01", 'T01 "draft" \\ plan', dmap.nodes[node].column)
    source = depmap.dot_source(dmap).source
    assert 'label="T01 \\"draft\\" \\\\ plan"' in source
    assert node in layout_map(dmap).boxes


def test_impact_nodes_and_criteria_match_the_report(sample: LoadedProject, tmp_path: Path) -> None:
    report = depmap.impact_of_node(sample, (MATERIAL, "M12"))
    nodes = depmap.impact_nodes(report)
    # T06 reads M12; T05 made its model from M09 before M12 corrected it (a stale artifact).
    assert (SUBTASK, "T06") in nodes and (OUTPUT, "T05:outputs/financing_model.xlsx") in nodes
    assert (MATERIAL, "M06") not in nodes and (MATERIAL, "M14") in nodes
    criteria = depmap.affected_criteria(sample, report)
    assert [(c.scope, c.id) for c in criteria] == [(c.scope, c.id) for c in report.criteria]
    rubric = sample.project.rubric("T01")
    first = rubric.criteria[0]
    assert criteria[0].text == first.text and criteria[0].weight == first.weight
    reused = next(c for c in criteria if c.scope == "final" and c.id == "T06-C02")  # reuse_of: its original's
    original = sample.project.checkpoint_criterion("T06-C02")[1]
    assert reused.text == original.text and reused.weight == original.weight


def test_a_layout_that_takes_too_long_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A real slow "dot": a script that sleeps past the limit.
    from studio.views.depmap import LayoutFailedError

    slow = tmp_path / "dot"
    slow.write_text("#!/bin/sh\nsleep 5\n")
    slow.chmod(0o755)
    monkeypatch.setattr(depmap.shutil, "which", lambda _name: str(slow))
    with pytest.raises(LayoutFailedError, match="within 0.2 s"):
        depmap.run_dot("", timeout=0.2)


def test_past_the_crossing_budget_the_longest_edges_start_from_connectors(sample: LoadedProject) -> None:
    dmap = DependencyMap.build(sample.project)
    assert layout_map(dmap).connectors == []  # the sample is drawn with every edge routed
    columns = {node: n.column for node, n in dmap.nodes.items()}
    crossed = sum(columns[e.target] - columns[e.source] - 1 for e in dmap.edges)
    layout = layout_map(dmap, routed_crossings=crossed // 2)
    assert layout.connectors, "half the budget must turn some edges into connectors"
    # Every edge is still drawn once, to its real target; the ones from connectors say so.
    assert sorted((e.source, e.target) for e in layout.edges) == sorted((e.source, e.target) for e in dmap.edges)
    via = {(e.source, e.target) for e in layout.edges if e.via_connector}
    assert via == {(c.node, c.target) for c in layout.connectors}
    longest_kept = max(columns[t] - columns[s] for s, t in {(e.source, e.target) for e in dmap.edges} - via)
    for connector in layout.connectors:
        assert columns[connector.target] - columns[connector.node] >= longest_kept  # the longest went first
        # The connector sits in the column just before the node it feeds, left of it.
        target = layout.boxes[connector.target]
        assert connector.box.x + connector.box.width <= target.x
        column_before = [b for n, b in layout.boxes.items() if columns[n] == columns[connector.target] - 1]
        if column_before:
            assert abs(connector.box.centre[0] - column_before[0].centre[0]) < 1.0
    crossed_now = sum(columns[t] - columns[s] - 1 for s, t in {(e.source, e.target) for e in dmap.edges} - via)
    assert crossed_now <= crossed // 2  # edges from connectors cross no column
    boxes = list(layout.boxes.values()) + [c.box for c in layout.connectors]
    assert not [(a.node, b.node) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b)]
