"""PySide's `__feature__` import hook, dropped once Qt is loaded: the app selects no PySide feature
(`from __feature__ import snake_case, true_property`), and the hook costs every import made after
Qt. It replaces `builtins.__import__` with a function that runs Python code for each import
statement and reads the whole source file of each new module (`inspect.getsource`) to note whether
it names PySide6: about 0.4 ms a module, some 100 ms of CPU for the window's and the project
core's 300 modules on the way to the interactive window (bench/gui_bench.py, cold start). With no
feature selected anywhere, PySide treats every module alike, so nothing else changes."""

from __future__ import annotations

import builtins


def drop_feature_import_hook() -> bool:
    """Give Python its own `__import__` back, if PySide's hook holds it; whether it did."""
    import PySide6.QtCore  # noqa: F401  (what installs the hook, if nothing has yet)

    original = getattr(builtins, "__orig_import__", None)
    hook = getattr(builtins, "__feature_import__", None)
    if original is None or hook is None or builtins.__import__ is not hook:
        return False  # another PySide, or already dropped
    builtins.__import__ = original
    return True
