"""The dependency map laid out for drawing: the review package's dependency graph, placed in
columns along the timeline by Graphviz's `dot`, as plain boxes and polylines (no Qt)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field

from studio.errors import StudioError
from studio.model import Project
from studio.model.base import split_artifact_ref
from studio.review.graph import DELIVERABLE, MATERIAL, OUTPUT, SUBTASK, DependencyGraph, Node
from studio.review.impact import ImpactReport, impact_of
from studio.store.loader import LoadedProject

# Edge kinds, in the domain's words.
RELEASE, PRODUCES, HANDOFF, PRODUCED_BY, GENERATES = "release", "produces", "handoff", "produced_by", "generates"
POINTS_PER_INCH = 72.0
DOT_PACKAGE = "graphviz"


class LayoutToolMissingError(StudioError):
    """Graphviz's `dot`, which lays out the dependency map, is not installed."""


class LayoutFailedError(StudioError):
    """`dot` refused the graph or gave an answer that cannot be read."""


@dataclass(frozen=True)
class MapNode:
    kind: str  # material, subtask, output or deliverable
    key: str  # its id (SUBTASK:PATH for an output)
    label: str
    column: int  # place along the timeline: materials before their subtask, outputs after it

    @property
    def node(self) -> Node:
        return (self.kind, self.key)


@dataclass(frozen=True)
class MapEdge:
    source: Node
    target: Node
    kind: str


@dataclass
class DependencyMap:
    """What the map shows: every node of the dependency graph with its column on the timeline."""

    nodes: dict[Node, MapNode] = field(default_factory=dict)
    edges: list[MapEdge] = field(default_factory=list)

    @classmethod
    def build(cls, project: Project) -> DependencyMap:
        graph = DependencyGraph.build(project)
        columns = _columns(project)
        last = max(columns.values(), default=0) + 1
        result = cls()
        for sid in project.timeline():
            result._add(project, (SUBTASK, sid), columns, last)
        for source, targets in graph.edges.items():
            for target in targets:
                result._add(project, source, columns, last)
                result._add(project, target, columns, last)
                result.edges.append(MapEdge(source, target, _edge_kind(source, target)))
        for material in project.materials.materials if project.materials else []:
            result._add(project, (MATERIAL, material.id), columns, last)
        return result

    def _add(self, project: Project, node: Node, columns: dict[Node, int], last: int) -> None:
        if node not in self.nodes:
            self.nodes[node] = MapNode(node[0], node[1], _label(project, node), _column_of(node, columns, last))

    def of_kind(self, kind: str) -> list[MapNode]:
        return [n for n in self.nodes.values() if n.kind == kind]


def _columns(project: Project) -> dict[Node, int]:
    """Three columns per timeline place: materials released before subtask i, subtask i, its outputs."""
    columns: dict[Node, int] = {}
    for place, sid in enumerate(project.timeline()):
        columns[(SUBTASK, sid)] = 3 * place + 1
        subtask = project.subtasks.get(sid)
        for output in subtask.outputs if subtask else []:
            columns[(OUTPUT, f"{sid}:{output.path}")] = 3 * place + 2
    for material in project.materials.materials if project.materials else []:
        position = project.release_position(material)
        # release_position is 1-based (0 = at start): "before T(i)" shares T(i)'s band.
        columns[(MATERIAL, material.id)] = 0 if not position else 3 * (position - 1)
    return columns


def _column_of(node: Node, columns: dict[Node, int], last: int) -> int:
    if node in columns:
        return columns[node]
    if node[0] == OUTPUT:  # an output a subtask does not declare: beside its producer
        producer, _ = split_artifact_ref(node[1])
        return columns.get((SUBTASK, producer), 0) + 1
    return last if node[0] == DELIVERABLE else 0


def _label(project: Project, node: Node) -> str:
    kind, key = node
    if kind == OUTPUT:
        producer, path = split_artifact_ref(key)
        return f"{producer}: {path.rsplit('/', 1)[-1]}"
    return key


def _edge_kind(source: Node, target: Node) -> str:
    kinds = {
        (MATERIAL, SUBTASK): RELEASE,
        (SUBTASK, OUTPUT): PRODUCES,
        (OUTPUT, SUBTASK): HANDOFF,
        (OUTPUT, DELIVERABLE): PRODUCED_BY,
        (OUTPUT, MATERIAL): GENERATES,
    }
    return kinds.get((source[0], target[0]), HANDOFF)


