"""Experts working together on one project: comment threads and who changed what."""
