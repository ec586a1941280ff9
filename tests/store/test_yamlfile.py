"""Round-trip YAML documents: byte-faithful load/dump, comment-preserving edits, node locations."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from studio.store import layout
from studio.store.yamlfile import YamlDocument, YamlLimitError, YamlSyntaxError, plain
from tests.helpers import RICH_FILES, SCAFFOLD_TEMPLATE, column_of, line_of, make_rich_project

BLANK_YAML = sorted(p.relative_to(SCAFFOLD_TEMPLATE).as_posix() for p in layout.yaml_files(SCAFFOLD_TEMPLATE))


def test_blank_template_has_the_expected_yaml_files() -> None:
    assert set(BLANK_YAML) == {
        "project.yaml", "stages.yaml", "materials.yaml", "dependencies.yaml",
        "subtasks/T01/subtask.yaml", "subtasks/T01/rubric.yaml", "subtasks/T02/subtask.yaml",
        "subtasks/T02/rubric.yaml", "final/rubric.yaml", "evaluator/references.yaml",
    }


@pytest.mark.parametrize("rel", BLANK_YAML)
def test_load_and_dumps_is_byte_identical(rel: str) -> None:
    path = SCAFFOLD_TEMPLATE / rel
    document = YamlDocument.load(path)
    assert document.dumps().encode("utf-8") == path.read_bytes()
    assert document.text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("rel", sorted(r for r in RICH_FILES if r.endswith(".yaml")))
def test_house_style_files_round_trip(tmp_path: Path, rel: str) -> None:
    # Files written in the house style (nested lists, aliases like `from`, comments) survive too.
    root = make_rich_project(tmp_path / "rich")
    path = root / rel
    assert YamlDocument.load(path).dumps() == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("rel", BLANK_YAML)
def test_save_unchanged_keeps_bytes(blank_project: Path, rel: str) -> None:
    path = blank_project / rel
    before = path.read_bytes()
    YamlDocument.load(path).save()
    assert path.read_bytes() == before


def test_edit_criterion_weight_keeps_comments_and_order(blank_project: Path) -> None:
    path = blank_project / "subtasks/T01/rubric.yaml"
    original = path.read_text(encoding="utf-8")
    # A comment on a line inside a list, and one at the end of a list item line.
    commented = original.replace(
        "    covers:\n      - T01:outputs/report.md\n",
        "    covers:\n      # the checkpoint report only\n      - T01:outputs/report.md  # produced by T01\n",
    )
    path.write_text(commented, encoding="utf-8")

    document = YamlDocument.load(path)
    document.data["criteria"][0]["weight"] = 7
    document.save()

    saved = path.read_text(encoding="utf-8")
    assert saved == commented.replace("weight: 5", "weight: 7")
    for comment in ("# Checkpoint rubric of T01.", "# the checkpoint report only", "# produced by T01"):
        assert comment in saved
    assert list(YAML(typ="rt").load(saved)["criteria"][0]) == [
        "id", "text", "covers", "target", "dimension", "weight", "review",
    ]
    assert document.text == saved


def test_edit_material_title_keeps_everything_else(blank_project: Path) -> None:
    path = blank_project / "materials.yaml"
    original = path.read_text(encoding="utf-8")
    commented = original.replace(
        "    kind: source_record\n", "    # kind decides how the judge treats it\n    kind: source_record\n")
    path.write_text(commented, encoding="utf-8")

    document = YamlDocument.load(path)
    document.data["materials"][0]["title"] = "Notes from the kick-off call"
    document.save()

    saved = path.read_text(encoding="utf-8")
    assert saved == commented.replace("title: Source notes", "title: Notes from the kick-off call")
    assert "# Files the agent receives, and when." in saved
    assert "# kind decides how the judge treats it" in saved
    reread = YamlDocument.load(path)
    assert list(reread.data["materials"][0]) == ["id", "file", "title", "kind", "provenance", "release"]


def test_adding_a_list_item_keeps_comments(blank_project: Path) -> None:
    path = blank_project / "subtasks/T01/subtask.yaml"
    original = path.read_text(encoding="utf-8")
    path.write_text(original.replace("  - M01\n", "  - M01  # the only input for now\n"), encoding="utf-8")
    document = YamlDocument.load(path)
    document.data["inputs"].append("M02")
    document.save()
    saved = path.read_text(encoding="utf-8")
    assert "# the only input for now" in saved
    assert YamlDocument.load(path).data["inputs"] == ["M01", "M02"]
    assert saved.index("M01") < saved.index("M02") < saved.index("outputs:")


def test_save_to_another_path(blank_project: Path, tmp_path: Path) -> None:
    source = blank_project / "stages.yaml"
    document = YamlDocument.load(source)
    document.data["stages"][0]["title"] = "Kick-off"
    target = tmp_path / "elsewhere" / "stages.yaml"
    document.save(target)
    assert "title: Kick-off" in target.read_text(encoding="utf-8")
    assert "title: First stage" in source.read_text(encoding="utf-8")


# -- locate ----------------------------------------------------------------------------------


def test_locate_nested_paths_in_project_yaml() -> None:
    path = SCAFFOLD_TEMPLATE / "project.yaml"
    text = path.read_text(encoding="utf-8")
    document = YamlDocument.load(path)
    # A scalar is located at its value.
    assert document.locate(("id",)) == (line_of(text, "id: new-project"), column_of(text, "new-project"))
    # A mapping or list is located at its key.
    assert document.locate(("delivery",)) == (line_of(text, "delivery:"), 1)
    assert document.locate(("delivery", "acceptance", 0)) == (line_of(text, "- id: AC1"), column_of(text, "id: AC1"))
    assert document.locate(("delivery", "acceptance", 0, "text")) == (
        line_of(text, "text: The package lets"), column_of(text, "The package lets"))
    assert document.locate(("delivery", "final_deliverables", 0, "produced_by")) == (
        line_of(text, "produced_by:"), column_of(text, "T02:outputs/report.md"))
    # A missing key lands on the mapping that lacks it.
    assert document.locate(("delivery", "final_deliverables", 0, "audience")) == (
        line_of(text, "- id: F1"), column_of(text, "id: F1"))
    # An index past the end lands on the list.
    assert document.locate(("delivery", "final_deliverables", 5, "id")) == (line_of(text, "final_deliverables:"), 3)
    # The empty path is the top of the document.
    assert document.locate(()) == (line_of(text, "schema_version"), 1)


def test_locate_in_rubric_lists() -> None:
    path = SCAFFOLD_TEMPLATE / "final/rubric.yaml"
    text = path.read_text(encoding="utf-8")
    document = YamlDocument.load(path)
    package = [item.get("id") for item in document.data["criteria"]].index("PKG-01")
    drafts_before = sum(1 for item in document.data["criteria"][:package] if "review" in item)
    assert document.locate(("criteria", package, "weight")) == (
        line_of(text, "weight: 5"), column_of(text, "weight: 5") + len("weight: "))
    assert document.locate(("criteria", package, "review", "status")) == (
        line_of(text, "status: draft", drafts_before + 1), column_of(text, "draft"))
    assert document.locate(("criteria", 0, "covers", 0)) == (line_of(text, "- F1"), column_of(text, "F1"))
    assert document.locate(("criteria", package)) == (line_of(text, "- id: PKG-01"), column_of(text, "id: PKG-01"))
    # A wrong kind of step (a key into a list) stops at the list.
    assert document.locate(("criteria", "weight")) == (line_of(text, "criteria:"), 1)


def test_locate_empty_value_points_at_its_key(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("title:\ndomain: Finance\nrole:\n", encoding="utf-8")
    document = YamlDocument.load(path)
    assert document.locate(("title",)) == (1, 1)
    assert document.locate(("role",)) == (3, 1)
    assert document.locate(("domain",)) == (2, 9)


# -- errors ----------------------------------------------------------------------------------


def test_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text = "id: T01\ntitle: one: two\noutputs: []\n"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(YamlSyntaxError) as info:
        YamlDocument.load(path)
    assert info.value.line == 2
    assert info.value.column == column_of(text, ": two")  # at the second ':' on the line
    assert info.value.message.startswith("YAML syntax")
    assert str(info.value) == info.value.message


def test_unclosed_bracket_points_at_the_bracket(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text = "stages:\n  - id: S1\n    subtasks: [T01\n"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(YamlSyntaxError) as info:
        YamlDocument.load(path)
    assert (info.value.line, info.value.column) == (3, column_of(text, "[T01"))
    assert "flow sequence" in info.value.message


def test_unterminated_quote_points_inside_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("a: 1\nb: 'never closed\n", encoding="utf-8")
    with pytest.raises(YamlSyntaxError) as info:
        YamlDocument.load(path)
    assert (info.value.line, info.value.column) == (2, 4)


def test_duplicate_key_is_a_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("id: a\ntitle: x\nid: b\n", encoding="utf-8")
    with pytest.raises(YamlSyntaxError) as info:
        YamlDocument.load(path)
    assert info.value.line == 3
    assert "duplicate key" in info.value.message


def test_non_utf8_file_is_a_syntax_error_not_a_decode_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("id: T01\ntitle: Caf\u00e9 cr\u00e8me\n".encode("latin-1"))
    with pytest.raises(YamlSyntaxError) as info:
        YamlDocument.load(path)
    assert not isinstance(info.value, UnicodeDecodeError)
    assert info.value.line == 2
    assert info.value.column >= 1
    assert "UTF-8" in info.value.message


def test_parse_accepts_text_and_keeps_it(tmp_path: Path) -> None:
    document = YamlDocument.parse(tmp_path / "x.yaml", "a: 1\n")
    assert document.data == {"a": 1}
    assert document.text == "a: 1\n"
    assert document.path == tmp_path / "x.yaml"


def test_control_character_is_located_at_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "nul.yaml"
    path.write_bytes(b"id: T01\ntitle: a\x00b\n")
    with pytest.raises(YamlSyntaxError) as info:
        YamlDocument.load(path)
    assert (info.value.line, info.value.column) == (2, 9)
    assert "U+0000" in info.value.message and "remove it" in info.value.message


def test_file_over_the_size_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("studio.store.yamlfile.MAX_FILE_BYTES", 100)
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * 200 + "\n", encoding="utf-8")
    with pytest.raises(YamlLimitError) as info:
        YamlDocument.load(path)
    assert (info.value.line, info.value.column) == (1, 1)
    assert "MB" in info.value.message and "split it" in info.value.message


# -- resolver: YAML 1.2, and integers written as digits ----------------------------------------


def test_yaml_1_2_scalars_and_strict_integers() -> None:
    text = "a: yes\nb: on\nc: 017\nd: 0o17\ne: +5\nf: 1_0\ng: -3\nh: ~\ni:\nj: .inf\nk: 0x1F\nl: 0\nm: 1.5\n"
    data = YamlDocument.parse(Path("x.yaml"), text).data
    assert plain(data) == {"a": "yes", "b": "on", "c": "017", "d": "0o17", "e": "+5", "f": "1_0", "g": -3,
                           "h": None, "i": None, "j": float("inf"), "k": "0x1F", "l": 0, "m": 1.5}


def test_strings_that_look_like_integers_round_trip_unquoted(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("e: +5\nf: 1_0\nweight: 5\n", encoding="utf-8")
    document = YamlDocument.load(path)
    document.data["weight"] = 6
    document.save()
    assert path.read_text(encoding="utf-8") == "e: +5\nf: 1_0\nweight: 6\n"


# -- more locations ----------------------------------------------------------------------------


def test_locate_empty_value_with_a_comment_or_in_flow_points_at_its_key() -> None:
    text = "title: # to do\ndomain: {role: , client: ~}\n"
    document = YamlDocument.parse(Path("x.yaml"), text)
    assert document.locate(("title",)) == (1, 1)
    assert document.locate(("domain", "role")) == (2, column_of(text, "role"))
    assert document.locate(("domain", "client")) == (2, column_of(text, "~"))  # written null: at the value


def test_locate_a_merged_key_stays_on_the_mapping() -> None:
    text = "base: &b\n  x: 1\nitem:\n  <<: *b\n  y: 2\n"
    document = YamlDocument.parse(Path("x.yaml"), text)
    assert document.locate(("item", "y")) == (5, 6)
    assert document.locate(("item", "x")) == document.locate(("item", "absent")) == (3, 1)


# -- limits of plain(): the data history diffs and old loads validated -------------------------


def test_plain_refuses_an_alias_bomb_where_it_is_used() -> None:
    names = "abcdefghi"
    pairs = zip(names, names[1:], strict=False)
    text = "a: &a [" + ",".join("x" * 9) + "]\n" + "".join(
        f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]\n" for previous, name in pairs)
    document = YamlDocument.parse(Path("bomb.yaml"), text)  # the tree shares the aliased lists: cheap
    with pytest.raises(YamlLimitError) as info:
        plain(document.data)
    assert "10,000" in info.value.message
    assert 2 <= info.value.line <= 9
    assert info.value.column == column_of(text, "&", occurrence=info.value.line)  # the list that uses them


def test_plain_copies_aliases_within_the_budget() -> None:
    document = YamlDocument.parse(Path("x.yaml"), "a: &a {k: [1, 2]}\nb: *a\nc: [*a, *a]\n")
    data = plain(document.data)
    assert data["b"] == data["c"][0] == {"k": [1, 2]}
    assert data["b"] is not data["a"]  # copies: editing one plain value never changes another


def test_deep_nesting_is_refused_before_the_recursive_parser() -> None:
    text = "a:\n" + "".join(" " * (2 * i + 2) + "-\n" for i in range(200))
    with pytest.raises(YamlLimitError) as info:
        YamlDocument.parse(Path("deep.yaml"), text)
    assert "64 levels" in info.value.message
    assert info.value.line == 65  # the 64th list, nested in the top mapping


def test_recursion_in_the_round_trip_parser_becomes_a_located_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # The libyaml depth check is the first line of defence; this is the second, for text it cannot scan.
    monkeypatch.setattr("studio.store.yamlfile.check_nesting", lambda text: None)
    text = "a: " + "[" * 2000 + "]" * 2000 + "\n"
    with pytest.raises(YamlLimitError) as info:
        YamlDocument.parse(Path("deep.yaml"), text)
    assert (info.value.line, info.value.column) == (1, len("a: ") + 65)
