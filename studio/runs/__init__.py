"""Trial runs in Docker: a persistent workspace per run, a checkpoint per subtask, resume after any fault."""
