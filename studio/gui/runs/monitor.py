"""Following the runs of a runs folder from the window.

A run is recorded by `create_run` on the background helper, then executed by its own process,
`dbstudio runs resume RUN --runs-dir DIR`, started in a new session with its output going to
`<run>/process.log`: the run outlives the window when the user leaves it going, and a crash of
the window never touches it. The window follows a run by reading its `run.json` (a few kB, read
again only when its size or time changes) and the tail of the log being written, on a timer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QWidget

from studio.errors import StudioError
from studio.gui.base.tasks import TaskRunner
from studio.runs import overview as runs_data
from studio.runs.overview import RunView

if TYPE_CHECKING:
    import subprocess  # on the first launch: the window starts without it

    from studio.runs.record import RunSettings

POLL_MS = 500
RESCAN_EVERY = 4
"""Every RESCAN_EVERY polls the runs folder is listed for runs started elsewhere (the CLI), and
going runs are read again even unchanged (a run whose process died shows as interrupted)."""


class RunMonitor(QObject):
    """Starts, resumes and cancels runs, and reports what their records and logs say."""

    runs_listed = Signal(object)
    """(list[RunView]) every run of the runs folder just set."""
    run_updated = Signal(object)
    """(RunView) a run that is new or whose record changed."""
    log_updated = Signal(str)
    """The tail of the log followed (set_log), each time it grows."""
    process_ended = Signal(object, int, str)
    """(run folder, exit code, the end of its process.log) when a run process of this window ends."""

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.runs_dir: Path | None = None
        self.processes: dict[Path, subprocess.Popen[bytes]] = {}
        self.close_answered = False
        self._views: dict[Path, RunView] = {}
        self._stamps: dict[Path, tuple[int, int] | None] = {}
        self._log: Path | None = None
        self._log_stamp: tuple[int, int] | None = None
        self._ticks = 0
        self._generation = 0
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)

    # -- the runs folder ----------------------------------------------------------------------
    def set_runs_dir(self, runs_dir: Path | None) -> None:
        """Follow the runs of `runs_dir` (None: none); the list comes back in `runs_listed`."""
        self._generation += 1
        generation = self._generation
        self.runs_dir = Path(runs_dir) if runs_dir is not None else None
        self._views.clear()
        self._stamps.clear()
        self.set_log(None)
        if self.runs_dir is None:
            self.timer.stop()
            self.runs_listed.emit([])
            return
        folder = self.runs_dir

        def listed(runs: list[RunView]) -> None:
            if generation != self._generation:
                return
            for run in runs:
                self._views[run.run_dir] = run
                self._stamps[run.run_dir] = runs_data.record_stamp(run.run_dir)
            self.runs_listed.emit(runs)
            self.timer.start()

        self.runner.run("Reading the runs", lambda: runs_data.read_runs(folder), listed, self._report)

    def view(self, run_dir: Path) -> RunView | None:
        return self._views.get(Path(run_dir))

    def poll(self) -> None:
        """Read again what changed: going runs' records, new run folders, the log followed."""
        self._ticks += 1
        rescan = self._ticks % RESCAN_EVERY == 0
        for run_dir, run in list(self._views.items()):
            process = self.processes.get(run_dir)
            ended = process is not None and process.poll() is not None
            if run.going or run_dir in self.processes:
                self._refresh(run_dir, force=rescan or ended)
            if ended and process is not None:
                del self.processes[run_dir]
                self.process_ended.emit(run_dir, process.returncode,
                                        runs_data.tail(run_dir / runs_data.PROCESS_LOG, lines=6))
        if rescan and self.runs_dir is not None:
            for run_dir in runs_data.run_folders(self.runs_dir):
                if run_dir not in self._views:
                    self._refresh(run_dir, force=True)
        self._follow_log()

    def _refresh(self, run_dir: Path, force: bool = False) -> None:
        stamp = runs_data.record_stamp(run_dir)
        if not force and stamp == self._stamps.get(run_dir):
            return
        try:
            run = runs_data.read_run(run_dir)
        except StudioError:
            return  # caught between two writes of an atomic rename cannot happen; a damaged record stays as shown
        self._stamps[run_dir] = stamp
        if self._views.get(run_dir) != run:
            self._views[run_dir] = run
            self.run_updated.emit(run)

    # -- the log tail -------------------------------------------------------------------------
    @property
    def log_path(self) -> Path | None:
        """The log followed now."""
        return self._log

    def set_log(self, path: Path | None) -> None:
        """Follow `path` (a harness's log); its tail comes in `log_updated` now and as it grows."""
        self._log = path
        self._log_stamp = None
        self._follow_log(always=True)

    def _follow_log(self, always: bool = False) -> None:
        if self._log is None:
            if always:
                self.log_updated.emit("")
            return
        try:
            stat = self._log.stat()
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = None
        if stamp == self._log_stamp and not always:
            return
        self._log_stamp = stamp
        # at most TAIL_BYTES from the end of the file: small enough for the UI thread
        self.log_updated.emit(runs_data.tail(self._log) if stamp is not None else "")

    # -- starting, resuming, cancelling --------------------------------------------------------
    def start(self, project_dir: Path, harness_spec: str, image: str, settings: RunSettings, runs_dir: Path | None,
              on_started: Callable[[RunView], None], on_error: Callable[[StudioError], None]) -> None:
        """Record a new run on the background helper (checks project, harness, engine and image), then
        start its process; `on_error` gets what the check refused, with nothing started."""
        def started(run_dir: Path) -> None:
            self.launch(run_dir)
            run = self._views.get(run_dir) or runs_data.read_run(run_dir)
            on_started(run)

        self.runner.run("Preparing the run",
                        lambda: runs_data.create_run(project_dir, harness_spec, image, settings, runs_dir),
                        started, on_error)

    def launch(self, run_dir: Path) -> None:
        """Start the process that executes the run to its end (a resume when it had begun)."""
        import subprocess

        run_dir = Path(run_dir)
        with open(run_dir / runs_data.PROCESS_LOG, "ab") as log:
            self.processes[run_dir] = subprocess.Popen(
                runs_data.resume_command(run_dir), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                cwd=run_dir, start_new_session=True)  # its own session: closing the window does not signal it
        self._refresh(run_dir, force=True)
        self.timer.start()

    def cancel(self, run_dir: Path, on_error: Callable[[StudioError], None]) -> None:
        """Ask the run's process to stop (it kills the container and records the run as cancelled)."""
        self.runner.run("Cancelling the run", lambda: runs_data.cancel_run(run_dir),
                        lambda _result: self._refresh(Path(run_dir), force=True), on_error)

    def going_here(self) -> list[Path]:
        """Runs whose process this window started and that are still going."""
        return [run_dir for run_dir, process in self.processes.items() if process.poll() is None]

    def stop_all(self) -> None:
        """Ask every run of this window to stop, and wait for the requests to be written."""
        folders = self.going_here()

        def cancel_all() -> None:
            for folder in folders:
                runs_data.cancel_run(folder)

        self.runner.run("Stopping the runs", cancel_all, lambda _result: None, lambda _error: None)
        self.runner.wait()

    def _report(self, error: StudioError) -> None:
        window: Any = self.parent()
        while window is not None and not hasattr(window, "show_error"):
            window = window.parent()
        if window is not None:
            window.show_error(error)


