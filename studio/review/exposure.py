"""Exposure: how many points of each rubric, and of the final score, hang on one material or
one subtask output, through everything downstream of it (the paper's error propagation,
before any agent is run).

Every item's downstream is computed in one reverse topological pass over the dependency graph:
each node's set of dependent criteria is its own (the criteria covering it) joined with its
successors' sets, held as Python integers used as bitsets. Weight sums are then bit counts over
precomputed masks (one per rubric and weight), so the cost per item is a few big-integer
operations per rubric it reaches, not a graph search.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from studio.collector import collector_paused
from studio.graphs import cyclic_components
from studio.model import Criterion, Project
from studio.model.vocabulary import FINAL_SCOPE, PACKAGE
from studio.review.graph import DELIVERABLE, MATERIAL, OUTPUT, DependencyGraph, Node

DEFAULT_FLAG_SHARE = 0.25
PACKAGE_NODE: Node = ("package", PACKAGE)  # every deliverable feeds it: package criteria cover it


@dataclass(frozen=True)
class RubricExposure:
    """What of one rubric depends on an item: positive weight, deductions it may trigger, gates."""

    scope: str  # a subtask id, or 'final'
    weight: int  # sum of the positive weights of the dependent criteria
    deductions: int  # sum of the magnitudes of the dependent negative criteria
    gates: tuple[str, ...]  # dependent fatal gates
    criteria: int  # how many criteria depend on it
    w_plus: int  # the rubric's W+, the sum of its positive weights

    @property
    def share(self) -> float:
        """Share of the rubric's credit that depends on the item (weight / W+)."""
        return self.weight / self.w_plus if self.w_plus > 0 else 0.0

    @property
    def worst_share(self) -> float:
        """The most the rubric's score can fall from 100, as a share, if every dependent
        criterion goes wrong: credit lost, deductions triggered, a gate tripped (all of it)."""
        if self.w_plus <= 0:
            return 0.0
        return 1.0 if self.gates else min(1.0, (self.weight + self.deductions) / self.w_plus)

    def to_json(self) -> dict[str, Any]:
        return {
            "rubric": self.scope,
            "weight": self.weight,
            "w_plus": self.w_plus,
            "share": round(self.share, 6),
            "deductions": self.deductions,
            "gates": list(self.gates),
            "worst_share": round(self.worst_share, 6),
            "criteria": self.criteria,
        }


@dataclass(frozen=True)
class ItemExposure:
    item: str
    kind: str  # material or output
    final: RubricExposure
    checkpoints: tuple[RubricExposure, ...]  # the checkpoint rubrics it reaches, in timeline order
    process_share: float  # share of the process score (mean of checkpoint scores) its credit holds
    flagged: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "kind": self.kind,
            "flagged": self.flagged,
            "final": self.final.to_json(),
            "process_share": round(self.process_share, 6),
            "checkpoints": [c.to_json() for c in self.checkpoints],
        }


@dataclass
class ExposureReport:
    project: str
    flag_share: float
    final_w_plus: int
    checkpoint_rubrics: int  # the rubrics the process score averages (W+ > 0)
    items: list[ItemExposure] = field(default_factory=list)

    @property
    def flagged(self) -> list[ItemExposure]:
        return [item for item in self.items if item.flagged]

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "flag_share": self.flag_share,
            "final_w_plus": self.final_w_plus,
            "checkpoint_rubrics": self.checkpoint_rubrics,
            "flagged": [i.item for i in self.flagged],
            "items": [i.to_json() for i in self.items],
        }

    def render(self) -> str:
        lines = [
            f"Exposure in {self.project}: the points that hang on each material and subtask output downstream",
            f"final rubric W+ = {self.final_w_plus}; process score = mean of {self.checkpoint_rubrics} checkpoint "
            f"scores; ! = more than {self.flag_share:.0%} of the final score",
            "",
        ]
        width = max((len(item.item) for item in self.items), default=4)
        lines.append(
            f"  {'item':{width}} {'kind':8} {'final':>9} {'share':>6} {'worst':>6} {'process':>8}  "
            "checkpoint rubrics (dependent weight / W+)"
        )
        for item in self.items:
            mark = "!" if item.flagged else " "
            final = item.final
            points = f"{final.weight}/{final.w_plus}"
            rubrics = ", ".join(f"{c.scope} {c.weight}/{c.w_plus}" for c in item.checkpoints) or "-"
            lines.append(
                f"{mark} {item.item:{width}} {item.kind:8} {points:>9} {final.share:6.1%} "
                f"{final.worst_share:6.1%} {item.process_share:8.1%}  {rubrics}"
            )
        if not self.items:
            lines.append("  no materials and no subtask outputs")
        return "\n".join(lines)


