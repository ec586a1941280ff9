"""File > Open Benchmark… (`benchmarkOpenAction`): a benchmark.yaml shown as the `benchmarkView`
tab. A cell of its grid opens that project in the window, by the window's one opening path, then
its runs (the Runs dock), its Review or its Scores through the action registry: this feature
imports no other."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from studio.gui.base.actions import ActionId, MenuId
from studio.gui.base.shell import Shell

if TYPE_CHECKING:
    from studio.gui.base.project_context import ProjectContext
    from studio.gui.benchmark.view import BenchmarkView

SHOWS = {"review": ActionId.REVIEW_VERDICTS, "scores": ActionId.SCORES}


class BenchmarkHook(QObject):
    def __init__(self, shell: Shell) -> None:
        super().__init__(shell)
        self.shell = shell
        self.views: dict[Path, BenchmarkView] = {}
        shell.actions.add(ActionId.OPEN_BENCHMARK, "Open &Benchmark…", self.choose,
                          tip="A benchmark.yaml: every (system, project) pair's status and Table 5 (docs/benchmark.md)")
        shell.actions.add_to_menu(MenuId.FILE, [ActionId.OPEN_BENCHMARK], separator_before=True)

    def choose(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self.shell.window, "Open Benchmark", "",
                                              "Benchmark (benchmark.yaml *.yaml);;All files (*)")
        if name:
            self.open_benchmark(Path(name))

    def open_benchmark(self, path: Path) -> BenchmarkView | None:
        """Show the benchmark at `path` (a benchmark.yaml or its folder), or say why not."""
        from studio.benchmark.loader import NotABenchmarkError, benchmark_file
        from studio.gui.benchmark.view import BenchmarkView

        try:
            path = benchmark_file(path).resolve()
        except NotABenchmarkError as error:
            self.shell.show_error(error)
            return None
        view = self.views.get(path)
        if view is None or self.shell.tabs.indexOf(view) < 0:
            view = BenchmarkView(path, self.shell.runner, self.shell.tabs)
            view.open_requested.connect(self.open_pair)
            self.views[path] = view
            self.shell.show_tab(view, f"Benchmark: {path.parent.name}",
                                on_closed=functools.partial(self._forget, path))
        else:
            self.shell.show_tab(view, f"Benchmark: {path.parent.name}")
            view.refresh()
        return view

    def _forget(self, path: Path, view: object) -> None:
        if self.views.get(path) is view:
            del self.views[path]

    def open_pair(self, folder: Path, what: str) -> None:
        """Open the project in `folder`, then show `what` of it: "runs", "review" or "scores"."""
        context = self.shell.context
        if context is not None and Path(context.session.root).resolve() == Path(folder).resolve():
            self._show(what)
            return
        self.shell.open_project(Path(folder), then=lambda _context: self._show(what))

    def _show(self, what: str, _context: ProjectContext | None = None) -> None:
        if what == "runs":
            dock = self.shell.dock("runsDock")
            dock.show()
            dock.raise_()
            return
        self.shell.actions[SHOWS[what]].trigger()


def install_benchmark(shell: Shell) -> BenchmarkHook:
    """Add File > Open Benchmark… to the window."""
    return BenchmarkHook(shell)
