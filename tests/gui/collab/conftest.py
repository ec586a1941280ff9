from tests.collab.conftest import team  # noqa: F401 (the two experts and their shared repository)