def hold_close(window: QWidget, monitor: RunMonitor | None, event: QCloseEvent) -> bool:
    """While a run started from `window` is going, closing asks first: Leave the run going, Stop
    it, or Cancel. True when the close was held (the question is open; the window closes again
    once answered)."""
    if monitor is None or monitor.close_answered or not monitor.going_here():
        return False
    from PySide6.QtWidgets import QMessageBox

    event.ignore()
    count = len(monitor.going_here())
    what = "A run started here is" if count == 1 else f"{count} runs started here are"
    box = QMessageBox(QMessageBox.Icon.Question, window.windowTitle() or "Runs",
                      f"{what} still going. Leave it going (it goes on without the window, and the runs panel "
                      "follows it when you come back), or stop it now?", QMessageBox.StandardButton.Cancel, window)
    box.setObjectName("runsCloseDialog")
    leave = box.addButton("&Leave the run going", QMessageBox.ButtonRole.AcceptRole)
    leave.setObjectName("leaveRunButton")
    stop = box.addButton("&Stop it", QMessageBox.ButtonRole.DestructiveRole)
    stop.setObjectName("stopRunButton")
    box.setDefaultButton(leave)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def answered() -> None:
        clicked = box.clickedButton()
        if clicked is stop:
            monitor.stop_all()
        elif clicked is not leave:
            return
        monitor.close_answered = True
        monitor.timer.stop()
        QTimer.singleShot(0, window, window.close)

    box.finished.connect(lambda _result: answered())
    box.open()
    return True
