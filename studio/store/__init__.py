"""Project folders on disk: round-trip YAML, atomic writes, layout, loading, git history."""
