"""Judge… in the window: a run, a rubric scope, the endpoint and the model; the judge of
studio/judging runs on the one background helper with its progress shown and a Stop that keeps the
verdicts received. The API key comes from the environment or the OS keyring and is never stored."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.errors import StudioError
from studio.gui.base.tasks import Task, TaskRunner
from studio.gui.widgets.judge_fields import fill_profiles

if TYPE_CHECKING:
    from studio.judging.judge import JudgeProgress, JudgeSettings
    from studio.judging.profiles import JudgeProfile
    from studio.judging.run_judging import RunJudging
    from studio.progress import Progress, ProgressReport

ALL_LABEL = "Every rubric the run has a checkpoint for"


class JudgeDialog(QDialog):
    """The judge's settings for one run, and the judging under way."""

    judged = Signal(object)
    """RunJudging: the judging ended (done or stopped); its verdicts are in the store."""

    def __init__(self, project_dir: Path, runner: TaskRunner, parent: QWidget | None = None,
                 run_id: str | None = None) -> None:
        from studio.judging.client import KEY_VARIABLE, api_key, default_base_url, default_model

        super().__init__(parent)
        self.setObjectName("judgeDialog")
        self.setWindowTitle("Judge a run")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.project_dir = Path(project_dir)
        self.runner = runner
        self.task: Task | None = None
        self.chosen_run = run_id  # the run asked for (the runs panel's Judge Run…), chosen once the runs are read

        self.run_box = QComboBox(self)
        self.run_box.setObjectName("judgeRun")
        self.scope_box = QComboBox(self)
        self.scope_box.setObjectName("judgeScope")
        self.profile_box = QComboBox(self)
        self.profile_box.setObjectName("judgeProfile")
        self.profile_box.setToolTip("A judge profile pins the model and what the requests send: a preset, or "
                                    "judging/profiles/NAME.yaml in the project (docs/judging.md)")
        self.profile_summary = QLabel(self)
        self.profile_summary.setObjectName("judgeProfileSummary")
        self.profile_summary.setWordWrap(True)
        self.endpoint_edit = QLineEdit(default_base_url(), self)
        self.endpoint_edit.setObjectName("judgeEndpoint")
        self.endpoint_edit.setToolTip("Any OpenAI-compatible chat-completions server: OpenAI, vLLM, Ollama, llama.cpp")
        self.model_edit = QLineEdit(default_model(), self)
        self.model_edit.setObjectName("judgeModel")
        # Only where the key comes from is shown: the key itself is never asked for, shown or stored.
        key = QLabel(f"from {KEY_VARIABLE} or the OS keyring" if api_key() else
                     f"none found: set {KEY_VARIABLE}, or run `keyring set dbstudio {KEY_VARIABLE}` "
                     "(a local server may need none)", self)
        key.setObjectName("judgeKeySource")
        key.setWordWrap(True)
        form = QFormLayout()
        form.addRow("&Run:", self.run_box)
        form.addRow("&Scope:", self.scope_box)
        form.addRow("&Profile:", self.profile_box)
        form.addRow("&Endpoint URL:", self.endpoint_edit)
        form.addRow("&Model:", self.model_edit)
        form.addRow("API key:", key)
        form.addRow("Sends:", self.profile_summary)

        self.bar = QProgressBar(self)
        self.bar.setObjectName("judgeProgress")
        self.bar.setVisible(False)
        self.status = QLabel("Reading the project's runs…", self)
        self.status.setObjectName("judgeStatus")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(self)
        self.judge_button = QPushButton("&Judge", self)
        self.judge_button.setObjectName("judgeStart")
        self.judge_button.setEnabled(False)
        self.stop_button = QPushButton("S&top", self)
        self.stop_button.setObjectName("judgeStop")
        self.stop_button.setToolTip("Stop after the requests under way; the verdicts received are kept")
        self.stop_button.setEnabled(False)
        self.buttons.addButton(self.judge_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.stop_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        self.judge_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.bar)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(560, self.sizeHint().height())
        self.run_box.setFocus()
        self._read_choices()

    # -- the choices ------------------------------------------------------------------------------
    def _read_choices(self) -> None:
        from studio.judging.run_judging import judgeable

        root = self.project_dir
        self.runner.run("Reading the runs to judge", lambda: judgeable(root), self._show_choices, self._failed)

    def _show_choices(self, choices: tuple[list[str], list[str]]) -> None:
        from studio.judging.run_judging import ALL_SCOPES

        runs, scopes = choices
        self.run_box.addItems(runs)
        if self.chosen_run in runs:
            self.run_box.setCurrentIndex(runs.index(self.chosen_run))
        self.scope_box.addItem(ALL_LABEL, ALL_SCOPES)
        for scope in scopes:
            self.scope_box.addItem(scope, scope)
        self._fill_profiles()
        self.judge_button.setEnabled(bool(runs))
        self.status.setText("Choose the run and the rubric, then Judge." if runs else
                            "The project has no run yet: start one (Runs), then judge it here.")

    def _fill_profiles(self) -> None:
        fill_profiles(self.profile_box, self.project_dir)
        self.profile_box.currentIndexChanged.connect(lambda _: self._profile_chosen())
        self.endpoint_edit.textEdited.connect(lambda _: self._show_summary())
        self.model_edit.textEdited.connect(lambda _: self._show_summary())
        self._profile_chosen()

    def _profile_chosen(self) -> None:
        """Show the chosen profile's endpoint and model (the fields stay editable: they are sent over the
        profile) and what its requests send."""
        name = self.profile_box.currentData()
        try:
            profile = self._profile()
        except StudioError as error:
            self.profile_summary.setText(str(error))
            return
        if name is not None:
            if profile.endpoint:
                self.endpoint_edit.setText(profile.endpoint)
            if profile.model:
                self.model_edit.setText(profile.model)
        self._show_summary()

    def _show_summary(self) -> None:
        try:
            self.profile_summary.setText(self._settings().describe())
        except StudioError as error:
            self.profile_summary.setText(str(error))
        self._fit_height()

    def _fit_height(self) -> None:
        """Grow to show a longer text whole (a wrapped summary or status); never shrink under the user."""
        layout = self.layout()
        if layout is not None:
            layout.activate()  # the labels at their width in the dialog as it is now
        short = sum(max(0, label.heightForWidth(label.width()) - label.height())
                    for label in (self.profile_summary, self.status) if label.width() > 0)
        if short:
            self.resize(self.width(), self.height() + short)

    def _profile(self) -> JudgeProfile:
        from studio.judging.profiles import JudgeProfile, load_profile
        from studio.judging.request_shape import DEFAULT_TIMEOUT_S

        name = self.profile_box.currentData()
        return load_profile(self.project_dir, str(name)) if name else JudgeProfile(timeout_s=DEFAULT_TIMEOUT_S)

    def _settings(self) -> JudgeSettings:
        """The profile, with the endpoint and model of the fields over it (as the CLI's flags are)."""
        from studio.judging.judge import settings_for

        return settings_for(self.project_dir, self.profile_box.currentData(), self.endpoint_edit.text(),
                           self.model_edit.text())

    # -- judging ----------------------------------------------------------------------------------
    def start(self) -> None:
        from studio.judging.errors import JudgingError
        from studio.judging.run_judging import judge_run

        run_id, scope = self.run_box.currentText(), str(self.scope_box.currentData())
        endpoint, model = self.endpoint_edit.text().strip(), self.model_edit.text().strip()
        if not endpoint.startswith(("http://", "https://")):
            self.status.setText("Give the endpoint as a URL starting with http:// or https://, "
                                "e.g. http://localhost:11434/v1")
            self.endpoint_edit.setFocus()
            return
        try:
            self._profile()
        except StudioError as error:  # a profile file of the project that does not read
            self.status.setText(str(error))
            self.profile_box.setFocus()
            return
        try:
            settings = self._settings()
        except JudgingError as error:
            self.status.setText(str(error).replace("give --model or set OPENAI_MODEL", "give the model"))
            self.model_edit.setFocus()
            return
        root = self.project_dir
        spent: dict[tuple[str, str], int] = {}  # tokens so far, by submission and scope

        def report(progress: Progress, step: JudgeProgress) -> None:
            spent[(step.submission, step.scope)] = step.tokens
            tokens = sum(spent.values())
            progress.report(step.done, step.total, f"{step.submission} {step.scope}: {step.phase}; "
                                                   f"{tokens:,} token{'' if tokens == 1 else 's'} so far")

        def work(progress: Progress) -> RunJudging:
            return judge_run(root, run_id, scope, settings, lambda step: report(progress, step),
                             lambda: progress.cancelled)

        self._set_running(True)
        self.status.setText(f"Judging {run_id} with {model} at {endpoint}…")
        self.task = self.runner.run_with_progress(f"Judging {run_id}", work, self._done, self._failed,
                                                  self._progressed)

    def stop(self) -> None:
        """Stop after the requests under way: their verdicts are stored."""
        if self.task is not None:
            self.task.stop()
            self.stop_button.setEnabled(False)
            self.status.setText("Stopping after the requests under way…")

    def _progressed(self, report: ProgressReport) -> None:
        self.bar.setRange(0, report.total or 0)
        self.bar.setValue(report.done)
        if self.task is not None and not self.task.stopping:
            self.status.setText(f"{report.text} ({report.done} of {report.total} criteria)")

    def _done(self, result: RunJudging) -> None:
        self._set_running(False)
        summary = result.summary
        text = (f"{'Stopped' if summary.cancelled else 'Done'}: judged {summary.judged}, reused {summary.reused}, "
                f"missing {summary.missing}, by checks {summary.from_checks} ({summary.requests} requests).")
        if summary.cancelled:
            text += " The verdicts received are stored; judge again to go on."
        costs = summary.costs
        text += (f" Spent {costs.prompt_tokens:,} prompt tokens ({costs.cached_tokens:,} cached) and "
                 f"{costs.completion_tokens:,} completion tokens in {costs.attempts} HTTP request(s).")
        if summary.refusals:
            text += " Refused by the server, not retried: " + "; ".join(summary.refusals)
        if summary.missing_ids:
            text += " Missing (judge again to retry them): " + ", ".join(summary.missing_ids)
        for cid, reason in summary.not_judged.items():
            text += f" Not judged, stored missing: {cid}: {reason}"
        if result.skipped:
            text += f" No checkpoint for {', '.join(result.skipped)}: not judged."
        self.status.setText(text)
        self._fit_height()
        self.judged.emit(result)

    def _failed(self, error: StudioError) -> None:
        self._set_running(False)
        self.status.setText(str(error))

    def _set_running(self, running: bool) -> None:
        self.bar.setVisible(running or self.bar.isVisible())
        self.judge_button.setEnabled(not running and self.run_box.count() > 0)
        self.stop_button.setEnabled(running)
        for field in (self.run_box, self.scope_box, self.profile_box, self.endpoint_edit, self.model_edit):
            field.setEnabled(not running)
        if not running:
            self.task = None

    def reject(self) -> None:
        """Closing while the judge works stops it (the verdicts received are kept)."""
        self.stop()
        super().reject()
