"""Experts together: sync with the shared repository, the sync state in the status bar, and the conflict view (docs/collaboration.md)."""
