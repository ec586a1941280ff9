"""Cycle finding over small directed graphs given as successor lists; the one implementation
used by validation (requires, handoffs), review (artifact flow) and scoring (requires)."""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


def cyclic_components(successors: Mapping[N, Iterable[N]], *, self_loops: bool = True) -> list[list[N]]:
    """The strongly connected components that contain a cycle, each as its nodes in discovery
    order; a node lies on some cycle exactly when it is in one of them. Tarjan's algorithm,
    iterative, so a 100,000-long chain does not exhaust the stack. Successors missing from the
    mapping are leaves; with `self_loops` False an edge from a node to itself is ignored.
    """
    counter = 0
    number: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    found: list[list[N]] = []
    for root in successors:
        if root in number:
            continue
        number[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(successors.get(root, ())))]
        while work:
            node, children = work[-1]
            for child in children:
                if child == node and not self_loops:
                    continue
                if child not in number:
                    number[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors.get(child, ()))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], number[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == number[node]:
                    component: list[N] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    component.reverse()
                    looped = len(component) > 1 or (self_loops and node in set(successors.get(node, ())))
                    if looped:
                        found.append(component)
    return found


def find_cycles(successors: Mapping[N, Iterable[N]], *, self_loops: bool = True) -> list[list[N]]:
    """One cycle per cyclic component, as its nodes in order with the first repeated at the end
    (`[a, b, a]`), starting from the component's first-discovered node. A graph has a cycle
    exactly when the result is non-empty."""
    cycles: list[list[N]] = []
    for component in cyclic_components(successors, self_loops=self_loops):
        start, members = component[0], set(component)
        # Shortest way back to `start` inside the component (breadth first).
        came_from: dict[N, N] = {}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            nexts = successors.get(node, ())
            if start in nexts and (node != start or self_loops):
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                cycles.append(path[::-1] + [start] if node != start else [start, start])
                break
            for child in nexts:
                if child in members and child not in came_from and child != start:
                    came_from[child] = node
                    queue.append(child)
    return cycles
