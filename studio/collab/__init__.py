"""Experts working on one project together: a project YAML file merged object by object, the
conflicts of a merge kept per clone until resolved, sync with a shared repository
(docs/collaboration.md), comment threads and who changed what (docs/comments.md)."""
