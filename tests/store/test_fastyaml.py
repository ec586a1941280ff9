"""The libyaml reader gives the same data, locations and errors as the round-trip parser.

`fastyaml.parse` (libyaml node tree, one walk to plain data) must be indistinguishable from
`plain(YamlDocument.parse(...).data)` with `YamlDocument.locate`: on every YAML file of the
sample project and the template, on generated documents of every shape and scalar kind, and on
arbitrary YAML-like text (where both must give the same error, or the same result).
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.review_bench import make_project
from studio.store import fastyaml, layout
from studio.store.yamlfile import MAX_ALIAS_VALUES, MAX_DEPTH, YamlDocument, YamlLimitError, YamlSyntaxError, plain
from tests.helpers import REPO_ROOT, SCAFFOLD_TEMPLATE, make_rich_project

SAMPLE = REPO_ROOT / "projects" / "kestrel-refinancing"
REAL_FILES = [pytest.param(root / p.relative_to(root), id=f"{root.name}/{p.relative_to(root).as_posix()}")
              for root in (SAMPLE, SCAFFOLD_TEMPLATE) for p in layout.yaml_files(root)]


def same(a: Any, b: Any) -> bool:
    """Equal data, with NaN equal to NaN and types compared (True is not 1, '5' is not 5)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    kinds = (bool, int, float, str, type(None))
    if not isinstance(a, kinds) or not isinstance(b, kinds):  # e.g. ruamel's TaggedScalar, no __eq__
        return type(a) is type(b) and repr(a) == repr(b)
    kind_a = next((k for k in kinds if isinstance(a, k)), type(a))
    return kind_a is next((k for k in kinds if isinstance(b, k)), type(b)) and a == b


