"""The small base every feature stands on: the project context (the one open, save, commit and reload path), background tasks, watching, the action registry and the errors."""
