"""The `dbstudio` command line: thin shells over the core."""