def paths(data: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path into the data, plus steps that miss: an absent key, an index past the end, a wrong kind."""
    found = [prefix, prefix + ("absent-key",), prefix + (0,)]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, prefix + (key,))
    elif isinstance(data, list):
        found.append(prefix + (len(data),))
        for index, value in enumerate(data):
            found += paths(value, prefix + (index,))
    return found


def assert_same_reading(text: str) -> fastyaml.Document | None:
    """Both parsers agree on `text`: same data and locations, or the same located error."""
    path = Path("doc.yaml")
    try:
        expected = YamlDocument.parse(path, text)
        expected_data = plain(expected.data)
    except YamlSyntaxError as error:
        with pytest.raises(YamlSyntaxError) as info:
            fastyaml.parse(path, text)
        assert (type(info.value), info.value.message, info.value.line, info.value.column) == (
            type(error), error.message, error.line, error.column)
        return None
    document, data = fastyaml.parse(path, text)
    assert same(data, expected_data), (data, expected_data)
    for loc in paths(expected_data):
        assert document.locate(loc) == expected.locate(loc), loc
    return document


@pytest.mark.parametrize("path", REAL_FILES)
def test_real_files_read_alike_and_through_libyaml(path: Path) -> None:
    document = assert_same_reading(path.read_text(encoding="utf-8"))
    assert isinstance(document, fastyaml.FastDocument)  # no fallback: the C reader did the work


def test_generated_projects_read_alike_and_through_libyaml(tmp_path: Path) -> None:
    # The richer test project, and a project of the review benchmark's synthetic corpus.
    rich = make_rich_project(tmp_path / "rich")
    bench = tmp_path / "bench"
    make_project(bench, 0, n_sub=4, n_mat=9, n_crit=30, n_cross=3, n_pkg=2, n_reuse=4, rng=random.Random(3))
    files = [path for root in (rich, bench) for path in layout.yaml_files(root)]
    assert len(files) >= 15
    for path in files:
        assert isinstance(assert_same_reading(path.read_text(encoding="utf-8")), fastyaml.FastDocument), path


# -- generated documents ---------------------------------------------------------------------

WORDS = st.sampled_from(["id", "title", "weight", "covers", "a", "b-c", "x_y", "T01", "Final report", "café", "yes",
                         "no", "on", "off", "y", "n", "null", "true", "False", "NULL", "Null"])
SCALARS = st.one_of(
    WORDS,
    st.integers(-10**20, 10**20).map(str),
    st.sampled_from(["017", "007", "-0", "+5", "1_0", "+0", "0x1F", "0o17", "0b101", "0x_", "٥", "5.0", "1.", ".5",
                     "-1.5e3", "1e3", "1_0.5", ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "~", "null", "true", "TRUE",
                     "2024-01-02", "2024-01-02 10:00:00", "2024-1-2", "12:30", "1:2:3", "=", "<<", "0.", "-.5",
                     "'quoted'", "'it''s'", '"dq \\t \\u00e9 \\" end"', "'017'", '"+5"', "''", '""',
                     "a # not a comment",
                     "text: with colon", "!!str 5", "!!int 7", "!custom tag", "! bang", "some words and more"]),
)
EMPTY = ""


@st.composite
def flow(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["scalar", "seq", "map"] if depth < 3 else ["scalar"]))
    if kind == "scalar":
        token = draw(SCALARS)
        return token if not any(c in token for c in ",[]{}#:") else f"'{token}'" if "'" not in token else '"x"'
    items = draw(st.lists(flow(depth + 1), max_size=3))
    if kind == "seq":
        return "[" + ", ".join(items) + "]"
    keys = draw(st.lists(WORDS, max_size=len(items), min_size=len(items), unique=True))
    return "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, items, strict=True)) + "}"


@st.composite
def block(draw: st.DrawFn, indent: int = 0, depth: int = 0) -> list[str]:
    """Lines of a block mapping or sequence at `indent`, with comments, flow children and empty values."""
    pad = " " * indent
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append(pad + "# " + draw(WORDS))
    is_map = draw(st.booleans())
    count = draw(st.integers(1, 4))
    keys = draw(st.lists(WORDS, min_size=count, max_size=count, unique=True))
    for key in keys:
        head = f"{pad}{key}:" if is_map else f"{pad}-"
        child = draw(st.sampled_from(["scalar", "scalar", "empty", "flow", "literal", "block"] if depth < 4
                                     else ["scalar", "empty"]))
        comment = draw(st.sampled_from(["", "", "  # note"]))
        if child == "scalar":
            lines.append(f"{head} {draw(SCALARS)}{comment}")
        elif child == "empty":
            lines.append(head + comment)
        elif child == "flow":
            lines.append(f"{head} {draw(flow())}{comment}")
        elif child == "literal":
            lines.append(f"{head} " + draw(st.sampled_from(["|", "|-", ">", ">+"])))
            lines += [f"{pad}  {draw(WORDS)}" for _ in range(draw(st.integers(1, 2)))]
        else:
            nested = draw(block(indent + 2, depth + 1))
            if not is_map and draw(st.booleans()):
                # A mapping item starting on the dash line: `- id: x` then its keys aligned.
                first = next(i for i, line in enumerate(nested) if not line.lstrip().startswith("#"))
                if not nested[first].lstrip().startswith("-"):
                    lines += nested[:first] + [head + " " + nested[first].lstrip()] + nested[first + 1:]
                    continue
            lines.append(head + comment)
            lines += nested
    return lines


@settings(max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=block())
def test_generated_documents_read_alike(lines: list[str]) -> None:
    assert_same_reading("\n".join(lines) + "\n")


YAML_PIECES = list("ab01:-[]{},#&*!|>'\"%@?~. \n\t\r\\") + [
    "\n  ", ": ", "- ", "é", "\x00", "\x85", "\u2028", "\ufeff", "k: ", "null", "1.5", "-3"]


@settings(max_examples=300, deadline=None, database=None)
@given(text=st.lists(st.sampled_from(YAML_PIECES), max_size=30).map("".join))
def test_any_text_reads_alike_or_fails_alike(text: str) -> None:
    assert_same_reading(text)


@pytest.mark.parametrize("text", [
    "a: &x [1, 2]\nb: *x\n",                      # aliases
    "base: &b {x: 1}\nder:\n  <<: *b\n  y: 2\n",  # merge key
    "when: 2024-01-02\n",                         # timestamp
    "t: !!str 5\n",                               # explicit tag
    "%YAML 1.2\n---\na: 1\n",                     # directive
    "1: one\n",                                   # non-string key
    "a: 1\na: 2\n",                               # duplicate key: the round-trip parser words the error
    "a: [1\n",                                    # syntax error
    "a: 1\n---\nb: 2\n",                          # two documents
    "a: b\x85c: d\n",                              # NEL: a line break to ruamel, text to libyaml
    "a: 1\n\ufeffb: 2\n",                          # a byte order mark past the start
])
def test_features_left_to_the_round_trip_parser_read_alike(text: str) -> None:
    assert_same_reading(text)


def test_project_integers_are_digits_with_an_optional_minus() -> None:
    document, data = fastyaml.parse(Path("x.yaml"), "a: 5\nb: -3\nc: +5\nd: 1_0\ne: 017\nf: yes\ng: 5.0\nh: 0x1F\n")
    assert isinstance(document, fastyaml.FastDocument)
    assert data == {"a": 5, "b": -3, "c": "+5", "d": "1_0", "e": "017", "f": "yes", "g": 5.0, "h": "0x1F"}
    assert isinstance(data["g"], float)


# -- limits ----------------------------------------------------------------------------------


def alias_bomb(levels: int = 9, fan_out: int = 9) -> str:
    """`a: &a [x,x,...]`, `b: &b [*a,*a,...]`, ...: fan_out ** levels values once expanded."""
    names = "abcdefghijklmnopqrstuvwxyz"
    lines = ["a: &a [" + ",".join(["x"] * fan_out) + "]"]
    for level in range(1, levels):
        name, previous = names[level], names[level - 1]
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * fan_out) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_quickly_with_a_location() -> None:
    text = alias_bomb()
    assert len(text.encode()) <= 340
    with pytest.raises(YamlLimitError) as info:  # instead of copying 9**9 values
        fastyaml.parse(Path("bomb.yaml"), text)
    assert f"{MAX_ALIAS_VALUES:,}" in info.value.message and "aliases" in info.value.message
    assert 2 <= info.value.line <= 9 and info.value.column >= 1


def test_aliases_within_the_budget_are_copied() -> None:
    _, data = fastyaml.parse(Path("x.yaml"), alias_bomb(levels=3, fan_out=3))
    assert data["c"] == [[["x"] * 3] * 3] * 3


def test_deep_nesting_is_refused_at_the_level_too_deep() -> None:
    text = "[" * 300 + "]" * 300 + "\n"
    assert len(text) < 700
    with pytest.raises(YamlLimitError) as info:
        fastyaml.parse(Path("deep.yaml"), text)
    assert (info.value.line, info.value.column) == (1, MAX_DEPTH + 1)
    assert f"{MAX_DEPTH} levels" in info.value.message
    # The round-trip parser (for edits and history) gives the same message instead of RecursionError.
    with pytest.raises(YamlLimitError) as again:
        YamlDocument.parse(Path("deep.yaml"), text)
    assert (again.value.message, again.value.line, again.value.column) == (
        info.value.message, info.value.line, info.value.column)


def test_block_nesting_at_the_limit_loads() -> None:
    # The top mapping and MAX_DEPTH - 1 mappings nested in it.
    text = "".join(" " * i + f"k{i}:\n" for i in range(MAX_DEPTH - 1)) + " " * MAX_DEPTH + "leaf: 1\n"
    document = assert_same_reading(text)
    assert isinstance(document, fastyaml.FastDocument)


def test_file_over_the_size_cap_is_refused_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("studio.store.yamlfile.MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * 2000 + "\n", encoding="utf-8")
    with pytest.raises(YamlLimitError) as info:
        fastyaml.load(path)
    assert (info.value.line, info.value.column) == (1, 1)
    assert "split it" in info.value.message


def test_nul_byte_is_located_at_its_own_line_and_column() -> None:
    text = "a: 1\r\nb: 2\nc: x\x00y\n"
    with pytest.raises(YamlSyntaxError) as info:
        fastyaml.parse(Path("nul.yaml"), text)
    assert (info.value.line, info.value.column) == (3, 5)
    assert "U+0000" in info.value.message and "remove it" in info.value.message
