"""Round-trip YAML documents: load, locate nodes by path, edit, save byte-for-byte faithfully."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from studio.errors import StudioError
from studio.store.atomic import write_atomic

# One house style for every project YAML file; the sample and the templates are written in it,
# so loading and saving an unchanged file gives back the same bytes.
INDENT_MAPPING = 2
INDENT_SEQUENCE = 4
INDENT_OFFSET = 2
LINE_WIDTH = 4096


def make_yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.indent(mapping=INDENT_MAPPING, sequence=INDENT_SEQUENCE, offset=INDENT_OFFSET)
    yaml.width = LINE_WIDTH
    yaml.allow_duplicate_keys = False
    return yaml


class YamlSyntaxError(StudioError):
    """The text is not valid YAML; carries a 1-based line and column."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass
class YamlDocument:
    """One YAML file of a project: its path, the round-trip tree and the text it came from."""

    path: Path
    data: Any
    text: str

    @classmethod
    def parse(cls, path: Path, text: str) -> "YamlDocument":
        try:
            data = make_yaml().load(text)
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
        return cls(path=Path(path), data=data, text=text)

    @classmethod
    def load(cls, path: Path) -> "YamlDocument":
        raw = Path(path).read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise YamlSyntaxError(
                "file is not UTF-8 text: save it as UTF-8", line, 1
            ) from None
        return cls.parse(path, text)

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
                key_line, key_col = node.lc.key(step)
                line, column = key_line + 1, key_col + 1
                child = node[step]
                if not isinstance(child, (CommentedMap, CommentedSeq)):
                    value_pos = node.lc.value(step)
                    # An empty value (`key:` alone) is recorded at the next token, often the
                    # next key or past the end of the file: point at its key instead.
                    empty = child is None and value_pos is not None and value_pos[0] != key_line
                    if value_pos is not None and value_pos[0] is not None and not empty:
                        line, column = value_pos[0] + 1, value_pos[1] + 1
                node = child
            elif isinstance(node, CommentedSeq) and isinstance(step, int) and 0 <= step < len(node):
                item_line, item_col = node.lc.item(step)
                line, column = item_line + 1, item_col + 1
                node = node[step]
            else:
                break
        return line, column


def plain(data: Any) -> Any:
    """The round-trip tree as plain dicts and lists, for pydantic."""
    if isinstance(data, dict):
        return {k if isinstance(k, str) else str(k): plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data
