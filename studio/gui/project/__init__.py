"""The project feature: the explorer, the object editors, the findings, the release timeline and the dependency map."""
