"""Round-trip YAML documents: load, locate nodes by path, edit, save byte-for-byte faithfully."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml as libyaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.resolver import VersionedResolver

from studio.errors import StudioError
from studio.store.atomic import write_atomic

# One house style for every project YAML file; the sample and the templates are written in it,
# so loading and saving an unchanged file gives back the same bytes.
INDENT_MAPPING = 2
INDENT_SEQUENCE = 4
INDENT_OFFSET = 2
LINE_WIDTH = 4096

# Limits that keep a small hostile file from hanging or crashing a load. Real project files are
# a few levels deep, hold no aliases and stay under a few megabytes even at 5,000 criteria.
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64
MAX_ALIAS_VALUES = 10_000

# An integer in a project file is written in decimal digits, with at most a leading minus and no
# leading zero. ruamel (YAML 1.2) also reads `+5`, `1_0`, `017`, `0x1F`, `0o17` and `0b101` as
# integers; here they stay text, so a weight written that way is reported instead of silently
# read as 5, 10, 17, 31, 15 or 5. Both YAML readers use this rule.
PROJECT_INT = re.compile(r"^-?(?:0|[1-9][0-9]*)$")
INT_TAG = "tag:yaml.org,2002:int"


class ProjectResolver(VersionedResolver):
    """ruamel's YAML 1.2 resolver with the stricter integer rule above; the fast reader asks it too."""

    def add_version_implicit_resolver(self, version: Any, tag: Any, regexp: Any, first: Any) -> None:
        if tag == INT_TAG and version == (1, 2):
            regexp = PROJECT_INT
        super().add_version_implicit_resolver(version, tag, regexp, first)


def make_yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.Resolver = ProjectResolver
    yaml.preserve_quotes = True
    yaml.indent(mapping=INDENT_MAPPING, sequence=INDENT_SEQUENCE, offset=INDENT_OFFSET)
    yaml.width = LINE_WIDTH
    yaml.allow_duplicate_keys = False
    return yaml


class YamlSyntaxError(StudioError):
    """The text is not valid YAML; carries a 1-based line and column."""

    code = "yaml-syntax"

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class YamlLimitError(YamlSyntaxError):
    """Valid YAML that is too big, too deep or expands too far to load safely."""

    code = "yaml-limit"


_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")


def position_of(text: str, index: int) -> tuple[int, int]:
    """1-based (line, column) of a character index, counting line breaks as YAML does."""
    line, start = 1, 0
    for match in _BREAK.finditer(text, 0, index):
        line, start = line + 1, match.end()
    return line, index - start + 1


def too_deep(line: int, column: int) -> YamlLimitError:
    return YamlLimitError(
        f"YAML nested more than {MAX_DEPTH} levels deep: project files need only a few levels; "
        "remove the extra brackets or indentation", line, column)


def check_nesting(text: str) -> None:
    """Refuse text nested deeper than MAX_DEPTH before the (recursive) round-trip parser sees it.

    libyaml's event stream is flat and fast; a syntax error stops the check and is left to the
    round-trip parser to report.
    """
    depth = 0
    try:
        for event in libyaml.parse(text, Loader=libyaml.CSafeLoader):
            if isinstance(event, libyaml.CollectionStartEvent):
                depth += 1
                mark = event.start_mark
                if depth > MAX_DEPTH:
                    raise too_deep(mark.line + 1, mark.column + 1) if mark else too_deep(1, 1)
            elif isinstance(event, libyaml.CollectionEndEvent):
                depth -= 1
    except libyaml.YAMLError:
        return


def _odd_key_position(text: str) -> tuple[int, int]:
    """Where the first list or mapping used as a key starts, else the top of the file."""
    try:
        pending = [libyaml.compose(text, Loader=libyaml.CSafeLoader)]
    except libyaml.YAMLError:
        return 1, 1
    visited: set[int] = set()  # aliases share nodes, and may even point back up
    while pending:
        node = pending.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, libyaml.MappingNode):
            for key, _ in node.value:
                if not isinstance(key, libyaml.ScalarNode):
                    return key.start_mark.line + 1, key.start_mark.column + 1
            pending += [value for _, value in reversed(node.value)]
        elif isinstance(node, libyaml.SequenceNode):
            pending += reversed(node.value)
    return 1, 1


