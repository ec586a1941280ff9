"""A copy of the sample with a reference package the tests build, and the tests' judge on loopback (fixtures
shared by tests/mutation and the app's rubric-testing tests)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.judging.judge import JudgeSettings
from tests.judging.chat_server import ChatServer
from tests.mutation.figures_judge import figures_judge
from tests.mutation.reference_package import build_reference, sample_copy


@pytest.fixture
def referenced(tmp_path: Path) -> Path:
    """The sample, with its reference package under evaluator/reference/."""
    project = sample_copy(tmp_path / "kestrel")
    build_reference(project)
    return project


@pytest.fixture
def judge_server() -> Iterator[ChatServer]:
    with ChatServer(figures_judge) as server:
        yield server


@pytest.fixture
def judge(judge_server: ChatServer) -> JudgeSettings:
    return JudgeSettings(base_url=judge_server.url, model="figures-judge", timeout_s=30.0, backoff_s=0.05)
