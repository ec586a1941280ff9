"""Widgets shared by several features: file previews, chart view, Markdown view, form dialogs, icons."""
