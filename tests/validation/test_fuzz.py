"""Property test: validation survives any mangling of one project file, and locates what it finds.

The text of one YAML file of a valid project (the blank template, or a richer variant built
from it) is mutated at random, or given deep nesting or aliases that fan out; `validate_project`
must never raise, and every finding must name a real file of the project and a line and column
that exist in that file.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.store import layout
from studio.store.yamlfile import MAX_ALIAS_VALUES, MAX_DEPTH
from studio.validation import Finding, validate_project
from tests.helpers import copy_blank, make_rich_project

_BASE = Path(tempfile.mkdtemp(prefix="dbstudio-fuzz-base-"))
atexit.register(shutil.rmtree, _BASE, True)
VARIANTS: dict[str, Path] = {
    "blank": copy_blank(_BASE / "blank"),
    "rich": make_rich_project(_BASE / "rich"),
}
YAML_FILES: dict[str, list[str]] = {
    name: [p.relative_to(root).as_posix() for p in layout.yaml_files(root)] for name, root in VARIANTS.items()
}

SCALAR_LINE = re.compile(r"^(?P<head>\s*(?:-\s+)?(?:[A-Za-z_][\w-]*:\s+)?)(?P<value>\S.*)$")

YAML_NOISE = st.text(alphabet=st.sampled_from(list(":-[]{}#&*!|>'\"%@`,?\t\n ~\\") + list("abcXYZ019é")),
                     min_size=1, max_size=12)
REPLACEMENT_SCALARS = st.one_of(
    st.text(max_size=20),
    st.integers(min_value=-10**12, max_value=10**12).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.sampled_from(["null", "~", "", "[]", "{}", "[a, b]", "{a: 1}", "- x", "true", "no", "0", "-0",
                     "'unterminated", '"unterminated', "*alias", "&anchor x", "!!binary aGk=", "|", ">",
                     "T01", "M01", "start", "before", "T01:outputs/report.md", "package", "../escape", "/abs/path"]),
    YAML_NOISE,
)


def _mutate(data: st.DataObject, text: str) -> bytes:
    lines = text.splitlines(keepends=True) or [""]
    kind = data.draw(st.sampled_from(
        ["delete", "duplicate", "swap", "scalar", "insert", "indent", "truncate", "bytes"]), label="mutation")
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    if kind == "delete":
        del lines[index]
    elif kind == "duplicate":
        lines.insert(index, lines[index])
    elif kind == "swap":
        other = data.draw(st.integers(0, len(lines) - 1), label="other line")
        lines[index], lines[other] = lines[other], lines[index]
    elif kind == "scalar":
        candidates = [i for i, line in enumerate(lines)
                      if SCALAR_LINE.match(line.rstrip("\n")) and not line.lstrip().startswith("#")]
        if candidates:
            i = data.draw(st.sampled_from(candidates), label="scalar line")
            match = SCALAR_LINE.match(lines[i].rstrip("\n"))
            value = data.draw(REPLACEMENT_SCALARS, label="new value")
            lines[i] = match["head"] + value + "\n"
    elif kind == "insert":
        joined = "".join(lines)
        at = data.draw(st.integers(0, len(joined)), label="at")
        noise = data.draw(st.one_of(YAML_NOISE, st.text(max_size=8)), label="noise")
        return (joined[:at] + noise + joined[at:]).encode("utf-8", "surrogatepass")
    elif kind == "indent":
        line = lines[index]
        stripped = line.lstrip(" ")
        width = len(line) - len(stripped)
        new_width = data.draw(st.integers(0, width + 6), label="indent")
        prefix = data.draw(st.sampled_from([" ", "\t"]), label="indent char") * new_width
        lines[index] = prefix + stripped
    elif kind == "truncate":
        joined = "".join(lines)
        return joined[: data.draw(st.integers(0, len(joined)), label="keep")].encode("utf-8")
    elif kind == "bytes":
        raw = "".join(lines).encode("utf-8")
        at = data.draw(st.integers(0, len(raw)), label="at")
        junk = data.draw(st.sampled_from([b"\xff", b"\xfe\xff", b"\xc3", b"\x00", b"\xef\xbb\xbf", b"\r", b"\r\n"]),
                         label="junk")
        return raw[:at] + junk + raw[at:]
    return "".join(lines).encode("utf-8", "surrogatepass")


def _assert_well_located(project: Path, findings) -> None:
    real_files = {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()}
    for finding in findings:
        assert finding.file in real_files, f"{finding.render()}: not a file of the project"
        assert isinstance(finding.line, int) and finding.line >= 1, finding.render()
        assert isinstance(finding.column, int) and finding.column >= 1, finding.render()
        assert isinstance(finding.message, str) and finding.message.strip(), finding.render()
        # The location exists in the file: an editor can jump to it.
        raw = (project / finding.file).read_bytes()
        lines = raw.decode("utf-8", "replace").splitlines() or [""]
        assert finding.line <= len(lines), f"{finding.render()}: the file has {len(lines)} lines"
        assert finding.column <= len(lines[finding.line - 1]) + 1, f"{finding.render()}: past the end of its line"


def _check(variant: str, rel: str, mutated: bytes) -> list[Finding]:
    with tempfile.TemporaryDirectory(prefix="dbstudio-fuzz-") as tmp:
        project = Path(tmp) / "proj"
        shutil.copytree(VARIANTS[variant], project)
        (project / rel).write_bytes(mutated)
        findings = validate_project(project)  # must never raise
        _assert_well_located(project, findings)
        return findings


@settings(max_examples=200, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_file_never_crashes_validation(data: st.DataObject) -> None:
    variant = data.draw(st.sampled_from(sorted(VARIANTS)), label="variant")
    rel = data.draw(st.sampled_from(YAML_FILES[variant]), label="file")
    text = (VARIANTS[variant] / rel).read_text(encoding="utf-8")
    _check(variant, rel, _mutate(data, text))


@settings(max_examples=60, deadline=None, database=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), data=st.data())
def test_replacing_a_whole_file_with_any_yaml_value(variant: str, data: st.DataObject) -> None:
    rel = data.draw(st.sampled_from(YAML_FILES[variant]), label="file")
    value = data.draw(st.sampled_from(["", "\n", "# only a comment\n", "42\n", "- a\n- b\n", "null\n", "text\n",
                                       "criteria:\n", "criteria: 5\n", "criteria: [1, 2]\n", "stages: []\n",
                                       "materials:\n  - 1\n", "handoffs:\n  - {}\n", "? [a]\n: b\n", "{1: 2}\n"]),
                      label="value")
    _check(variant, rel, value.encode("utf-8"))


def test_unmutated_variants_are_clean() -> None:
    # The baseline the fuzzing starts from has no findings at all.
    for root in VARIANTS.values():
        assert validate_project(root) == []


# -- deep nesting and alias fan-out ------------------------------------------------------------

@st.composite
def deep_nesting(draw: st.DrawFn) -> tuple[str, int]:
    """YAML nested `depth` collections deep, in flow or block style; returns (text, depth)."""
    depth = draw(st.integers(1, 400))
    style = draw(st.sampled_from(["flow-list", "flow-map", "block-list", "block-map"]))
    if style == "flow-list":
        return "[" * depth + "x" + "]" * depth, depth
    if style == "flow-map":
        return "{a: " * depth + "x" + "}" * depth, depth
    if style == "block-list":
        return "\n" + "".join(" " * (2 * i + 2) + "-\n" for i in range(depth - 1)) + " " * (2 * depth) + "- x", depth
    return "\n" + "".join(" " * (i + 2) + f"k{i}:\n" for i in range(depth - 1)) + " " * (depth + 1) + "leaf: x", depth


@st.composite
def alias_fan_out(draw: st.DrawFn) -> tuple[str, int]:
    """Anchored lists each holding `fan_out` aliases of the one before; returns (YAML lines, values once expanded)."""
    levels = draw(st.integers(1, 10))
    fan_out = draw(st.integers(1, 12))
    names = [f"z{i}" for i in range(levels)]
    lines = [f"{names[0]}: &{names[0]} [" + ", ".join(["v"] * fan_out) + "]"]
    for previous, name in zip(names, names[1:], strict=False):
        if draw(st.booleans()):
            lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * fan_out) + "]")
        else:
            lines.append(f"{name}: &{name}\n" + "".join(f"  - *{previous}\n" for _ in range(fan_out)).rstrip("\n"))
    return "\n".join(lines) + "\n", sum(fan_out ** level for level in range(2, levels + 1))


@settings(max_examples=60, deadline=None, database=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), nesting=deep_nesting(), data=st.data())
def test_deep_nesting_never_crashes(variant: str, nesting: tuple[str, int], data: st.DataObject) -> None:
    rel = data.draw(st.sampled_from(YAML_FILES[variant]), label="file")
    fragment, depth = nesting
    text = (VARIANTS[variant] / rel).read_text(encoding="utf-8")
    # As the value of a new top-level key (one more level), or as the whole file.
    whole = data.draw(st.booleans(), label="whole file")
    mutated = fragment + "\n" if whole else text + "extra:" + (" " if fragment[0] != "\n" else "") + fragment + "\n"
    findings = _check(variant, rel, mutated.encode("utf-8"))
    too_deep = [f for f in findings if "levels deep" in f.message]
    assert bool(too_deep) == (depth + (0 if whole else 1) > MAX_DEPTH), [f.render() for f in findings]


@settings(max_examples=60, deadline=None, database=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), fan=alias_fan_out(), data=st.data())
def test_alias_fan_out_never_crashes(variant: str, fan: tuple[str, int], data: st.DataObject) -> None:
    rel = data.draw(st.sampled_from(YAML_FILES[variant]), label="file")
    lines, copies = fan
    text = (VARIANTS[variant] / rel).read_text(encoding="utf-8")
    mutated = lines if data.draw(st.booleans(), label="whole file") else text + lines
    findings = _check(variant, rel, mutated.encode("utf-8"))
    refused = [f for f in findings if "aliases" in f.message]
    if copies > 2 * MAX_ALIAS_VALUES:
        assert refused, [f.render() for f in findings]
    if copies < MAX_ALIAS_VALUES // 2:
        assert not refused, [f.render() for f in findings]
