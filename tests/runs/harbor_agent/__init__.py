"""A Harbor agent of the tests' own (offline.py), loaded by Harbor itself, never by the test suite."""
