"""The one cycle finder: cycles found, none invented, deep chains without recursion."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from studio.graphs import cyclic_components, find_cycles


def _has_cycle_by_kahn(graph: dict[int, list[int]]) -> bool:
    nodes = set(graph) | {n for succ in graph.values() for n in succ}
    indegree = dict.fromkeys(nodes, 0)
    for succ in graph.values():
        for n in succ:
            indegree[n] += 1
    ready = [n for n in nodes if indegree[n] == 0]
    removed = 0
    while ready:
        node = ready.pop()
        removed += 1
        for n in graph.get(node, ()):
            indegree[n] -= 1
            if indegree[n] == 0:
                ready.append(n)
    return removed < len(nodes)


def test_a_triangle_and_a_self_loop():
    assert find_cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["d"]}) == [["a", "b", "c", "a"], ["d", "d"]]


def test_self_loops_can_be_ignored():
    assert find_cycles({"d": ["d"], "e": ["d"]}, self_loops=False) == []


def test_a_dag_has_none():
    assert find_cycles({"a": ["b", "c"], "b": ["c"], "c": []}) == []


def test_a_chain_far_deeper_than_the_recursion_limit():
    graph = {i: [i + 1] for i in range(100_000)}
    assert find_cycles(graph) == []
    graph[100_000] = [0]
    (cycle,) = find_cycles(graph)
    assert len(cycle) == 100_002 and cycle[0] == cycle[-1] == 0


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.integers(0, 12), st.lists(st.integers(0, 12), max_size=4), max_size=13))
def test_agrees_with_kahn_and_reports_real_cycles(graph: dict[int, list[int]]):
    cycles = find_cycles(graph)
    assert bool(cycles) == _has_cycle_by_kahn(graph)
    for cycle in cycles:
        assert cycle[0] == cycle[-1]
        assert all(b in graph.get(a, ()) for a, b in zip(cycle, cycle[1:]))


def test_every_node_on_a_cycle_is_reported():
    rng = random.Random(7)
    for _ in range(200):
        graph = {n: rng.sample(range(10), rng.randint(0, 3)) for n in range(10)}
        on_cycles = {n for c in cyclic_components(graph) for n in c}
        assert len(find_cycles(graph)) == len(cyclic_components(graph))
        for n in graph:
            # n is on a cycle iff it reaches itself
            seen, stack = set(), list(graph[n])
            while stack:
                m = stack.pop()
                if m not in seen:
                    seen.add(m)
                    stack.extend(graph.get(m, ()))
            assert (n in seen) == (n in on_cycles), (graph, n)