def _deepest_point(text: str) -> tuple[int, int]:
    """Where open brackets first pass MAX_DEPTH, else the start of the most indented line."""
    depth = 0
    for match in re.finditer(r"[\[\]{}]", text):
        depth += 1 if match.group() in "[{" else -1
        if depth > MAX_DEPTH:
            return position_of(text, match.start())
    lines = _BREAK.split(text)
    indents = [len(line) - len(line.lstrip(" -")) for line in lines]
    deepest = max(range(len(lines)), key=indents.__getitem__)
    return deepest + 1, indents[deepest] + 1


def read_text(path: Path) -> str:
    """A project YAML file's text, refused with a located message when too big or not UTF-8."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise YamlLimitError(
            f"file is {size / 1e6:.1f} MB, more than the {MAX_FILE_BYTES // (1024 * 1024)} MiB a project YAML "
            "file may hold: split it or remove what does not belong in it", 1, 1)
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise YamlSyntaxError("file is not UTF-8 text: save it as UTF-8", line, 1) from None


def _reader_error(text: str, exc: ReaderError) -> YamlSyntaxError:
    line, column = position_of(text, exc.position)
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
    return YamlSyntaxError(
        f"YAML syntax: control character U+{code:04X} is not allowed in a YAML file: remove it", line, column)


@dataclass
class YamlDocument:
    """One YAML file of a project: its path, the round-trip tree and the text it came from."""

    path: Path
    data: Any
    text: str

    @classmethod
    def parse(cls, path: Path, text: str) -> YamlDocument:
        check_nesting(text)
        try:
            data = make_yaml().load(text)
        except ReaderError as exc:
            raise _reader_error(text, exc) from None
        except MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
            problem = exc.problem or exc.context or "invalid YAML"
            last_line = max(1, len(text.splitlines()))
            if line > last_line:
                # Found at the end of the text, past its last line: an unclosed bracket or
                # quote is reported where it opens, anything else on the last line.
                if exc.context_mark is not None and exc.context_mark.line + 1 <= last_line:
                    line, column = exc.context_mark.line + 1, exc.context_mark.column + 1
                    if exc.context and exc.problem:
                        problem = f"{exc.problem} ({exc.context} that starts here)"
                else:
                    lines = text.splitlines() or [""]
                    line, column = last_line, len(lines[-1]) + 1
            raise YamlSyntaxError(f"YAML syntax: {problem}", line, column) from None
        except YAMLError as exc:
            raise YamlSyntaxError(f"YAML syntax: {exc}", 1, 1) from None
        except RecursionError:
            # Only if libyaml stopped before the depth check could (it refuses text ruamel reads).
            raise too_deep(*_deepest_point(text)) from None
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, RuntimeError) as exc:
            # ruamel.yaml itself fails on a few odd constructs (a mapping used as a key, `0x_`,
            # "overlap in comment" with Unicode line separators).
            raise YamlSyntaxError(
                f"YAML syntax: cannot read this ({exc}): write keys as text and numbers with digits",
                *_odd_key_position(text)) from None
        return cls(path=Path(path), data=data, text=text)

    @classmethod
    def load(cls, path: Path) -> YamlDocument:
        return cls.parse(path, read_text(path))

    def dumps(self) -> str:
        stream = io.StringIO()
        make_yaml().dump(self.data, stream)
        return stream.getvalue()

    def save(self, path: Path | None = None) -> None:
        """Write the (possibly edited) tree back atomically."""
        target = Path(path) if path is not None else self.path
        text = self.dumps()
        write_atomic(target, text.encode("utf-8"))
        self.text = text

    def locate(self, loc: tuple[str | int, ...]) -> tuple[int, int]:
        """1-based (line, column) of the deepest node along `loc` that exists in the tree.

        A key that is missing points at its parent mapping, so "field required" lands on the
        object that lacks the field.
        """
        node = self.data
        line, column = 1, 1
        if isinstance(node, (CommentedMap, CommentedSeq)):
            line, column = node.lc.line + 1, node.lc.col + 1
        for step in loc:
            if isinstance(node, CommentedMap) and isinstance(step, str) and step in node:
                if not (node.lc.data or {}).get(step):
                    break  # a key merged in from elsewhere (`<<: *base`): stay on this mapping
                key_line, key_col = node.lc.key(step)
                line, column = key_line + 1, key_col + 1
                child = node[step]
                if not isinstance(child, (CommentedMap, CommentedSeq)):
                    value_pos = node.lc.value(step)
                    # An empty value (`key:` alone) is recorded at the next token, often the
                    # next key or past the end of the file: point at its key instead.
                    if value_pos is not None and value_pos[0] is not None and not (
                            child is None and self._is_empty_at(value_pos)):
                        line, column = value_pos[0] + 1, value_pos[1] + 1
                node = child
            elif isinstance(node, CommentedSeq) and isinstance(step, int) and 0 <= step < len(node):
                if not (node.lc.data or {}).get(step):
                    break  # ruamel records no position for some odd items
                item_line, item_col = node.lc.item(step)
                line, column = item_line + 1, item_col + 1
                node = node[step]
            else:
                break
        return line, column

    def _is_empty_at(self, value_pos: tuple[int, int]) -> bool:
        """Whether a null value recorded at `value_pos` was written as nothing (`key:`), not `~`/`null`."""
        lines = _BREAK.split(self.text)
        written = lines[value_pos[0]][value_pos[1]:] if value_pos[0] < len(lines) else ""
        return not NULL_WORD.match(written)


NULL_WORD = re.compile(r"(?:~|null|Null|NULL)(?:\s|$|[,}\]#])")


def plain(data: Any) -> Any:
    """The round-trip tree as plain dicts and lists, for pydantic.

    Aliases share one object in the tree; here each use becomes a copy, so copies are counted
    and a file whose aliases expand past MAX_ALIAS_VALUES values (an "alias bomb") is refused.
    """
    return _Plainer().value(data, None, None, 1)


class _Plainer:
    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.copied = 0

    def value(self, data: Any, parent: Any, step: Any, depth: int, alias_at: tuple[int, int] | None = None) -> Any:
        """`alias_at` is where the alias being copied is used, once inside a copy."""
        if not isinstance(data, (dict, list)):
            return data
        if depth > MAX_DEPTH:
            raise too_deep(*_position(parent, step))
        if id(data) in self.seen and alias_at is None:
            # In a list ruamel records an alias item at its anchor: name the list that uses it.
            alias_at = _position(parent, step) if isinstance(parent, CommentedMap) else _position(parent, None)
        self.seen.add(id(data))
        if alias_at is not None:
            self.copied += len(data)
            if self.copied > MAX_ALIAS_VALUES:
                raise YamlLimitError(
                    f"YAML aliases (*name) expand to more than {MAX_ALIAS_VALUES:,} copied values: "
                    "write the values out or use fewer aliases", *alias_at)
        if isinstance(data, dict):
            return {k if isinstance(k, str) else str(k): self.value(v, data, k, depth + 1, alias_at)
                    for k, v in data.items()}
        return [self.value(v, data, i, depth + 1, alias_at) for i, v in enumerate(data)]


def _position(parent: Any, step: Any) -> tuple[int, int]:
    """1-based position of the key or item `step` of a round-trip container, else of the container."""
    if not isinstance(parent, (CommentedMap, CommentedSeq)):
        return 1, 1
    known = parent.lc.data.get(step) if isinstance(parent.lc.data, dict) else None
    line, column = (known[0], known[1]) if known else (parent.lc.line, parent.lc.col)
    return line + 1, column + 1
