"""The judge's settings as fields (a profile, the endpoint, the model): what Judge…, rubric testing and
criteria drafting ask, read into JudgeSettings as the command line's flags are."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QLineEdit

if TYPE_CHECKING:
    from studio.judging.judge import JudgeSettings

NO_PROFILE = "None: the endpoint and model below, the server's defaults for the rest"


def fill_profiles(box: QComboBox, project_dir: Path) -> None:
    """The judge profiles to choose from: none, the project's own, then the presets."""
    from studio.judging.profiles import PRESETS, project_profiles

    box.blockSignals(True)
    box.clear()
    box.addItem(NO_PROFILE, None)
    for name in project_profiles(project_dir):
        box.addItem(f"{name} (this project's)", name)
    for name in PRESETS:
        if box.findData(name) < 0:  # the project's own file of that name wins
            box.addItem(f"{name} (preset)", name)
    box.blockSignals(False)


def read_fields(project_dir: Path, profile_box: QComboBox, endpoint_edit: QLineEdit, model_edit: QLineEdit,
                say: Callable[[str], None]) -> JudgeSettings | None:
    """The settings the fields give, or None after `say`ing what is wrong (the focus on the field at fault)."""
    from studio.errors import StudioError
    from studio.judging.judge import settings_for

    endpoint = endpoint_edit.text().strip()
    if not endpoint.startswith(("http://", "https://")):
        say("Give the endpoint as a URL starting with http:// or https://, e.g. http://localhost:11434/v1")
        endpoint_edit.setFocus()
        return None
    try:
        return settings_for(project_dir, profile_box.currentData(), endpoint, model_edit.text())
    except StudioError as error:
        say(str(error).replace("give --model or set OPENAI_MODEL", "give the model"))
        model_edit.setFocus()
        return None
