"""studio/gui holds only what needs Qt: a module-level function (or a staticmethod) there that
uses no Qt name and no GUI object is Qt-free logic, whose home is the core (tested without a
screen, shared with the CLI).

"Uses Qt", precisely: a function uses Qt when its decorators, defaults, annotations (its
parameters' and its return's, string annotations parsed) or body reference a *GUI name* of its
module. A module's GUI names are
- the names it imports from PySide6, shiboken6 or studio.gui (at module level, under
  TYPE_CHECKING, or inside the function itself), and the modules bound by `import PySide6...`;
- then, to a fixed point, the module-level classes whose bases or body reference a GUI name,
  the module-level assignments whose value does, and the module-level functions that use Qt.
So a function that takes a QModelIndex, or calls a method on a parameter annotated as one, or
builds one of the module's widgets, uses Qt; one that only sums integers does not.

ALLOWED lists the exceptions, each with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import studio.gui

GUI = Path(studio.gui.__file__).parent
ROOT = GUI.parent.parent
QT_MODULES = ("PySide6", "shiboken6", "studio.gui")
BEING_REWORKED = "being reworked (another engineer is rewriting this module); move it down after that lands"

# "module path relative to studio/gui:function" -> why it stays.
ALLOWED: dict[str, str] = {
    "app.py:no_display_reason": "start-up: runs before Qt is imported, to say why no window can open",
    "app.py:resolve_project": "start-up: the folder the window opens first (app.py is edited in parallel for the crash log; its home is the core once that lands)",
    "rubric/model.py:_ranges": "groups changed rows into the row ranges the model announces to Qt (dataChanged per range)",
}


def _is_qt_module(name: str | None) -> bool:
    return name is not None and any(name == m or name.startswith(m + ".") for m in QT_MODULES)


def _imported_gui_names(tree: ast.AST) -> set[str]:
    """Names bound by a Qt or GUI import anywhere below `tree`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and _is_qt_module(node.module):
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            names |= {alias.asname or alias.name for alias in node.names}  # relative: inside studio.gui
        elif isinstance(node, ast.Import):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names if _is_qt_module(alias.name)}
    return names


def _referenced(node: ast.AST) -> set[str]:
    """Every plain name `node` references, string annotations parsed."""
    found: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            found.add(child.id)
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            try:
                parsed = ast.parse(child.value, mode="eval")
            except SyntaxError:
                continue
            found |= {n.id for n in ast.walk(parsed) if isinstance(n, ast.Name)}
    return found


def _checked(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module-level functions and the staticmethods of module-level classes."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node)
        elif isinstance(node, ast.ClassDef):
            found += [item for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                      and any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list)]
    return found


def _gui_names(tree: ast.Module) -> set[str]:
    """The module's GUI names: its Qt/GUI imports, then what is built from them, to a fixed point."""
    gui = _imported_gui_names(tree)
    defined: list[tuple[set[str], ast.AST]] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            defined.append(({node.name}, node))
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            defined.append((bound, node.value))
    changed = True
    while changed:
        changed = False
        for bound, node in defined:
            if not bound <= gui and _referenced(node) & gui:
                gui |= bound
                changed = True
    return gui


def qt_free_functions(path: Path, base: Path = GUI) -> list[str]:
    """`module:function` for each checked function of the module at `path` that uses no GUI name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    gui = _gui_names(tree)
    rel = path.relative_to(base).as_posix()
    found = []
    for function in _checked(tree):
        if not _referenced(function) & gui and not _imported_gui_names(function):
            found.append(f"{rel}:{function.name}")
    return found


def test_the_gui_defines_no_qt_free_function():
    found = [name for path in sorted(GUI.rglob("*.py")) for name in qt_free_functions(path)]
    unexpected = [name for name in found if name not in ALLOWED]
    assert unexpected == [], ("Qt-free functions in studio/gui: move each into the core (the right studio/ "
                              "subpackage, tested under tests/<package>/), or allow it with a reason:\n  "
                              + "\n  ".join(unexpected))


def test_every_allowed_function_still_exists_and_has_a_reason():
    found = {name for path in sorted(GUI.rglob("*.py")) for name in qt_free_functions(path)}
    assert [name for name in ALLOWED if name not in found] == []  # moved or Qt by now: drop its entry
    assert all(reason.strip() for reason in ALLOWED.values())


def test_the_definition_of_using_qt(tmp_path: Path):
    module = tmp_path / "probe.py"
    source = '''
from typing import TYPE_CHECKING
from PySide6.QtCore import QModelIndex
from studio.gui.base.tasks import TaskRunner
if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget
class Panel(QModelIndex):
    @staticmethod
    def pure(a: int) -> int:
        return a + 1
    @staticmethod
    def row(index: QModelIndex) -> int:
        return index.row()
ROLE = QModelIndex
def takes_widget(parent: "QWidget") -> None:
    parent.show()
def returns_index() -> QModelIndex: ...
def via_alias(x):
    return ROLE(x)
def builds_panel():
    return Panel()
def runner(tasks: TaskRunner) -> None:
    tasks.run()
def local_import():
    from PySide6.QtGui import QColor
    return QColor
def calls_gui_helper():
    return builds_panel()
def sums(values: list[int]) -> int:
    return sum(values)
'''
    module.write_text(source, encoding="utf-8")
    assert qt_free_functions(module, tmp_path) == ["probe.py:pure", "probe.py:sums"]
