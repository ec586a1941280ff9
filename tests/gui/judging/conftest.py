"""The rubric-testing view's fixtures: those of the mutation tests (tests/mutation/fixtures.py)."""

from tests.mutation.fixtures import judge_server, referenced  # noqa: F401 (fixtures)
