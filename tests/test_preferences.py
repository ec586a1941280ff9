"""The preferences file: defaults, a round trip, and clear errors for a bad or a newer file."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.preferences import (
    SCHEMA_VERSION,
    Preferences,
    PreferencesError,
    RaterRole,
    config_dir,
    load_preferences,
    save_preferences,
)


def test_no_file_gives_the_defaults(tmp_path: Path) -> None:
    preferences = load_preferences(tmp_path / "absent.yaml")
    assert preferences == Preferences()
    assert preferences.blind and preferences.role is RaterRole.RATER and preferences.schema_version == SCHEMA_VERSION


def test_saved_preferences_read_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "preferences.yaml"
    preferences = Preferences(rater="Anna", raters=["Anna", "Marta"], role=RaterRole.ADJUDICATOR, blind=False,
                              judge_model="gpt-5", recent_projects=["/p/one"])
    save_preferences(preferences, path)
    text = path.read_text(encoding="utf-8")
    assert "role: adjudicator" in text and "schema_version: 1" in text
    assert load_preferences(path) == preferences


def test_recent_projects_put_the_newest_first_once_and_keep_eight() -> None:
    preferences = Preferences()
    for n in range(10):
        preferences = preferences.with_recent(f"/p/{n}")
    preferences = preferences.with_recent("/p/5")
    assert preferences.recent_projects[:3] == ["/p/5", "/p/9", "/p/8"]
    assert len(preferences.recent_projects) == 8 and preferences.recent_projects.count("/p/5") == 1


@pytest.mark.parametrize(("text", "message"), [
    ("rater: [unclosed\n", "preferences.yaml:1:8: YAML syntax"),
    ("- a list\n", "must be a mapping"),
    ("role: boss\n", "role: Input should be 'rater' or 'adjudicator'"),
    ("colour: red\n", "colour: Extra inputs are not permitted"),
    (f"schema_version: {SCHEMA_VERSION + 1}\n", "written by a newer DeliverBench Studio"),
])
def test_a_bad_file_is_named_with_what_is_wrong_and_what_to_do(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "preferences.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PreferencesError) as raised:
        load_preferences(path)
    assert str(path) in str(raised.value) and message in str(raised.value)
    assert "defaults are used" in str(raised.value)
    assert path.read_text(encoding="utf-8") == text  # never overwritten by the read


def test_the_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DBSTUDIO_CONFIG_DIR", str(tmp_path / "mine"))
    assert config_dir() == tmp_path / "mine"
    monkeypatch.delenv("DBSTUDIO_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "xdg" / "dbstudio"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config_dir() == tmp_path / "home" / ".config" / "dbstudio"
