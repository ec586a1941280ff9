"""The core never imports Qt: every module outside studio/gui is checked, and run without Qt."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

STUDIO = Path(__file__).resolve().parents[1] / "studio"
QT_MODULES = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "qtpy")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def core_modules() -> list[Path]:
    return [p for p in STUDIO.rglob("*.py") if "gui" not in p.relative_to(STUDIO).parts]


def test_no_core_module_imports_qt():
    offenders = {
        str(p.relative_to(STUDIO)): sorted(n for n in _imports(p) if n.split(".")[0] in QT_MODULES)
        for p in core_modules()
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert offenders == {}
    assert len(core_modules()) > 10  # the scan really sees the core


def test_the_scan_catches_a_qt_import(tmp_path: Path):
    sample = tmp_path / "m.py"
    sample.write_text("def f():\n    from PySide6.QtCore import QObject\n")
    assert "PySide6.QtCore" in _imports(sample)


def test_core_and_cli_work_with_qt_unimportable():
    """Import every core module and run `validate` with PySide6 blocked, as on a Qt-less server."""
    modules = sorted(
        ".".join(p.relative_to(STUDIO.parent).with_suffix("").parts).removesuffix(".__init__") for p in core_modules()
    )
    script = f"""
import importlib, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {QT_MODULES!r}:
            raise ImportError('Qt is blocked in this test: ' + name)
sys.meta_path.insert(0, Block())
for name in {modules!r}:
    importlib.import_module(name)
from studio.cli.main import main
sys.exit(main(['validate', {str(STUDIO.parent / 'resources' / 'templates' / 'blank')!r}]))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=STUDIO.parent)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