# -- layout -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class NodeBox:
    """A node's box in scene points, y growing downwards; (x, y) is the top-left corner."""

    node: Node
    x: float
    y: float
    width: float
    height: float

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x + self.width / 2, self.y + self.height / 2)

    def overlaps(self, other: NodeBox) -> bool:
        return (self.x < other.x + other.width and other.x < self.x + self.width
                and self.y < other.y + other.height and other.y < self.y + self.height)


@dataclass(frozen=True)
class EdgePath:
    """An edge as dot routed it: the control points of a cubic B-spline (1 + 3n points). An edge
    drawn from a connector starts at the connector's box, not at its source's."""

    source: Node
    target: Node
    kind: str
    points: tuple[tuple[float, float], ...]
    via_connector: bool = False


@dataclass(frozen=True)
class ConnectorBox:
    """A stand-in for a node far back on the timeline, drawn in the column just before the node
    it feeds (an off-page connector): the long edge it replaces would cross too many columns."""

    node: Node  # the node it stands for
    target: Node  # the node its edge feeds
    box: NodeBox


@dataclass
class MapLayout:
    width: float
    height: float
    boxes: dict[Node, NodeBox]
    edges: list[EdgePath]
    connectors: list[ConnectorBox] = field(default_factory=list)


# dot's cost grows with the columns its edges cross (one hidden node per column crossed): past
# this many, the longest edges are drawn from connectors instead. The paper's largest project
# (14 subtasks, ~60 materials) crosses under 900 and is drawn with every edge routed.
ROUTED_CROSSINGS = 1500


@dataclass
class DotGraph:
    source: str
    nodes: dict[str, Node]  # dot name -> map node
    connectors: dict[str, tuple[Node, Node]]  # dot name -> (the node it stands for, the node it feeds)


def dot_source(dmap: DependencyMap, routed_crossings: int = ROUTED_CROSSINGS) -> DotGraph:
    """The map as a dot graph (nodes named n0, n1, ... so ids never need quoting rules), each
    timeline column held in one rank by an invisible chain of column anchors. When the edges
    would cross more than `routed_crossings` columns in all, the longest ones start from a
    connector (named k0, k1, ...) in the column before their target."""
    names: dict[Node, str] = {node: f"n{i}" for i, node in enumerate(dmap.nodes)}
    column = {node: n.column for node, n in dmap.nodes.items()}
    members: dict[int, list[str]] = {}
    for node, name in names.items():
        members.setdefault(column[node], []).append(name)
    labels = {name: dmap.nodes[node].label for node, name in names.items()}
    connectors: dict[str, tuple[Node, Node]] = {}
    span = {id(e): column[e.target] - column[e.source] for e in dmap.edges}
    crossed = sum(max(s - 1, 0) for s in span.values())
    from_connector: dict[int, str] = {}  # edge -> the connector it starts from
    for edge in sorted(dmap.edges, key=lambda e: -span[id(e)]):  # longest first, until the rest fit
        if crossed <= routed_crossings or span[id(edge)] <= 2:
            break
        tail = from_connector[id(edge)] = f"k{len(connectors)}"
        connectors[tail] = (edge.source, edge.target)
        members.setdefault(column[edge.target] - 1, []).append(tail)
        labels[tail] = connector_label(dmap.nodes[edge.source])
        crossed -= span[id(edge)] - 1  # from the column before its target it crosses none
    # Edges in the map's own order either way: a map under the budget is laid out as before.
    edge_lines = [f"  {from_connector.get(id(e), names[e.source])} -> {names[e.target]};" for e in dmap.edges]
    lines = [
        "digraph map {",
        "  rankdir=LR; nodesep=0.25; ranksep=0.6; splines=true;",
        '  node [shape=box, fontsize=10, fontname="DejaVu Sans", margin="0.12,0.06", height=0.3];',
    ]
    columns = sorted(members)
    for place in columns:
        lines.append(f"  {{ rank=same; c{place} [style=invis, shape=point, width=0]; {' '.join(members[place])} }}")
    for before, after in zip(columns, columns[1:], strict=False):
        lines.append(f"  c{before} -> c{after} [style=invis, weight=10];")
    lines += [f"  {name} [label={_quote(label)}];" for name, label in labels.items()]
    lines += edge_lines
    lines.append("}")
    return DotGraph("\n".join(lines) + "\n", {name: node for node, name in names.items()}, connectors)


def connector_label(node: MapNode) -> str:
    return f"\u21aa {node.label}"  # a hooked arrow: "comes from further back"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


DOT_TIMEOUT_S = 60.0


