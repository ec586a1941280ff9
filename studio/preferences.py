"""The user's preferences: who reviews (name and role), blind review, the judge's defaults and the
projects opened lately, as one small YAML file with a schema version. Window geometry and splitter
positions stay in QSettings (the app's layout, not a preference anyone edits)."""

from __future__ import annotations

import io
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from studio.errors import StudioError

SCHEMA_VERSION = 1
CONFIG_DIR_VARIABLE = "DBSTUDIO_CONFIG_DIR"
FILE_NAME = "preferences.yaml"
MAX_RECENT = 8


class PreferencesError(StudioError):
    """The preferences file cannot be read; the app goes on with the defaults and says so."""


class RaterRole(str, Enum):
    """What a reviewer does: a rater gives their own verdicts (blind review hides the others'), an
    adjudicator settles the differences between raters and sees every verdict."""

    RATER = "rater"
    ADJUDICATOR = "adjudicator"


class Preferences(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    schema_version: int = Field(default=SCHEMA_VERSION, ge=1, le=SCHEMA_VERSION)
    rater: str = Field(default="", max_length=100, description="the reviewer's name in the verdict store")
    raters: list[str] = Field(default_factory=list, description="names typed in the review before")
    role: RaterRole = RaterRole.RATER
    blind: bool = Field(default=True, description="hide the judge's and the other raters' verdicts until one's own")
    judge_endpoint: str = Field(default="", description="the judge's chat-completions base URL, empty: the default")
    judge_model: str = Field(default="", description="the judge's model, empty: the default")
    recent_projects: list[str] = Field(default_factory=list, max_length=MAX_RECENT)

    def with_recent(self, folder: str) -> Preferences:
        """These preferences with `folder` first among the recent projects."""
        recent = [folder] + [p for p in self.recent_projects if p != folder]
        return self.model_copy(update={"recent_projects": recent[:MAX_RECENT]})


def config_dir() -> Path:
    """$DBSTUDIO_CONFIG_DIR if set, else $XDG_CONFIG_HOME/dbstudio, else ~/.config/dbstudio."""
    from studio.user_dirs import user_folder

    return user_folder(CONFIG_DIR_VARIABLE, "XDG_CONFIG_HOME", "APPDATA", ".config")


def preferences_path() -> Path:
    return config_dir() / FILE_NAME


def load_preferences(path: Path | None = None) -> Preferences:
    """The preferences in `path` (default: preferences_path()); the defaults when there is no file.
    A file that does not parse or holds wrong values raises PreferencesError naming the line and the fix."""
    from studio.store.fastyaml import parse
    from studio.store.yamlfile import YamlSyntaxError

    path = path or preferences_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Preferences()
    except (OSError, UnicodeDecodeError) as error:
        raise PreferencesError(f"{path}: cannot read the preferences ({error}); the defaults are used. "
                               "Fix the file's permissions or delete it.") from None
    try:
        data: Any = parse(path, text)[1]
    except YamlSyntaxError as error:
        raise PreferencesError(f"{path}:{error.line}:{error.column}: {error.message}; the defaults are used. "
                               "Fix the line or delete the file.") from None
    if data is None:
        return Preferences()
    if not isinstance(data, dict):
        raise PreferencesError(f"{path}: the preferences must be a mapping of names to values; the defaults are used. "
                               "Fix the file or delete it.")
    version = data.get("schema_version", SCHEMA_VERSION)
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise PreferencesError(f"{path}: written by a newer DeliverBench Studio (schema version {version}, this one "
                               f"reads {SCHEMA_VERSION}); the defaults are used and the file is left as it is.")
    try:
        return Preferences.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise PreferencesError(f"{path}: {where}: {first['msg']}; the defaults are used. "
                               "Fix the value or delete the file.") from None


def save_preferences(preferences: Preferences, path: Path | None = None) -> Path:
    """Write the preferences atomically (a crash leaves the old file or the new one, never half of one)."""
    from ruamel.yaml import YAML

    from studio.store.atomic import write_atomic

    path = path or preferences_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    buffer = io.StringIO()
    buffer.write("# DeliverBench Studio preferences (written by the app; edits by hand are kept)\n")
    yaml.dump(preferences.model_dump(mode="json"), buffer)
    write_atomic(path, buffer.getvalue().encode("utf-8"))
    return path
