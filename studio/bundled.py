"""Where the data shipped with the app lives: project templates, the sample project, the JSON Schemas, the icons.

A wheel carries them inside the package (`studio/_bundled/`, mapped there by pyproject.toml), and
so does the frozen app (packaging/dbstudio.spec reads the same mapping); a source checkout
(editable install) keeps them in its top-level `resources/`, `projects/` and `schemas/` folders,
which stay the single copy a developer edits.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_SHIPPED = "_bundled"


def _package_folder() -> Path:
    # A regular (unzipped) install: importlib.resources gives the package's real folder, which
    # callers need as a Path (templates are copied with shutil, schemas compared file by file).
    return Path(str(resources.files("studio")))


def source_checkout() -> Path | None:
    """The source checkout the code runs from (an editable install), or None for an installed wheel."""
    root = _package_folder().parent
    return root if (root / "pyproject.toml").is_file() and (root / "schemas").is_dir() else None


def _data_folder(name: str) -> Path:
    shipped = _package_folder() / _SHIPPED / name
    if shipped.is_dir():
        return shipped
    checkout = source_checkout()
    # Neither found: name the shipped place, so that a "missing" message points at the install.
    return checkout / name if checkout is not None else shipped


def templates_dir() -> Path:
    """The folder of project templates (one sub-folder per template)."""
    return _data_folder("resources") / "templates"


def icons_dir() -> Path:
    """The app icon: resources/icons/dbstudio.svg and its PNG renders."""
    return _data_folder("resources") / "icons"


def samples_dir() -> Path:
    """The folder of bundled sample projects."""
    return _data_folder("projects")


def schemas_dir() -> Path:
    """The JSON Schemas this version ships (the checkout's `schemas/` in a source checkout)."""
    return _data_folder("schemas")
