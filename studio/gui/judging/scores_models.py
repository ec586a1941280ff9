"""Table models of the scores view and the agreement dashboard.

`ScoresModel`: one row per run, one column per checkpoint along the timeline, then the process
score, the final score and the count of missing verdicts. An unknown score shows its range in
italics, a rubric without verdicts "not judged" in grey: never 0.
`AgreementModel`: one row per block of decisions (pooled, each target, each dimension) with
the agreement statistics of studio.agreement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from studio.agreement.results import block_kappa, bootstrap_interval
from studio.views.formats import coefficient_text, interval_text, percent_text

if TYPE_CHECKING:
    from studio.agreement.results import AgreementReport, Block
    from studio.judging.score_sheet import RunScores, ScopeScore, ScoreSheet

Index = QModelIndex | QPersistentModelIndex
GREY = QBrush(QColor("#6b6b6b"))
_ITALIC = QFont()
_ITALIC.setItalic(True)
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class ScoresModel(QAbstractTableModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.sheet: ScoreSheet | None = None
        self._columns: list[str] = []
        self._by_scope: list[dict[str, ScopeScore]] = []  # per run: scope -> score, looked up per cell

    def set_sheet(self, sheet: ScoreSheet | None) -> None:
        """Show a new sheet: the same runs and rubrics change cells only (dataChanged), a
        different layout is a new table."""
        columns = sheet.columns() if sheet is not None else []
        same = (self.sheet is not None and sheet is not None and columns == self._columns
                and [r.submission for r in self.sheet.runs] == [r.submission for r in sheet.runs])
        if same and sheet is not None:
            self.sheet, self._by_scope = sheet, (sheet.by_scope() if sheet is not None else [])
            if sheet.runs:
                self.dataChanged.emit(self.index(0, 0), self.index(len(sheet.runs) - 1, len(columns) - 1))
            return
        self.beginResetModel()
        self.sheet, self._columns, self._by_scope = sheet, columns, (sheet.by_scope() if sheet is not None else [])
        self.endResetModel()

    def columns(self) -> list[str]:
        return list(self._columns)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() or self.sheet is None else len(self.sheet.runs)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._columns)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._columns):
            return None
        name = self._columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return {"run": "Run", "process": "Process", "final": "Final", "missing": "Missing"}.get(name, name)
        if role == Qt.ItemDataRole.ToolTipRole:
            return {"run": "The run (HARNESS@RUN_ID) or the submission judged",
                    "process": "The mean of the checkpoint scores",
                    "final": "The final rubric's score",
                    "missing": "Criteria without a pass/fail verdict: judge or review them"}.get(
                name, f"The checkpoint score of {name}")
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.sheet is None or index.row() >= len(self.sheet.runs):
            return None
        run = self.sheet.runs[index.row()]
        column = self._columns[index.column()]
        if column == "run":
            if role == Qt.ItemDataRole.DisplayRole:
                return run.system
            return run.submission if role == Qt.ItemDataRole.ToolTipRole else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT
        if column == "missing":
            return run.missing if role == Qt.ItemDataRole.DisplayRole else None
        if column == "process":
            return self._process(run, role)
        score = self._by_scope[index.row()].get(column)
        if score is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return score.text()
        if role == Qt.ItemDataRole.ToolTipRole:
            return score.explain()
        if role == Qt.ItemDataRole.FontRole:
            return _ITALIC if score.score is None else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return GREY if score.score is None else None
        return None

    def _process(self, run: RunScores, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return run.process_text()
        if run.process is None and role == Qt.ItemDataRole.FontRole:
            return _ITALIC
        if run.process is None and role == Qt.ItemDataRole.ForegroundRole:
            return GREY
        if role == Qt.ItemDataRole.ToolTipRole:
            if run.process is None and run.process_range is not None:
                return (f"Unknown: missing verdicts leave the mean of the checkpoint scores between "
                        f"{run.process_range[0]:.2f} and {run.process_range[1]:.2f}")
            return "The mean of the checkpoint scores"
        return None

    def scope_score(self, run: RunScores, scope: str) -> ScopeScore | None:
        if scope == "final":
            return run.final
        return next((score for score in run.checkpoints if score.scope == scope), None)


AGREEMENT_COLUMNS = ("Group", "Decisions", "Agreement", "95% interval", "Mean over rater pairs", "Cohen's kappa",
                     "Gwet's AC1", "AC1 95% (bootstrap)", "Krippendorff's alpha")
AGREEMENT_TIPS = {
    "Agreement": "Percent agreement pooled over decisions: with more than two raters, every judge-expert "
                 "decision pair counts once (a rater with three verdicts weighs three decisions)",
    "Mean over rater pairs": "The unweighted mean of the pairwise percent agreements: a rater with few verdicts "
                             "weighs as much as one with many",
}


class AgreementModel(QAbstractTableModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.report: AgreementReport | None = None
        self._rows: list[tuple[str, Block]] = []

    def set_report(self, report: AgreementReport | None) -> None:
        rows = [] if report is None else [("pooled", report.pooled)] + [
            (f"{kind} {name}", block) for kind, blocks in (("target", report.by_target),
                                                          ("dimension", report.by_dimension))
            for name, block in blocks.items()]
        if self.report is not None and report is not None and [r[0] for r in rows] == [r[0] for r in self._rows]:
            self.report, self._rows = report, rows
            self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, len(AGREEMENT_COLUMNS) - 1))
            return
        self.beginResetModel()
        self.report, self._rows = report, rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(AGREEMENT_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(AGREEMENT_COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return AGREEMENT_COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return AGREEMENT_TIPS.get(AGREEMENT_COLUMNS[section])
        return None

    def cells(self, row: int) -> list[str]:
        """The texts of a row, as shown."""
        name, block = self._rows[row]
        two = block.get("raters") == 2
        interval = block.get("wilson95") if two else bootstrap_interval(block, "pooled_percent")
        pooled = block.get("pooled_percent", block.get("percent"))
        return [name, str(block.get("n", 0)), percent_text(pooled), interval_text(interval, percent=True),
                percent_text(block.get("percent")), coefficient_text(block_kappa(block)), coefficient_text(block.get("gwet_ac1")),
                interval_text(bootstrap_interval(block, "gwet_ac1")), coefficient_text(block.get("krippendorff_alpha"))]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells(index.row())[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and index.row() == 0:
            bold = QFont()
            bold.setBold(True)
            return bold
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == AGREEMENT_COLUMNS.index("Agreement"):
            block = self._rows[index.row()][1]
            basis = block.get("pooled_basis", "two raters")
            agree, pairs = block.get("pooled_agree", block.get("agree", 0)), block.get("pooled_n", block.get("n", 0))
            if basis == "two raters":
                return f"Percent agreement (two raters); {agree} of {pairs} decisions agree"
            return f"Percent agreement pooled over {basis}: {agree} of {pairs} agree"
        return None
