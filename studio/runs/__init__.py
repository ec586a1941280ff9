"""Trial runs of a project in a local Docker engine, one checkpoint per subtask (Qt-free)."""
