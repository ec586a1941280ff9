"""Shared fixtures: a fresh copy of the blank project template per test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.helpers import copy_blank  # noqa: E402


@pytest.fixture
def blank_project(tmp_path: Path) -> Path:
    """A copy of resources/templates/blank at tmp_path/'proj'."""
    return copy_blank(tmp_path / "proj")
