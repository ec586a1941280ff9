"""Experts working on one project together: a project YAML file merged object by object, the
conflicts of a merge kept per clone until resolved, and sync with a shared repository (docs/collaboration.md)."""
