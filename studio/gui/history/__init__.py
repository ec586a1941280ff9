"""The history feature: the project's versions, per-file and per-object history, diffs, restore and commit."""
