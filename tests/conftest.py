"""Shared fixtures: a fresh copy of the finance-transaction project template per test; git isolated from the user's."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.helpers import copy_blank  # noqa: E402


@pytest.fixture
def blank_project(tmp_path: Path) -> Path:
    """A copy of resources/templates/finance-transaction (the scaffold the tests build on) at tmp_path/'proj'."""
    return copy_blank(tmp_path / "proj")


@pytest.fixture(autouse=True)
def isolated_preferences(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's preferences file (studio.preferences) in the test's own folder, never the real one."""
    folder = tmp_path / "config"
    monkeypatch.setenv("DBSTUDIO_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True, scope="session")
def git_identity_of_the_tests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Git as on a stock machine plus only an identity: the suite never reads the user's git set-up.

    A fresh Debian has no identity (every commit would fail), a developer's may sign commits;
    a test about a missing identity overrides GIT_CONFIG_GLOBAL itself.
    """
    config = tmp_path_factory.mktemp("git") / "gitconfig"
    config.write_text("[user]\n\tname = DeliverBench Tests\n\temail = tests@deliverbench.invalid\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GIT_CONFIG_GLOBAL", str(config))
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        yield config


@pytest.fixture(autouse=True)
def collection_handed_back() -> Iterator[None]:
    """A test that made a window's worker pool leaves Python collecting garbage automatically again,
    once its own objects are collected here, on the main thread (studio.collector)."""
    yield
    from studio.collector import collector

    if collector.owned:
        collector.hand_back()