@dataclass
class _Rubric:
    scope: str
    w_plus: int
    first: int  # its block of bits starts at this byte ...
    last: int  # ... and ends before this one (blocks are byte-aligned, so a slice of bytes reads it)
    keys: list[str]  # criterion id by bit within the block
    segments: list[tuple[int, int]]  # (signed weight, mask within the block of the criteria with it)
    gates: int  # mask within the block of its fatal gates


class ExposureIndex:
    """Every node's dependent criteria and rubrics, computed once for the whole project."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.rubrics: list[_Rubric] = []
        self.width = 0  # bytes spanned by every rubric's block
        covering = self._number_criteria()
        self.graph = DependencyGraph.build(project)
        for deliverable in project.info.delivery.final_deliverables if project.info else []:
            self.graph.add((DELIVERABLE, deliverable.id), PACKAGE_NODE)
        self.reach = self._propagate(covering)
        self._memos: list[dict[bytes, tuple[RubricExposure, float]]] = [{} for _ in self.rubrics]
        self._numbers: dict[int, list[int]] = {}  # the numbers of the rubrics in a set of them
        self._answers: dict[tuple[int, int], tuple[list[RubricExposure], float]] = {}  # by reach

    # -- criteria as bits -----------------------------------------------------------------------
    def _number_criteria(self) -> dict[Node, tuple[int, int]]:
        """Give each scored criterion a bit in its rubric's block and return each covered node's
        (criteria, rubrics) bits: bit i of the second is rubric i."""
        project = self.project
        scopes = [sid for sid in project.timeline() if sid in project.checkpoint_rubrics]
        scopes += [sid for sid in project.checkpoint_rubrics if sid not in scopes]
        scopes += [FINAL_SCOPE] if project.final_rubric is not None else []
        own: dict[Node, list[int]] = defaultdict(lambda: [0, 0])
        for scope in scopes:
            rubric = project.rubric(scope)
            scored: list[tuple[Criterion, Criterion]] = []
            for written in rubric.criteria if rubric else []:
                found = project.scored_as(scope, written)
                if found is not None:  # a reuse of nothing carries no weight
                    scored.append((written, found))
            keys = [written.key for written, _ in scored]
            covers = _covers_with_requires(scope, scored, keys)
            segments: dict[int, int] = defaultdict(int)
            gates = 0
            rubric_bit = 1 << len(self.rubrics)
            base = 8 * self.width
            for local, (key, (_, criterion)) in enumerate(zip(keys, scored, strict=True)):
                if criterion.gate:
                    gates |= 1 << local
                elif criterion.weight:
                    segments[criterion.weight] |= 1 << local
                bit = 1 << (base + local)
                for node in covers[key]:
                    bits = own[node]
                    bits[0] |= bit
                    bits[1] |= rubric_bit
            w_plus = sum((c.weight or 0) for _, c in scored if not c.gate and (c.weight or 0) > 0)
            first, self.width = self.width, self.width + (len(scored) + 7) // 8
            self.rubrics.append(_Rubric(scope, w_plus, first, self.width, keys, sorted(segments.items()), gates))
        return {node: (bits[0], bits[1]) for node, bits in own.items()}

    # -- the reverse topological pass --------------------------------------------------------
    def _propagate(self, covering: dict[Node, tuple[int, int]]) -> dict[Node, tuple[int, int]]:
        """Each node's (criteria, rubrics) bits: its own joined with every successor's. Nodes on
        a cycle (a broken project) share one set, as each reaches all the others."""
        edges = self.graph.edges
        nodes = set(edges) | {t for targets in edges.values() for t in targets} | set(covering)
        group = {node: node for node in nodes}
        for component in cyclic_components({n: list(edges.get(n, ())) for n in nodes}):
            for member in component:
                group[member] = component[0]
        successors: dict[Node, set[Node]] = {group[n]: set() for n in nodes}
        for source, targets in edges.items():
            for target in targets:
                if group[target] != group[source]:
                    successors[group[source]].add(group[target])
        own: dict[Node, tuple[int, int]] = {}
        for node, bits in covering.items():
            criteria, rubrics = own.get(group[node], (0, 0))
            own[group[node]] = (criteria | bits[0], rubrics | bits[1])
        # Depth first, each node once all its successors are done (sinks first). The groups form a DAG, so
        # no node on the stack is met again below it; graphlib's sorter did the same at twice the cost
        # (it looks for a cycle first, and keeps an object per node).
        reach: dict[Node, tuple[int, int]] = {}
        for start in successors:
            if start in reach:
                continue
            stack = [(start, iter(successors[start]))]
            while stack:
                node, pending = stack[-1]
                for nxt in pending:
                    if nxt not in reach:
                        stack.append((nxt, iter(successors[nxt])))
                        break
                else:
                    stack.pop()
                    criteria, rubrics = own.get(node, (0, 0))
                    for nxt in successors[node]:
                        below = reach[nxt]
                        criteria |= below[0]
                        rubrics |= below[1]
                    reach[node] = (criteria, rubrics)
        return {node: reach[group[node]] for node in nodes}

    # -- answers ---------------------------------------------------------------------------------
    def _blocks(self, node: Node) -> list[tuple[_Rubric, int]]:
        """Each rubric `node` reaches, with the bits (within its block) of its dependent criteria."""
        criteria, rubrics = self.reach.get(node, (0, 0))
        raw = criteria.to_bytes(self.width, "little")
        return [
            (rubric, int.from_bytes(raw[rubric.first : rubric.last], "little"))
            for rubric in (self.rubrics[i] for i in _bits(rubrics))
        ]

    def exposure(self, node: Node) -> list[RubricExposure]:
        """Every rubric `node` reaches, with what of it depends on `node`. Items reaching the
        same criteria of a rubric (most of a long chain does) share one answer."""
        return list(self._reached(node)[0])

    def _reached(self, node: Node) -> tuple[list[RubricExposure], float]:
        """exposure(node) (a list shared by the items of the same reach: not to be changed), and the sum of
        the shares of the checkpoint rubrics in it (the process share before the mean). Per rubric, an
        answer is kept by the raw bytes of its block (a slice of bytes is hashed without building an
        integer; most lookups hit)."""
        reach = self.reach.get(node, (0, 0))
        answered = self._answers.get(reach)
        if answered is not None:  # materials feeding the same outputs reach the same criteria: half the items
            return answered
        criteria, rubrics = reach
        raw = criteria.to_bytes(self.width, "little")
        every, memos = self.rubrics, self._memos
        reached = self._numbers.get(rubrics)
        if reached is None:  # items along a chain reach the same rubrics: two in three are known
            reached = self._numbers[rubrics] = _bits(rubrics)
        found = []
        shares = 0.0
        for i in reached:
            rubric, memo = every[i], memos[i]
            block = raw[rubric.first : rubric.last]
            answer = memo.get(block)
            if answer is None:
                exposure = self._sums(rubric, int.from_bytes(block, "little"))
                share = exposure.share if rubric.scope != FINAL_SCOPE and rubric.w_plus > 0 else 0.0
                answer = memo[block] = (exposure, share)
            found.append(answer[0])
            shares += answer[1]
        self._answers[reach] = found, shares
        return found, shares

    @staticmethod
    def _sums(rubric: _Rubric, local: int) -> RubricExposure:
        weight = deductions = 0
        gates = tuple(rubric.keys[b] for b in _bits(local & rubric.gates))
        count = len(gates)
        for signed, mask in rubric.segments:
            n = (local & mask).bit_count()
            count += n
            if signed > 0:
                weight += signed * n
            else:
                deductions -= signed * n
        return RubricExposure(rubric.scope, weight, deductions, gates, count, rubric.w_plus)

    def dependent_criteria(self, node: Node) -> list[tuple[str, str]]:
        """(scope, criterion id) of every criterion that depends on `node`."""
        return [(rubric.scope, rubric.keys[b]) for rubric, local in self._blocks(node) for b in _bits(local)]


def _bits(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def _covers_with_requires(
    scope: str, scored: list[tuple[Criterion, Criterion]], keys: list[str]
) -> dict[str, set[Node]]:
    """The nodes each criterion depends on: what it covers, and what the criteria it requires
    depend on (it is credited only if they hold). Checkpoint criteria cover outputs; final ones
    cover deliverables or the package."""
    direct: dict[str, set[Node]] = {}
    requires: dict[str, list[str]] = {}
    final = scope == FINAL_SCOPE
    for key, (written, criterion) in zip(keys, scored, strict=True):
        nodes = direct.get(key)
        if nodes is None:
            nodes = direct[key] = set()
        if final:
            nodes.update(PACKAGE_NODE if ref == PACKAGE else (DELIVERABLE, ref) for ref in written.covers)
        else:
            nodes.update((OUTPUT, ref) for ref in written.covers)
        if criterion.requires:
            requires.setdefault(key, []).extend(criterion.requires)
    if not requires:  # the common case: nothing to close over (the sets are this call's own)
        return direct
    closed = {key: set(nodes) for key, nodes in direct.items()}
    changed = True
    while changed:  # requires chains are short; a cycle (reported by validation) just stops growing
        changed = False
        for key, needed in requires.items():
            for other in needed:
                extra = closed.get(other, set()) - closed[key]
                if extra:
                    closed[key] |= extra
                    changed = True
    return closed


def exposure_of(
    project: Project, flag_share: float = DEFAULT_FLAG_SHARE, project_id: str | None = None
) -> ExposureReport:
    """The exposure of every material and every subtask output, most exposed first."""
    # Tens of thousands of small objects (bit sets, answers, items) and no cycle among them: the full
    # collections these allocations trigger walk the whole loaded project (about 7% of the pass).
    with collector_paused():
        return _exposure_of(project, flag_share, project_id)


def _exposure_of(project: Project, flag_share: float, project_id: str | None) -> ExposureReport:
    index = ExposureIndex(project)
    final_w_plus = next((r.w_plus for r in index.rubrics if r.scope == FINAL_SCOPE), 0)
    averaged = [r.scope for r in index.rubrics if r.scope != FINAL_SCOPE and r.w_plus > 0]
    report = ExposureReport(
        project_id or (project.info.id if project.info else ""), flag_share, final_w_plus, len(averaged)
    )
    position = {sid: i for i, sid in enumerate(project.timeline())}
    items: list[tuple[Node, int]] = [
        ((MATERIAL, m.id), project.release_position(m) or 0)
        for m in (project.materials.materials if project.materials else [])
    ]
    items += [((OUTPUT, ref), position.get(sid, 10**6) + 1) for ref, sid in project.outputs().items()]
    nothing_final = RubricExposure(FINAL_SCOPE, 0, 0, (), 0, final_w_plus)
    for node, _ in sorted(items, key=lambda pair: pair[1]):
        rubrics, shares = index._reached(node)
        # the final rubric is numbered last (ExposureIndex._number_criteria), so it ends the list
        if rubrics and rubrics[-1].scope == FINAL_SCOPE:
            final, checkpoints = rubrics[-1], tuple(rubrics[:-1])
        else:
            final, checkpoints = nothing_final, tuple(rubrics)
        process = shares / len(averaged) if averaged else 0.0
        report.items.append(ItemExposure(node[1], node[0], final, checkpoints, process, final.share > flag_share))
    report.items.sort(key=lambda i: (-i.final.share, -i.final.worst_share, -i.process_share))
    return report
