"""The mutation tests' fixtures: the sample with a reference package, the tests' judge (tests/mutation/fixtures.py)."""

from tests.mutation.fixtures import judge, judge_server, referenced  # noqa: F401 (fixtures)
