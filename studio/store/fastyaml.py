"""Read-only YAML loads through libyaml: plain data and node locations in one C-backed pass.

Opening a project only reads its files, so it does not need ruamel.yaml's round-trip tree
(comments, quotes, order for saving). libyaml (through PyYAML's CParser) composes the node tree
in C; one walk over it builds the plain dicts, lists and scalars pydantic validates, and the
tree itself answers `locate`. The round-trip parser stays the authority: anything this reader
does not handle exactly as it would (explicit tags, aliases, merge keys, timestamps, non-string
or duplicate keys, directives, tabs, syntax errors) is handed to `YamlDocument.parse` + `plain`, so
both always give the same data, locations and messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ruamel.yaml.nodes import ScalarNode as RoundTripScalarNode
from yaml import YAMLError
from yaml._yaml import CParser
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studio.store.yamlfile import (
    MAX_DEPTH,
    PROJECT_INT,
    ProjectResolver,
    YamlDocument,
    plain,
    read_text,
    too_deep,
)

# Tags this reader's resolver gives: plain scalars are resolved during the walk, quoted and
# block scalars are strings, collections are plain maps and lists. An explicit tag is anything else.
_PLAIN = "!fast-plain"
_STR = "!fast-str"
_ODD = "!fast-odd"
_COLLECTION = "!fast-collection"

_NULLS = frozenset(("~", "null", "Null", "NULL"))
_TRUE = frozenset(("true", "True", "TRUE"))
_FALSE = frozenset(("false", "False", "FALSE"))
_NUMBER_START = frozenset("-+0123456789.")
# Left to the round-trip parser: directives, which change how the rest is read; anchors, aliases
# and tags (`&a`, `*a`, `!t` starting a token), whose names the two scanners end differently
# (`&x?*`) and whose copies plain() budgets; tabs (ruamel refuses `a\t`) and block scalar headers
# followed by a comment without a space (`|#`), which libyaml accepts.
# ruamel reads NEL and the Unicode line and paragraph separators as line breaks (YAML 1.1),
# libyaml as text (YAML 1.2); ruamel counts a byte order mark as a column, libyaml skips it.
_ODD_BREAKS = ("\x85", "\u2028", "\u2029", "\ufeff")
_DIRECTIVE = re.compile(r"^%", re.MULTILINE)
_ANCHOR_ALIAS_OR_TAG = re.compile(r"(?<![^\s\[\]{},])[&*!]\S")
_HEADER_COMMENT = re.compile(r"[|>][-+0-9]*#")


def _round_trip_only(text: str) -> bool:
    # Substring tests first: each regex runs only on a text holding its first character.
    return ("\t" in text
            or any(char in text for char in _ODD_BREAKS)
            or ("%" in text and _DIRECTIVE.search(text) is not None)
            or (("&" in text or "*" in text or "!" in text) and _ANCHOR_ALIAS_OR_TAG.search(text) is not None)
            or (("|" in text or ">" in text) and _HEADER_COMMENT.search(text) is not None))
_RESOLVER = ProjectResolver()


class _Unusual(Exception):
    """The text uses a YAML feature left to the round-trip parser."""


class _Composer(CParser):
    """libyaml's composer with a resolver that only sorts scalars by style (see the tags above)."""

    def resolve(self, kind: type[Node], value: str, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            if implicit[0]:
                return _PLAIN
            return _STR if implicit[1] else _ODD  # neither: the non-specific tag `!`
        return _COLLECTION

    # Path resolvers are not used; the composer calls these around every collection.
    def descend_resolver(self, current_node: Node | None, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass


@dataclass
class FastDocument:
    """One project file read for viewing or checking: plain data, and its text to locate in.

    The node tree is composed again on the first `locate`, not kept from the load: most files
    of a project never need a location, and a whole project's trees kept alive make the garbage
    collector's passes over them cost more than the parse itself.
    """

    path: Path
    data: Any
    text: str

    @cached_property
    def root(self) -> Node | None:
        return _compose(self.text)

    def locate(self, loc: tuple[str | int, ...]) -> tuple[int, int]:
        """Same answers as `YamlDocument.locate` on the same text (a property test checks it)."""
        node = self.root
        data = self.data
        line, column = 1, 1
        if node is not None and not isinstance(node, ScalarNode):
            line, column = node.start_mark.line + 1, node.start_mark.column + 1
        for step in loc:
            if isinstance(node, MappingNode) and isinstance(step, str) and isinstance(data, dict) and step in data:
                key_node, value_node = next((k, v) for k, v in node.value if k.value == step)
                line, column = key_node.start_mark.line + 1, key_node.start_mark.column + 1
                # A scalar is located at its value, unless written as nothing (`key:`).
                if isinstance(value_node, ScalarNode) and not (value_node.value == "" and value_node.tag == _PLAIN):
                    line, column = value_node.start_mark.line + 1, value_node.start_mark.column + 1
                node, data = value_node, data[step]
            elif isinstance(node, SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
                node, data = node.value[step], data[step]
                line, column = node.start_mark.line + 1, node.start_mark.column + 1
            else:
                break
        return line, column


Document = FastDocument | YamlDocument


def load(path: Path) -> tuple[Document, Any]:
    """Read one project YAML file: (document to locate in, plain data). Raises YamlSyntaxError."""
    text = read_text(path)
    return parse(Path(path), text)


def parse(path: Path, text: str) -> tuple[Document, Any]:
    try:
        if _round_trip_only(text):
            raise _Unusual
        root = _compose(text)
        if isinstance(root, ScalarNode):
            raise _Unusual  # not a project file anyway; the scanners differ on `#` in a top-level `|`
        data = None if root is None else _build(root, 1)
    except (_Unusual, YAMLError):
        document = YamlDocument.parse(path, text)
        return document, plain(document.data)
    return FastDocument(path=path, data=data, text=text), data


def _compose(text: str) -> Node | None:
    node: Node | None = CParser.get_single_node(_Composer(text))
    return node


def _build(node: Node, depth: int) -> Any:
    """Plain data of a node, refusing (_Unusual) what the round-trip parser must decide."""
    cls = node.__class__
    if cls is ScalarNode:
        return _scalar(node)
    if node.tag != _COLLECTION:
        raise _Unusual
    if depth > MAX_DEPTH:
        raise too_deep(node.start_mark.line + 1, node.start_mark.column + 1)
    if cls is SequenceNode:
        return [_build(item, depth + 1) for item in node.value]
    mapping: dict[str, Any] = {}
    for key_node, value_node in node.value:
        if key_node.__class__ is not ScalarNode:
            raise _Unusual
        key = _scalar(key_node)
        if key.__class__ is not str or key in mapping:
            raise _Unusual  # non-string keys, duplicates (ruamel words the error)
        mapping[key] = _build(value_node, depth + 1)
    return mapping


def _scalar(node: Node) -> Any:
    tag = node.tag
    value: str = node.value
    if tag == _STR:
        return value
    if tag != _PLAIN:
        raise _Unusual
    if not value:
        return None
    first = value[0]
    if first in "tTfF":
        return True if value in _TRUE else False if value in _FALSE else value
    if first in "~nN":
        return None if value in _NULLS else value
    if first in _NUMBER_START:
        # The project's integer rule, checked first: nothing else it matches can be a float or date.
        return int(value) if PROJECT_INT.match(value) else _number(value)
    if first in "<=" and value in ("<<", "="):
        raise _Unusual
    return value


def _number(value: str) -> Any:
    """A plain scalar that may be a number or a date, resolved by the round-trip parser's own rules."""
    suffix = str(_RESOLVER.resolve(RoundTripScalarNode, value, (True, False)).suffix)
    if suffix.endswith(":str"):
        return value
    if suffix.endswith(":float"):
        return _float(value)
    raise _Unusual  # timestamps: rare, and ruamel has its own types for them


def _float(value: str) -> float:
    text = value.replace("_", "").lower()
    sign = -1.0 if text[0] == "-" else 1.0
    digits = text[1:] if text[0] in "+-" else text
    if digits == ".inf":
        return sign * float("inf")
    if digits == ".nan":
        return float("nan")
    return sign * float(digits)