def run_dot(source: str, timeout: float = DOT_TIMEOUT_S) -> str:
    """`dot -Tplain` on `source`; a StudioError naming the Debian package when dot is missing."""
    executable = shutil.which("dot")
    if executable is None:
        raise LayoutToolMissingError(
            f"The dependency map is laid out by Graphviz's 'dot', which is not installed: install the "
            f"'{DOT_PACKAGE}' package (sudo apt-get install {DOT_PACKAGE}, or scripts/system-deps.sh)")
    try:
        done = subprocess.run([executable, "-Tplain"], input=source, capture_output=True, text=True, check=False,
                              timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise LayoutFailedError(f"dot did not finish laying out the dependency map within {timeout:g} s: the map "
                                "is too large to draw (the impact report, dbstudio impact, still works)") from error
    if done.returncode != 0:
        raise LayoutFailedError(f"dot could not lay out the dependency map: {done.stderr.strip()}")
    return done.stdout


def layout_map(dmap: DependencyMap, routed_crossings: int = ROUTED_CROSSINGS) -> MapLayout:
    """Lay the map out with dot and read back its boxes and edge splines in points."""
    graph = dot_source(dmap, routed_crossings)
    return parse_plain(run_dot(graph.source), graph, dmap)


def parse_plain(text: str, graph: DotGraph, dmap: DependencyMap) -> MapLayout:
    """Read dot's `-Tplain` output (inches, y up) into scene points with y down."""
    width = height = 0.0
    known = graph.nodes.keys() | graph.connectors.keys()
    placed: dict[str, tuple[float, float, float, float]] = {}
    splines: list[tuple[str, str, list[tuple[float, float]]]] = []
    for line in text.splitlines():
        # Names are n0, k0, ...: never quoted. Only a node's label (after its size) may hold spaces.
        fields = line.split(None, 6) if line.startswith("node ") else line.split()
        if not fields:
            continue
        try:
            if fields[0] == "graph":
                width, height = float(fields[2]) * POINTS_PER_INCH, float(fields[3]) * POINTS_PER_INCH
            elif fields[0] == "node" and fields[1] in known:
                x, y, w, h = (float(v) * POINTS_PER_INCH for v in fields[2:6])
                placed[fields[1]] = (x, y, w, h)
            elif fields[0] == "edge" and fields[1] in known and fields[2] in graph.nodes:
                count = int(fields[3])
                values = [float(v) * POINTS_PER_INCH for v in fields[4:4 + 2 * count]]
                splines.append((fields[1], fields[2], list(zip(values[::2], values[1::2], strict=True))))
        except (IndexError, ValueError) as error:
            raise LayoutFailedError(f"dot gave a line that cannot be read: {line!r} ({error})") from error

    def box(name: str, node: Node) -> NodeBox:
        x, y, w, h = placed[name]
        return NodeBox(node, x - w / 2, height - y - h / 2, w, h)

    boxes = {node: box(name, node) for name, node in graph.nodes.items() if name in placed}
    connectors = [ConnectorBox(node, target, box(name, node))
                  for name, (node, target) in graph.connectors.items() if name in placed]
    kinds = {(e.source, e.target): e.kind for e in dmap.edges}
    edges = []
    for tail, head, points in splines:
        via = tail in graph.connectors
        source, target = graph.connectors[tail][0] if via else graph.nodes[tail], graph.nodes[head]
        edges.append(EdgePath(source, target, kinds.get((source, target), HANDOFF),
                              tuple((x, height - y) for x, y in points), via))
    return MapLayout(width, height, boxes, edges, connectors)


# -- impact -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class AffectedCriterion:
    scope: str
    id: str
    text: str
    weight: float | None


def node_of_item(dmap: DependencyMap, item: str) -> Node | None:
    for node in dmap.nodes:
        if node[1] == item:
            return node
    return None


def impact_nodes(report: ImpactReport) -> set[Node]:
    """The nodes `dbstudio impact` names as reached by a change (the same report, as map nodes)."""
    nodes: set[Node] = {(SUBTASK, s) for s in report.subtasks}
    nodes |= {(OUTPUT, o) for o in report.outputs}
    nodes |= {(MATERIAL, m) for m in report.materials}
    nodes |= {(DELIVERABLE, d) for d in report.deliverables}
    return nodes


def affected_criteria(loaded: LoadedProject, report: ImpactReport) -> list[AffectedCriterion]:
    """The criteria the report names, with their text and weight (a reused criterion shows the
    text and weight of the checkpoint criterion it judges again: the report resolves it)."""
    return [AffectedCriterion(c.scope, c.id, c.text, float(c.weight) if c.weight is not None else None)
            for c in report.criteria]


def impact_of_node(loaded: LoadedProject, node: Node) -> ImpactReport:
    return impact_of(loaded, node[1])
