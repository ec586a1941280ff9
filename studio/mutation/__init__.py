"""Mutation testing: plant the failures a project is built to expose in the expert's reference package
and see which criteria catch them (docs/rubric-testing.md)."""
