"""LLM-assisted drafting of rubric criteria: every draft is a *draft* criterion in a reviewable diff (the
rubric import's), never applied without the expert's accept, with what the request cost (docs/drafting.md)."""
