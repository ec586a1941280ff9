"""Judging submissions: evidence, programmatic checks, the LLM judge, the verdict store and expert review."""
