"""Judging submissions: evidence extraction, programmatic checks, the LLM judge and the verdict store (Qt-free)."""
